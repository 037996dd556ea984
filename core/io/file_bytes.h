#pragma once
// Reading whole files, and gunzipping them, with progress and cancellation.

#include <functional>
#include <string>
#include <string_view>

#include "core/io/read_limits.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

// Extra zeroed capacity kept after the data so that simdjson can parse the buffer in place.
inline constexpr size_t kParsePadding = 64;

// Errors read "PATH: reason". The bytes are counted against `budget` when one is given.
Result<std::string> readFileBytes(const std::string& path, Progress* progress = nullptr, ReadBudget* budget = nullptr);
bool isGzip(std::string_view bytes);

// Looks at the first decompressed bytes (64, or all when fewer) before the rest is inflated: an
// error stops at once, so a compressed file that is not a trace costs nothing to refuse.
using HeadCheck = std::function<Status(std::string_view head)>;
// Errors read "reason" (the caller names the file). The output may grow to the budget's
// decompression limits: limits.max_decompress_ratio times the input, and max_decompressed (or
// the memory limit) at most.
Result<std::string> gunzip(const std::string& compressed, Progress* progress = nullptr, ReadBudget* budget = nullptr,
                           const HeadCheck& check_head = {});
// Reads a file and, when it is gzip-compressed, returns the decompressed bytes.
Result<std::string> readMaybeGzip(const std::string& path, Progress* progress = nullptr, ReadBudget* budget = nullptr,
                                  const HeadCheck& check_head = {});
Status writeFileBytes(const std::string& path, const std::string& bytes);

}  // namespace sawtooth
