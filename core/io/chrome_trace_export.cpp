#include "core/io/chrome_trace_export.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/analysis/series.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

// Perfetto wants microseconds; keep nanosecond precision with three decimals.
std::string micros(int64_t ns) { return fmt::format("{}.{:03}", ns / 1000, std::abs(ns % 1000)); }

std::string jsonString(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void writeChromeTrace(const Trace& trace, std::ostream& out) {
  out << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"sawtooth\",\"source_format\":"
      << jsonString(trace.format) << "},\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&]() -> std::ostream& {
    if (!first) out << ",\n";
    first = false;
    return out;
  };
  std::string line;
  for (DeviceId device : trace.deviceIds()) {
    const int pid = device + 2;  // pids must be positive; cpu (-1) becomes 1
    sep() << fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"tid":0,"args":{{"name":{}}}}})", pid,
                         jsonString(deviceLabel(device)));
    const DeviceSeries ds = buildDeviceSeries(trace, device);
    for (const Series* s : ds.all()) {
      const std::string track = std::string(name(s->kind)) + " bytes";
      sep() << fmt::format(R"({{"name":"{}","ph":"C","ts":0,"pid":{},"args":{{"value":{}}}}})", track, pid, s->start);
      for (size_t i = 0; i < s->size(); ++i) {
        line.clear();
        fmt::format_to(std::back_inserter(line), R"({{"name":"{}","ph":"C","ts":{},"pid":{},"args":{{"value":{}}}}})",
                       track, micros(s->t(i)), pid, s->value[i]);
        sep() << line;
      }
    }
    for (const Phase& p : trace.phases) {
      if (p.device != kAllDevices && p.device != device) continue;
      sep() << fmt::format(R"({{"name":{},"cat":"{}","ph":"X","ts":{},"dur":{},"pid":{},"tid":1}})", jsonString(p.name),
                           p.kind == PhaseKind::Annotation ? "annotation" : "phase", micros(p.begin_ns),
                           micros(wrappingSub(p.end_ns, p.begin_ns)), pid);
    }
  }
  out << "\n]}\n";
}

Status exportChromeTrace(const Trace& trace, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return Error{fmt::format("{}: cannot create", path)};
  writeChromeTrace(trace, out);
  out.flush();
  if (!out) return Error{fmt::format("{}: write failed", path)};
  return Ok{};
}

}  // namespace sawtooth
