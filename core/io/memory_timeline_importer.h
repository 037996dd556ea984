#pragma once
// torch.profiler's memory timeline (profile.export_memory_timeline), in both JSON forms it writes:
//   plot points  [times, sizes] — times in µs; sizes[i] = [0, parameter, optimizer_state, input,
//                temporary, activation, gradient, autograd_detail, unknown]: bytes alive per
//                category from times[i] on (paths *.json, *.json.gz, and *.raw.json without .gz);
//   raw events   [[t_ns, action, bytes, category], ...] (paths *.raw.json.gz) — action 1
//                preexisting (t = -1), 2 create, 3 increment_version, 4 destroy; category 0..7 in
//                the column order above.
// Column order and codes are PyTorch's own (torch/profiler/_memory_profiler.py: _CATEGORY_TO_INDEX,
// Action). Each change of a category's bytes becomes an allocator event of that category on
// device 0 (the file does not say which device it was exported for), so category peaks, the
// stacked timeline and every export see exactly the file's numbers. The HTML export (a picture)
// is refused with a message naming the form to export instead.

#include <string>
#include <string_view>

#include "core/io/read_limits.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// A JSON array whose first element is an array ("[[" after whitespace): a memory timeline, never
// a Chrome trace (whose array form holds objects).
bool looksLikeMemoryTimeline(std::string_view bytes);
// `json` may carry simdjson's padding in its capacity (readFileBytes leaves it); else it is copied.
// Within the budget's limits (memory, events) when one is given.
Result<Trace> importMemoryTimeline(const std::string& json, Progress* progress = nullptr, ReadBudget* budget = nullptr);

// An HTML document ("<" after whitespace): never a trace. The error says what to export instead.
bool looksLikeHtml(std::string_view bytes);
Error htmlRefusal(std::string_view bytes);

}  // namespace sawtooth
