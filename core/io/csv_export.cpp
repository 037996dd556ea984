#include "core/io/csv_export.h"

#include <fstream>

#include <fmt/format.h>

#include "core/analysis/frame_filter.h"
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
        fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{}\n", dev, series_name, i, s->t(i),
                       s->axis->index(i), s->value[i], s->event(i));
        out << line;
      }
    }
  }
}

void writeEventsCsv(const Trace& trace, std::ostream& out, const std::vector<uint32_t>* rows, Progress* progress) {
  out << "seq,t_ns,device,source,action,addr,size_bytes,stream,category,phase,run,top_frame\n";
  const auto& ev = trace.events;
  // Top frames by stack, not by event: a handful of stacks serve millions of events.
  std::vector<std::string> top(trace.stacks.stackCount());
  for (size_t s = 0; s < top.size(); ++s) top[s] = csvField(topFrameText(trace.stacks, static_cast<uint32_t>(s)));
  const size_t n = rows ? rows->size() : ev.size();
  std::string line;
  for (size_t r = 0; r < n; ++r) {
    if (progress && r % 65536 == 0) {
      if (progress->cancelled()) return;
      progress->report(r, n);
    }
    const size_t i = rows ? (*rows)[r] : r;
    if (i >= ev.size()) continue;
    const Event e = ev.at(i);
    std::string_view phase = e.phase < trace.phases.size() ? std::string_view(trace.phases[e.phase].name) : "";
    std::string_view run = e.run < trace.runs.size() ? std::string_view(trace.runs[e.run].name) : "";
    std::string_view frame = e.stack < top.size() ? std::string_view(top[e.stack]) : "";
    line.clear();
    fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{},{}\n", i, e.t_ns, deviceLabel(e.device),
                   name(e.source), name(e.action), e.addr, e.size, e.stream, name(e.category), csvField(phase),
                   csvField(run), frame);
    out << line;
  }
}

void writeTableCsv(const Table& table, std::ostream& out) {
  std::string line;
  for (size_t c = 0; c < table.columnCount(); ++c) line += (c ? "," : "") + csvField(csvHeader(table.columns[c]));
  out << line << '\n';
  for (const auto& row : table.rows) {
    line.clear();
    for (size_t c = 0; c < table.columnCount(); ++c)
      line += (c ? "," : "") + csvField(c < row.size() ? csvValue(row[c], table.columns[c].unit) : std::string());
    out << line << '\n';
  }
}

namespace {

template <typename Write>
Status writeFile(const std::string& path, Write write) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return Error{fmt::format("{}: cannot create", path)};
  write(out);
  out.flush();
  if (!out) return Error{fmt::format("{}: write failed", path)};
  return Ok{};
}

}  // namespace

Status exportCsv(const Trace& trace, std::string_view what, const std::string& path, Progress* progress) {
  if (what != "series" && what != "events")
    return Error{fmt::format("unknown CSV export '{}' (choose series or events)", what)};
  return writeFile(path, [&](std::ostream& out) {
    if (what == "series") writeSeriesCsv(trace, out);
    else writeEventsCsv(trace, out, nullptr, progress);
  });
}

Status exportEventRowsCsv(const Trace& trace, const std::vector<uint32_t>* rows, const std::string& path,
                          Progress* progress) {
  return writeFile(path, [&](std::ostream& out) { writeEventsCsv(trace, out, rows, progress); });
}

Status exportTableCsv(const Table& table, const std::string& path) {
  return writeFile(path, [&](std::ostream& out) { writeTableCsv(table, out); });
}

}  // namespace sawtooth
