#include "core/io/snapshot_builder.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "core/io/pickle_scalars.h"
#include "core/model/phase_assignment.h"
#include "core/util/wrapping.h"

namespace sawtooth::snapshot {
namespace {

using pickle::Kind;
using pickle::Value;

constexpr uint8_t kUnknownCode = 0xff;

const char* fieldName(Field f) {
  switch (f) {
    case Field::Action: return "action";
    case Field::Addr: return "addr";
    case Field::Size: return "size";
    case Field::Stream: return "stream";
    case Field::TimeUs: return "time_us";
    default: return "?";
  }
}

uint64_t bigKey(uint64_t row, Field f) { return row * 8 + static_cast<uint64_t>(f); }

}  // namespace

Field classifyKey(std::string_view key) {
  switch (key.size()) {
    case 4:
      if (key == "addr") return Field::Addr;
      if (key == "size") return Field::Size;
      break;
    case 6:
      if (key == "action") return Field::Action;
      if (key == "stream") return Field::Stream;
      if (key == "frames") return Field::Frames;
      break;
    case 7:
      if (key == "time_us") return Field::TimeUs;
      break;
    case 11:
      if (key == "device_free") return Field::Addr;  // an oom entry's free bytes, kept in addr
      break;
    default: break;
  }
  return Field::Other;
}

Builder::Builder(ReadBudget& budget, Progress* progress, uint64_t expected_rows)
    : budget_(budget), progress_(progress) {
  if (expected_rows > 0) {
    const uint64_t rows = std::min<uint64_t>(expected_rows, budget.limits().max_events);
    events_.reserve(rows);
    status_.reserve(rows);
  }
}
Builder::~Builder() = default;

bool Builder::fail(std::string message) {
  error_ = std::move(message);
  return false;
}

bool Builder::newRow(uint64_t& row) {
  row = base_ + events_.size();
  if (row >= budget_.limits().max_events)
    return fail(fmt::format("more than {} events (the events limit; {})", budget_.limits().max_events,
                            raiseHint("events")));
  if (events_.size() == charged_rows_) {  // the rows held: all of them unless streaming
    // Counted in steps of 64 K rows: 49 bytes in the store and 2 of state each.
    const uint64_t step = 65536;
    if (!budget_.take(step * 51)) return fail(budget_.memoryError("the events").message);
    charged_rows_ += step;
  }
  Event e;
  e.stack = kNoStack;
  events_.push(e);
  status_.push_back(0);
  return true;
}

void Builder::setStack(uint64_t row, uint32_t stack) {
  if (row < base_) return lateWrite();
  events_.columns().stack[row - base_] = stack;
}

void Builder::setField(uint64_t row, Field field, const Value& v, const pickle::Document& doc) {
  if (field == Field::Other || field == Field::Frames) return;
  if (v.isInt() && field != Field::Action) return setInt(row, field, v.i);
  if (row < base_) return lateWrite();
  const uint64_t held = row - base_;  // its place in the rows held (row itself unless streaming)
  EventStore::Columns c = events_.columns();
  uint8_t state = kOk;
  if (field == Field::Action) {
    if (v.kind != Kind::Str) {
      state = kWrongKind;
    } else {
      const std::string_view text = doc.str(v);
      uint8_t code = kUnknownCode;
      bool cached = false;
      for (const KnownText& k : known_actions_)
        if (k.data == text.data() && k.size == text.size()) {
          code = k.code;
          cached = true;
          break;
        }
      if (!cached) {
        if (auto a = parseAction(text); a && *a != Action::Sample) code = static_cast<uint8_t>(*a);
        if (known_actions_.size() < 32) known_actions_.push_back({text.data(), static_cast<uint32_t>(text.size()), code});
      }
      c.action[held] = static_cast<Action>(code);
      if (code == kUnknownCode) {
        state = kUnknownAction;
        unknown_action_text_[row] = std::string(text.substr(0, 200));
      }
    }
  } else {
    int64_t value = 0;
    if (v.isInt()) {
      value = v.i;
      if (field == Field::Size && value < 0) state = kNegative;
      if ((field == Field::Addr || field == Field::Stream) && value < 0) state = kTooBig;
      if (field == Field::TimeUs && (value < -kMaxAbsTimeUs || value > kMaxAbsTimeUs)) state = kTooBig;
    } else if (v.kind == Kind::BigInt) {
      const std::string_view bytes = doc.str(v);
      const auto unsigned_value = pickle::longToUint64(bytes);
      if ((field == Field::Addr || field == Field::Stream) && unsigned_value) {
        value = static_cast<int64_t>(*unsigned_value);
      } else {
        state = field == Field::Size && !bytes.empty() && (static_cast<uint8_t>(bytes.back()) & 0x80) ? kNegative : kTooBig;
        big_text_[bigKey(row, field)] = pickle::longToDecimal(bytes);
      }
    } else {
      state = kWrongKind;
      value = static_cast<int64_t>(v.kind);
    }
    switch (field) {
      case Field::Addr: c.addr[held] = static_cast<uint64_t>(value); break;
      case Field::Size: c.size[held] = value; break;
      case Field::Stream: c.stream[held] = static_cast<uint64_t>(value); break;
      case Field::TimeUs: c.t_ns[held] = value; break;
      default: break;
    }
  }
  setState(held, field, state);
}

uint32_t Builder::internString(const Value* v, const pickle::Document& doc) {
  if (!v || v->kind != Kind::Str) return stacks_.internString({});
  // The memo hands out one string many times (a file name shared by thousands of frames): it is
  // hashed once, then found by where its bytes lie.
  const uint64_t where = v->off * 2 + (v->owned ? 1 : 0);
  auto [it, inserted] = string_ids_.try_emplace(where, 0);
  if (inserted) {
    const size_t before = stacks_.stringCount();
    it->second = stacks_.internString(doc.str(*v));
    if (stacks_.stringCount() != before) string_bytes_ += v->len + 32;
  }
  return it->second;
}

bool Builder::internFrame(const Value* name, const Value* file, const Value* line, const pickle::Document& doc,
                          uint32_t& id) {
  const uint32_t n = internString(name, doc), f = internString(file, doc);
  const int64_t l = line && line->isInt() ? line->i : 0;
  const size_t before = stacks_.frameCount();
  id = stacks_.internFrameIds(n, f, l);
  if (stacks_.frameCount() != before) {
    if (stacks_.frameCount() > budget_.limits().max_frames)
      return fail(fmt::format("more than {} distinct frames (the frames limit; {})", budget_.limits().max_frames,
                              raiseHint("frames")));
    // The frame, and the bytes of the strings first seen with it.
    if (!budget_.take(48 + string_bytes_)) return fail(budget_.memoryError("the frames").message);
    string_bytes_ = 0;
  }
  return true;
}

bool Builder::internStack(std::span<const uint32_t> frames, uint32_t& id) {
  if (frames.empty()) {
    id = kNoStack;
    return true;
  }
  const size_t before = stacks_.stackCount();
  id = stacks_.internStack(frames);
  if (stacks_.stackCount() != before) {
    if (stacks_.stackCount() > budget_.limits().max_stacks)
      return fail(fmt::format("more than {} distinct stacks (the stacks limit; {})", budget_.limits().max_stacks,
                              raiseHint("stacks")));
    if (!budget_.take(frames.size_bytes() + 32)) return fail(budget_.memoryError("the stacks").message);
  }
  return true;
}

bool Builder::genericFrame(const Value& frame, const pickle::Document& doc, uint32_t& id) {
  if (frame.kind != Kind::Dict) return internFrame(nullptr, nullptr, nullptr, doc, id);
  if (generic_ids_.size() <= frame.container) generic_ids_.resize(doc.containerCount() + 1024, 0);
  if (uint32_t cached = generic_ids_[frame.container]) {
    id = cached - 1;
    return true;
  }
  if (!internFrame(doc.get(frame, "name"), doc.get(frame, "filename"), doc.get(frame, "line"), doc, id)) return false;
  doc.freeze(frame);
  generic_ids_[frame.container] = id + 1;
  return true;
}

bool Builder::genericStack(const Value& frames, const pickle::Document& doc, uint32_t& id) {
  id = kNoStack;
  if (frames.kind != Kind::List) return true;
  if (generic_ids_.size() <= frames.container) generic_ids_.resize(doc.containerCount() + 1024, 0);
  if (uint32_t cached = generic_ids_[frames.container]) {
    id = cached - 1;
    return true;
  }
  std::vector<uint32_t> ids;
  for (const Value& f : doc.items(frames)) {
    uint32_t fid = 0;
    if (!genericFrame(f, doc, fid)) return false;
    ids.push_back(fid);
  }
  if (!internStack(ids, id)) return false;
  doc.freeze(frames);
  if (generic_ids_.size() <= frames.container) generic_ids_.resize(doc.containerCount() + 1024, 0);
  generic_ids_[frames.container] = id + 1;
  return true;
}

void Builder::addDeviceRows(DeviceId device, std::span<const RowRange> rows) {
  order_.push_back(DeviceRows{device, {rows.begin(), rows.end()}});
}

void Builder::addSegmentTotals(DeviceId device, int64_t total_size, int64_t allocated) {
  final_reserved_[device] = wrappingAdd(final_reserved_[device], total_size);
  final_allocated_[device] = wrappingAdd(final_allocated_[device], allocated);
}

void Builder::addAnnotation(std::string name, bool start, DeviceId device, int64_t time_us) {
  annotations_.push_back(Annotation{std::move(name), start, device, time_us});
}

Status Builder::judgeAndCount(uint64_t& kept, bool& in_place, std::string& warnings) {
  kept = 0;
  uint64_t expect = 0;
  in_place = true;  // every row, in the order created, none skipped: the store is already the trace
  std::map<std::string, uint64_t> unknown;  // action text -> events skipped
  std::vector<std::string> unknown_order;
  const EventStore& ev = events_;
  for (size_t d = 0; d < order_.size(); ++d) {
    uint64_t index = 0;
    for (const RowRange& r : order_[d].ranges) {
      if (r.begin != expect) in_place = false;
      expect = r.end;
      for (uint64_t row = r.begin; row < r.end; ++row, ++index) {
        const uint16_t status = status_[row];
        if (status == kAllOk) {
          ++kept;
          continue;
        }
        auto where = [&] { return fmt::format("device_traces[{}][{}]", d, index); };
        const uint8_t action = stateOf(status, Field::Action);
        if (action == kAbsent) return Error{fmt::format("{} has no 'action'", where())};
        if (action == kWrongKind) return Error{fmt::format("{}: 'action' is not a string", where())};
        for (Field f : {Field::Addr, Field::Size, Field::Stream, Field::TimeUs}) {
          const uint8_t s = stateOf(status, f);
          if (s == kAbsent || s == kOk) continue;
          const auto big = big_text_.find(bigKey(row, f));
          int64_t value = 0;
          switch (f) {
            case Field::Addr: value = static_cast<int64_t>(ev.addr()[row]); break;
            case Field::Size: value = ev.sizes()[row]; break;
            case Field::Stream: value = static_cast<int64_t>(ev.stream()[row]); break;
            default: value = ev.tNs()[row]; break;
          }
          const std::string text = big != big_text_.end() ? big->second : std::to_string(value);
          if (s == kWrongKind) {
            const auto kind = static_cast<Kind>(value);
            return Error{fmt::format("{}: '{}' is {}{}, not an integer", where(), fieldName(f),
                                     kind == Kind::None ? "" : "a ", pickle::kindName(kind))};
          }
          if (s == kNegative) return Error{fmt::format("{}: {} {} is negative", where(), fieldName(f), text)};
          if (f == Field::TimeUs) return Error{fmt::format("{}: time_us {} is out of range", where(), text)};
          if (f == Field::Size) return Error{fmt::format("{}: size {} does not fit in 64 bits", where(), text)};
          return Error{fmt::format("{}: {} {} is not a 64-bit unsigned value", where(), fieldName(f), text)};
        }
        if (action == kUnknownAction) {
          const std::string& t = unknown_action_text_[row];
          if (unknown[t]++ == 0) unknown_order.push_back(t);
          in_place = false;
          continue;
        }
        ++kept;
      }
    }
  }
  if (expect != events_.size()) in_place = false;
  for (const std::string& t : unknown_order)
    warnings += fmt::format("skipped {} event(s) of unknown action '{}'; ", unknown[t], t);
  return Ok{};
}

Status Builder::placeEvents(Trace& trace, uint64_t kept, bool in_place) {
  EventStore out;
  if (!in_place) {
    // An unusual file (events listed twice, out of creation order, or skipped): copied in order.
    if (!budget_.take(kept * 49)) return budget_.memoryError("the events in their order");
    out.reserve(kept);
  }
  EventStore::Columns c = events_.columns();
  uint64_t done = 0;
  for (const DeviceRows& d : order_) {
    int64_t allocated = 0, reserved = 0;
    for (const RowRange& r : d.ranges) {
      for (uint64_t row = r.begin; row < r.end; ++row) {
        if (++done % 65536 == 0 && progress_) {
          if (progress_->cancelled()) return Error{"cancelled"};
          progress_->report(done, events_.size());
        }
        if (static_cast<uint8_t>(c.action[row]) == kUnknownCode) continue;
        c.device[row] = d.device;
        const Action action = c.action[row];
        const int64_t size = c.size[row];
        allocated = wrappingAdd(allocated, wrappingMul(allocatedSign(action), size));
        reserved = wrappingAdd(reserved, wrappingMul(reservedSign(action), size));
        if (!in_place) out.push(events_.at(row));
      }
    }
    net_allocated_[d.device] = wrappingAdd(net_allocated_[d.device], allocated);
    net_reserved_[d.device] = wrappingAdd(net_reserved_[d.device], reserved);
  }
  status_ = {};
  if (in_place) {
    trace.events = std::move(events_);
    if (trace.events.capacity() > trace.events.size() + trace.events.size() / 8) trace.events.shrinkToFit();
  } else {
    trace.events = std::move(out);
    events_ = EventStore();
  }
  // Times are nanoseconds from here on (the bound on time_us keeps the product in 64 bits).
  for (int64_t& t : trace.events.columns().t_ns) t *= 1000;
  return Ok{};
}

void Builder::buildPhases(Trace& trace, int64_t t0_us, int64_t end_ns) {
  // Pair START/END per (device, name), an END with the latest open START; unmatched starts run to
  // the end, unmatched ends from 0. The open starts are kept per key in a tree: 200,000 open
  // annotations of distinct names cost O(n log n), not a search through all of them per END.
  std::map<std::pair<DeviceId, std::string_view>, std::vector<size_t>> open;  // key -> phase indices
  for (size_t i = 0; i < annotations_.size(); ++i) {
    const Annotation& a = annotations_[i];
    const int64_t t = (a.time_us - t0_us) * 1000;
    const std::pair<DeviceId, std::string_view> key{a.device, a.name};
    if (a.start) {
      trace.phases.push_back(Phase{a.name, PhaseKind::Annotation, a.device, kNoRun, t, end_ns});
      open[key].push_back(trace.phases.size() - 1);
      continue;
    }
    auto it = open.find(key);
    if (it != open.end() && !it->second.empty()) {
      trace.phases[it->second.back()].end_ns = t;
      it->second.pop_back();
    } else {
      trace.phases.push_back(Phase{a.name, PhaseKind::Annotation, a.device, kNoRun, 0, t});
    }
  }
}

bool Builder::addSegment(SnapshotSegment segment) {
  if (!budget_.take(sizeof(SnapshotSegment) + segment.blocks.size() * sizeof(SnapshotBlock)))
    return fail(budget_.memoryError("the snapshot's segments").message);
  segments_.push_back(std::move(segment));
  return true;
}

Result<Trace> Builder::finish() {
  uint64_t kept = 0;
  bool in_place = true;
  std::string warnings;
  if (Status st = judgeAndCount(kept, in_place, warnings); !st) return st.error();

  Trace trace;
  trace.format = "pytorch-snapshot";
  for (const DeviceRows& d : order_) trace.deviceInfo(d.device);
  if (Status st = placeEvents(trace, kept, in_place); !st) return st.error();

  int64_t t0 = std::numeric_limits<int64_t>::max(), t1 = std::numeric_limits<int64_t>::min();
  for (int64_t t : trace.events.tNs()) t0 = std::min(t0, t), t1 = std::max(t1, t);
  if (!trace.events.empty()) t0 /= 1000, t1 /= 1000;
  for (const Annotation& a : annotations_) t0 = std::min(t0, a.time_us), t1 = std::max(t1, a.time_us);
  if (t0 == std::numeric_limits<int64_t>::max()) t0 = t1 = 0;
  trace.meta = std::move(meta_);
  trace.meta["t0_unix_ns"] = std::to_string(t0 * 1000);
  trace.events.shiftTimes(-t0 * 1000);

  // The trace starts mid-run: what was alive before it began is what is alive at the end minus
  // what the trace itself added.
  if (has_segments_) {
    for (const auto& entry : final_reserved_) trace.deviceInfo(entry.first);
    for (auto& info : trace.devices) {
      auto net = [&](const std::map<DeviceId, int64_t>& m) {
        auto it = m.find(info.device);
        return it == m.end() ? int64_t{0} : it->second;
      };
      info.baseline_allocated = wrappingSub(net(final_allocated_), net(net_allocated_));
      info.baseline_reserved = wrappingSub(net(final_reserved_), net(net_reserved_));
    }
  }
  buildPhases(trace, t0, (t1 - t0) * 1000);
  trace.phases.shrink_to_fit();  // one per annotation pair: thousands in a long snapshot
  trace.stacks = std::move(stacks_);
  trace.segments = std::move(segments_);
  trace.segments_known = has_segments_;
  warnings += segment_warnings_;
  if (!warnings.empty()) trace.meta["warnings"] = warnings;
  assignPhases(trace);
  return trace;
}

bool Builder::cannotStream(std::string why) {
  if (not_streamable_.empty()) not_streamable_ = std::move(why);
  return fail(fmt::format("the file cannot be read as a stream: {}", not_streamable_));
}

bool Builder::listed(uint64_t list, uint64_t row) {
  if (!not_streamable_.empty()) return cannotStream(not_streamable_);
  if (row != next_listed_) return cannotStream("its events are listed out of the order they were made, or twice");
  if (!listed_.empty() && listed_.back().list == list) ++listed_.back().count;
  else listed_.push_back(ListedRun{list, 1});
  ++next_listed_;
  return next_listed_ - base_ < kStreamRows || flushListed();
}

bool Builder::flushListed() {
  const uint64_t n = next_listed_ - base_;
  if (n == 0) return true;
  EventStore::Columns c = events_.columns();
  size_t at = 0;
  for (const ListedRun& run : listed_) {
    auto& net = net_by_list_[run.list];
    for (size_t i = at; i < at + run.count; ++i) {
      // What the full read would judge (and word with the event's place) is left to it.
      if (status_[i] != kAllOk) return cannotStream("an event has a value to judge");
      t_min_us_ = std::min(t_min_us_, c.t_ns[i]);
      t_max_us_ = std::max(t_max_us_, c.t_ns[i]);
      const Action action = c.action[i];
      net.first = wrappingAdd(net.first, wrappingMul(allocatedSign(action), c.size[i]));
      net.second = wrappingAdd(net.second, wrappingMul(reservedSign(action), c.size[i]));
    }
    if (Status st = sink_->take(events_, at, at + run.count, base_ + at, run.list); !st) return fail(st.error().message);
    at += run.count;
  }
  // The rows made but not listed yet (the next batch's first) stay.
  EventStore rest;
  for (size_t i = n; i < events_.size(); ++i) rest.push(events_.at(i));
  events_ = std::move(rest);
  status_.erase(status_.begin(), status_.begin() + static_cast<std::ptrdiff_t>(n));
  listed_.clear();
  base_ += n;
  constexpr uint64_t step = 65536;
  while (charged_rows_ >= events_.size() + 2 * step) {
    budget_.give(step * 51);
    charged_rows_ -= step;
  }
  if (progress_) {
    if (progress_->cancelled()) return fail("cancelled");
  }
  return true;
}

Result<StreamedTables> Builder::finishStream() {
  if (!flushListed()) return Error{error_};
  if (!not_streamable_.empty()) return Error{fmt::format("the file cannot be read as a stream: {}", not_streamable_)};
  if (!events_.empty()) return Error{"the file cannot be read as a stream: it makes events it never lists"};
  // The device lists, in the order the rows were made and listed: the trace's order.
  uint64_t expect = 0;
  for (const DeviceRows& d : order_)
    for (const RowRange& r : d.ranges) {
      if (r.begin != expect) return Error{"the file cannot be read as a stream: its device lists are out of order"};
      expect = r.end;
    }
  if (expect != base_) return Error{"the file cannot be read as a stream: it lists events outside 'device_traces'"};

  StreamedTables out;
  Trace& trace = out.tables;
  trace.format = "pytorch-snapshot";
  for (const DeviceRows& d : order_) trace.deviceInfo(d.device);
  int64_t t0 = t_min_us_, t1 = t_max_us_;
  for (const Annotation& a : annotations_) t0 = std::min(t0, a.time_us), t1 = std::max(t1, a.time_us);
  if (t0 == std::numeric_limits<int64_t>::max()) t0 = t1 = 0;
  trace.meta = std::move(meta_);
  trace.meta["t0_unix_ns"] = std::to_string(t0 * 1000);
  if (has_segments_) {
    std::map<DeviceId, std::pair<int64_t, int64_t>> net;
    for (const auto& [list, sums] : net_by_list_) {
      auto device = list_device_.find(list);
      if (device == list_device_.end()) return Error{"the file cannot be read as a stream: an event list of no device"};
      auto& n = net[device->second];
      n.first = wrappingAdd(n.first, sums.first);
      n.second = wrappingAdd(n.second, sums.second);
    }
    for (const auto& entry : final_reserved_) trace.deviceInfo(entry.first);
    for (auto& info : trace.devices) {
      auto final = [&](const std::map<DeviceId, int64_t>& m) {
        auto it = m.find(info.device);
        return it == m.end() ? int64_t{0} : it->second;
      };
      const auto n = net.find(info.device);
      info.baseline_allocated = wrappingSub(final(final_allocated_), n == net.end() ? 0 : n->second.first);
      info.baseline_reserved = wrappingSub(final(final_reserved_), n == net.end() ? 0 : n->second.second);
    }
  }
  buildPhases(trace, t0, (t1 - t0) * 1000);
  trace.phases.shrink_to_fit();
  trace.stacks = std::move(stacks_);
  trace.segments = std::move(segments_);
  trace.segments_known = has_segments_;
  if (!segment_warnings_.empty()) trace.meta["warnings"] = segment_warnings_;
  out.t0_us = t0;
  out.list_device = list_device_;
  out.rows = base_;
  return out;
}

}  // namespace sawtooth::snapshot
