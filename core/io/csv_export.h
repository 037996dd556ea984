#pragma once
// CSV exports (RFC 4180 quoting), one header row, raw numbers (bytes and nanoseconds as integers)
// with the unit in the column's name:
//   series: device,series,point,t_ns,x_index,value_bytes,event — every point of every series;
//   events: seq,t_ns,device,source,action,addr,size_bytes,stream,category,phase,run,top_frame —
//           every event, or the rows of a filtered, sorted events table in its order;
//   a table (core/analysis/table.h): its columns, "name (unit)", numbers in full.

#include <cstdint>
#include <ostream>
#include <vector>
#include <string>
#include <string_view>

#include "core/analysis/table.h"
#include "core/model/trace.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth {

void writeSeriesCsv(const Trace& trace, std::ostream& out);
// `rows`: event indices in the order to write; null writes every event in order.
void writeEventsCsv(const Trace& trace, std::ostream& out, const std::vector<uint32_t>* rows = nullptr,
                    Progress* progress = nullptr);
void writeTableCsv(const Table& table, std::ostream& out);
Status exportCsv(const Trace& trace, std::string_view what, const std::string& path, Progress* progress = nullptr);
Status exportEventRowsCsv(const Trace& trace, const std::vector<uint32_t>* rows, const std::string& path,
                          Progress* progress = nullptr);
Status exportTableCsv(const Table& table, const std::string& path);

std::string csvField(std::string_view text);

}  // namespace sawtooth
