#include "core/io/csv_export.h"

#include <fstream>

#include <fmt/format.h>

#include "core/analysis/series.h"

namespace sawtooth {

std::string csvField(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

void writeSeriesCsv(const Trace& trace, std::ostream& out) {
  out << "device,series,point,t_ns,x_index,value_bytes,event\n";
  std::string line;
  for (DeviceId device : trace.deviceIds()) {
    const DeviceSeries ds = buildDeviceSeries(trace, device);
    const std::string dev = deviceLabel(device);
    for (const Series* s : ds.all()) {
      const std::string_view series_name = name(s->kind);
      out << fmt::format("{},{},-1,,,{},\n", dev, series_name, s->start);
      for (size_t i = 0; i < s->size(); ++i) {
        line.clear();
        fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{}\n", dev, series_name, i, s->t_ns[i],
                       s->x_index[i], s->value[i], s->event[i]);
        out << line;
      }
    }
  }
}

void writeEventsCsv(const Trace& trace, std::ostream& out) {
  out << "seq,t_ns,device,source,action,addr,size,stream,category,phase,run,top_frame\n";
  const auto& ev = trace.events;
  std::string line;
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event e = ev.at(i);
    std::string_view phase = e.phase < trace.phases.size() ? std::string_view(trace.phases[e.phase].name) : "";
    std::string_view run = e.run < trace.runs.size() ? std::string_view(trace.runs[e.run].name) : "";
    std::string_view frame;
    if (e.stack != kNoStack) {
      auto frames = trace.stacks.stack(e.stack);
      if (!frames.empty()) frame = trace.stacks.frame(frames.front()).name;
    }
    line.clear();
    fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{},{}\n", i, e.t_ns, deviceLabel(e.device),
                   name(e.source), name(e.action), e.addr, e.size, e.stream, name(e.category), csvField(phase),
                   csvField(run), csvField(frame));
    out << line;
  }
}

Status exportCsv(const Trace& trace, std::string_view what, const std::string& path) {
  if (what != "series" && what != "events")
    return Error{fmt::format("unknown CSV export '{}' (choose series or events)", what)};
  std::ofstream out(path, std::ios::binary);
  if (!out) return Error{fmt::format("{}: cannot create", path)};
  if (what == "series") writeSeriesCsv(trace, out);
  else writeEventsCsv(trace, out);
  out.flush();
  if (!out) return Error{fmt::format("{}: write failed", path)};
  return Ok{};
}

}  // namespace sawtooth
