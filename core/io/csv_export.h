#pragma once
// CSV exports (RFC 4180 quoting), one header row, bytes and nanoseconds as integers.
//   series: device,series,point,t_ns,x_index,value_bytes,event — every point of every series;
//   events: seq,t_ns,device,source,action,addr,size,stream,category,phase,run,top_frame.

#include <ostream>
#include <string>
#include <string_view>

#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

void writeSeriesCsv(const Trace& trace, std::ostream& out);
void writeEventsCsv(const Trace& trace, std::ostream& out);
Status exportCsv(const Trace& trace, std::string_view what, const std::string& path);

std::string csvField(std::string_view text);

}  // namespace sawtooth
