#include "core/io/memory_timeline_importer.h"

#include <array>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

namespace dom = simdjson::dom;

// torch/profiler/_memory_profiler.py, _CATEGORY_TO_INDEX: the raw form's category codes, and the
// plot form's columns 1..8.
constexpr std::array<Category, 8> kTorchCategories = {
    Category::Parameter, Category::OptimizerState, Category::Input,          Category::Temporary,
    Category::Activation, Category::Gradient,      Category::AutogradDetail, Category::Unknown};
constexpr size_t kPlotColumns = 1 + kTorchCategories.size();  // a leading 0, then the categories

// torch/profiler/_memory_profiler.py, Action (enum.auto() from 1).
enum RawAction : int64_t { kPreexisting = 1, kCreate = 2, kIncrementVersion = 3, kDestroy = 4 };

// Times become nanoseconds since the first one, which must fit in 64 bits.
constexpr int64_t kMaxSpanNs = std::numeric_limits<int64_t>::max() / 2;

bool wholeNumber(dom::element v, int64_t& out) {
  switch (v.type()) {
    case dom::element_type::INT64: return !v.get_int64().get(out);
    case dom::element_type::UINT64: {
      uint64_t u = 0;
      if (v.get_uint64().get(u) || u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
      out = static_cast<int64_t>(u);
      return true;
    }
    case dom::element_type::DOUBLE: {
      double d = 0;
      if (v.get_double().get(d) || !std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.2e18) return false;
      out = static_cast<int64_t>(d);
      return true;
    }
    default: return false;
  }
}

std::string shown(dom::element v) {
  std::string s = simdjson::minify(v);
  return s.size() > 40 ? s.substr(0, 40) + "…" : s;
}

struct RawEvent {
  int64_t t, action, bytes, category;
};

class TimelineReader {
 public:
  TimelineReader(Progress* progress, ReadBudget& budget) : progress_(progress), budget_(budget), charge_(budget) {}

  Result<Trace> read(const std::string& json) {
    trace_.format = "torch-memory-timeline";
    budget_.setInputBytes(json.size());
    // simdjson's document: its tape and strings take about twice the text.
    if (!budget_.take(uint64_t{json.size()} * 2)) return budget_.memoryError("the JSON document");
    dom::parser parser;
    dom::element doc;
    const bool copy = json.capacity() < json.size() + simdjson::SIMDJSON_PADDING;
    if (auto error = parser.parse(json.data(), json.size(), copy).get(doc))
      return Error{fmt::format("not valid JSON ({})", simdjson::error_message(error))};
    dom::array top;
    if (doc.get_array().get(top)) return Error{"not a torch.profiler memory timeline: the JSON is not an array"};
    if (top.size() == 0) return Error{"an empty memory timeline ([])"};
    // Plot points are exactly [times, sizes] with sizes an array of rows; raw events are rows of
    // four numbers throughout.
    dom::array second;
    dom::element first_row;
    const bool plot = top.size() == 2 && !top.at(1).get_array().get(second) &&
                      (second.size() == 0 || (!second.at(0).get(first_row) && first_row.is_array()));
    Status st = plot ? readPlot(top.at(0), second) : readRaw(top);
    if (!st) return st.error();
    trace_.deviceInfo(0);
    trace_.meta["memory_timeline.device"] =
        "not recorded in the file (export_memory_timeline's device argument, cuda:0 by default); shown as cuda:0";
    if (!warnings_.empty()) trace_.meta["warnings"] = warnings_;
    return std::move(trace_);
  }

 private:
  void warn(const std::string& w) { warnings_ += (warnings_.empty() ? "" : "; ") + w; }

  bool cancelled(size_t done, size_t total) {
    if (!progress_ || done % 4096 != 0) return false;
    if (progress_->cancelled()) return true;
    progress_->report(done, total);
    return false;
  }

  Status push(int64_t t_ns, int64_t delta, Category category) {
    if (delta == 0) return Ok{};
    if (Status st = charge_.admit(trace_.events.size()); !st) return st;
    Event e;
    e.t_ns = t_ns;
    e.device = 0;
    e.source = Source::Allocator;
    e.action = delta > 0 ? Action::Alloc : Action::FreeCompleted;
    e.size = delta > 0 ? delta : wrappingSub(0, delta);
    e.category = category;
    trace_.events.push(e);
    return Ok{};
  }

  Status readPlot(dom::element times_element, dom::array rows) {
    dom::array times_array;
    if (times_element.get_array().get(times_array)) return Error{"[times, sizes]: times is not an array"};
    if (times_array.size() != rows.size())
      return Error{fmt::format("[times, sizes]: {} times but {} rows of sizes", times_array.size(), rows.size())};
    if (rows.size() == 0) return Error{"a memory timeline without time points ([[], []])"};
    std::vector<int64_t> times;
    if (!budget_.take(uint64_t{times_array.size()} * sizeof(int64_t))) return budget_.memoryError("the times");
    times.reserve(times_array.size());
    for (dom::element t : times_array) {
      int64_t v = 0;
      if (!wholeNumber(t, v)) return Error{fmt::format("times[{}] is {}, not a whole number of µs", times.size(), shown(t))};
      times.push_back(v);
    }
    int64_t t0 = times.front(), backwards = 0;
    for (size_t i = 0; i < times.size(); ++i) {
      t0 = std::min(t0, times[i]);
      if (i && times[i] < times[i - 1]) ++backwards;
    }
    trace_.meta["memory_timeline.form"] = "plot points [times, sizes by category]";
    trace_.meta["memory_timeline.points"] = std::to_string(times.size());
    trace_.meta["t0_trace_us"] = std::to_string(t0);
    if (backwards) warn(fmt::format("{} times run backwards (kept in file order)", backwards));

    std::array<int64_t, kPlotColumns> previous{}, row{};
    size_t i = 0, negative_rows = 0;
    trace_.events.reserve(std::min<size_t>(rows.size() * 2, budget_.limits().max_events));
    for (dom::element r : rows) {
      dom::array cols;
      if (r.get_array().get(cols) || cols.size() != kPlotColumns)
        return Error{fmt::format("sizes[{}] is {}: torch.profiler writes rows of {} numbers (0, parameter, "
                                 "optimizer_state, input, temporary, activation, gradient, autograd_detail, unknown)",
                                 i, shown(r), kPlotColumns)};
      size_t c = 0;
      bool negative = false;
      for (dom::element v : cols) {
        if (!wholeNumber(v, row[c])) return Error{fmt::format("sizes[{}][{}] is {}, not a whole number of bytes", i, c, shown(v))};
        negative |= row[c] < 0;
        ++c;
      }
      if (row[0] != 0)
        return Error{fmt::format("sizes[{}][0] is {}: torch.profiler always writes 0 in the first column", i, row[0])};
      negative_rows += negative;
      // t0 is the smallest time: a negative span is one that wrapped (times 2^63 µs apart).
      const int64_t span = wrappingSub(times[i], t0);
      if (span < 0 || span > kMaxSpanNs / 1000)
        return Error{fmt::format("times[{}] = {} µs lies too far from the first ({})", i, times[i], t0)};
      const int64_t t_ns = span * 1000;
      // Decreases before increases: the running total never passes the larger of the two rows.
      for (int pass = 0; pass < 2; ++pass)
        for (size_t k = 1; k < kPlotColumns; ++k) {
          const int64_t delta = wrappingSub(row[k], previous[k]);
          if ((pass == 0) == (delta < 0))
            if (Status st = push(t_ns, delta, kTorchCategories[k - 1]); !st) return st;
        }
      previous = row;
      if (cancelled(++i, rows.size())) return Error{"cancelled"};
    }
    if (negative_rows) warn(fmt::format("{} rows hold negative sizes (kept as they are)", negative_rows));
    return Ok{};
  }

  Status readRaw(dom::array items) {
    std::vector<RawEvent> raw;
    if (!budget_.take(uint64_t{items.size()} * sizeof(RawEvent))) return budget_.memoryError("the raw events");
    raw.reserve(items.size());
    int64_t t0 = std::numeric_limits<int64_t>::max();
    for (dom::element item : items) {
      const size_t i = raw.size();
      dom::array fields;
      if (item.get_array().get(fields) || fields.size() != 4)
        return Error{fmt::format("event {} is {}: a raw memory timeline holds [timestamp, action, bytes, category] "
                                 "rows, and plot points are [times, sizes]",
                                 i, shown(item))};
      std::array<int64_t, 4> f{};
      size_t k = 0;
      for (dom::element v : fields) {
        if (!wholeNumber(v, f[k])) return Error{fmt::format("event {} field {} is {}, not a whole number", i, k, shown(v))};
        ++k;
      }
      if (f[1] < kPreexisting || f[1] > kDestroy)
        return Error{fmt::format("event {}: action {} is not one of torch.profiler's (1 preexisting, 2 create, "
                                 "3 increment_version, 4 destroy)",
                                 i, f[1])};
      if (f[3] < 0 || f[3] >= static_cast<int64_t>(kTorchCategories.size()))
        return Error{fmt::format("event {}: category {} is not one of torch.profiler's 0..7", i, f[3])};
      if (f[0] >= 0) t0 = std::min(t0, f[0]);
      raw.push_back({f[0], f[1], f[2], f[3]});
    }
    if (t0 == std::numeric_limits<int64_t>::max()) t0 = 0;  // only pre-existing memory
    trace_.meta["memory_timeline.form"] = "raw events [timestamp, action, bytes, category]";
    trace_.meta["memory_timeline.points"] = std::to_string(raw.size());
    trace_.meta["t0_trace_us"] = fmt::format("{:.3f}", static_cast<double>(t0) / 1000.0);

    size_t bumps = 0, backwards = 0;
    int64_t last_ns = 0;
    trace_.events.reserve(std::min<size_t>(raw.size(), budget_.limits().max_events));
    for (size_t i = 0; i < raw.size(); ++i) {
      const RawEvent& e = raw[i];
      // Memory that existed before profiling began has timestamp -1: it starts the timeline.
      const int64_t t_ns = e.t < 0 ? 0 : wrappingSub(e.t, t0);
      if (t_ns > kMaxSpanNs) return Error{fmt::format("event {}: timestamp {} lies too far from the first ({})", i, e.t, t0)};
      if (t_ns < last_ns) ++backwards;
      last_ns = t_ns;
      // A new version of a tensor is written as its bytes leaving the old version's category and
      // entering the new one's; within one category nothing moves, so no event is made.
      if (e.action == kIncrementVersion && i + 1 < raw.size()) {
        const RawEvent& next = raw[i + 1];
        if (next.action == kIncrementVersion && next.t == e.t && next.category == e.category && e.bytes < 0 &&
            next.bytes == wrappingSub(0, e.bytes)) {
          ++bumps;
          ++i;
          continue;
        }
      }
      if (Status st = push(t_ns, e.bytes, kTorchCategories[static_cast<size_t>(e.category)]); !st) return st;
      if (cancelled(i + 1, raw.size())) return Error{"cancelled"};
    }
    trace_.meta["memory_timeline.version_bumps_within_a_category"] = std::to_string(bumps);
    if (backwards) warn(fmt::format("{} events run backwards in time (kept in file order)", backwards));
    return Ok{};
  }

  Progress* progress_;
  ReadBudget& budget_;
  EventCharge charge_;
  Trace trace_;
  std::string warnings_;
};

size_t firstNonSpace(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  return i;
}

}  // namespace

bool looksLikeMemoryTimeline(std::string_view bytes) {
  size_t i = firstNonSpace(bytes);
  if (i >= bytes.size() || bytes[i] != '[') return false;
  ++i;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  return i < bytes.size() && bytes[i] == '[';
}

Result<Trace> importMemoryTimeline(const std::string& json, Progress* progress, ReadBudget* budget) {
  ReadBudget local;
  return TimelineReader(progress, budget ? *budget : local).read(json);
}

bool looksLikeHtml(std::string_view bytes) {
  const size_t i = firstNonSpace(bytes);
  return i < bytes.size() && bytes[i] == '<';
}

Error htmlRefusal(std::string_view bytes) {
  if (bytes.substr(0, 4096).find("Memory Timeline HTML") != std::string_view::npos)
    return Error{"torch.profiler's HTML memory timeline holds only a picture of the data: export it again with a path "
                 "ending in .raw.json.gz, e.g. prof.export_memory_timeline(\"memory.raw.json.gz\"), and open that"};
  return Error{"an HTML page, not a trace: Sawtooth opens PyTorch memory snapshots (.pickle), torch.profiler traces "
               "and memory timelines (.json, .json.gz, .raw.json.gz), JAX memory profiles and .sawtooth files"};
}

}  // namespace sawtooth
