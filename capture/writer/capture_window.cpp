#include "capture/writer/capture_window.h"

#include <algorithm>

#include "core/recording/capture_window_spec.h"

namespace sawtooth::capture {

Status applyStepRange(const std::string& range, WindowOptions& window) {
  auto parsed = recording::parseStepRange(range);
  if (!parsed) return parsed.error();
  window.first_step = parsed->first;
  window.end_step = parsed->end;
  return Ok{};
}

Status applyWindowEvents(int64_t events, WindowOptions& window) {
  if (Status st = recording::checkWindowEvents(events); !st) return st;
  window.last_events = static_cast<uint64_t>(events);
  return Ok{};
}

CaptureWindow::CaptureWindow(WindowOptions options) : options_(options) {
  if (!options_.stepsLimited()) open_t_ = std::numeric_limits<int64_t>::min();
}

bool CaptureWindow::onStepBegin(int64_t step, int64_t t_ns) {
  steps_seen_ = std::max(steps_seen_, step + 1);
  if (step >= options_.end_step && !closed()) close_t_ = std::max(t_ns, open_t_ == kNever ? t_ns : open_t_);
  if (step >= options_.first_step && step < options_.end_step && !isOpen()) {
    open_t_ = t_ns;
    return true;
  }
  return false;
}

void CaptureWindow::onAllocatorEvent(int16_t device, Action action, int64_t size) {
  const int a = allocatedSign(action), r = reservedSign(action);
  if (a == 0 && r == 0) return;
  AllocatorNet& t = totals_[device];
  t.device = device;
  t.allocated += a * size;
  t.reserved += r * size;
}

void CaptureWindow::onDriverEvent(const Event& e, uint64_t seq) {
  const auto key = std::make_pair(e.device, e.addr);
  if (e.action == Action::Alloc) {
    driver_live_[key] = DriverBlock{e.device, e.addr, e.size, e.stream, seq, kNoSeq};
    return;
  }
  auto it = driver_live_.find(key);
  if (it == driver_live_.end()) return;
  DriverBlock freed = it->second;
  freed.free_seq = seq;
  driver_live_.erase(it);
  // Only a window that moves needs the frees (a block made before its start and freed inside).
  if (options_.last_events > 0 && freed.free_seq != kNoSeq) driver_freed_.push_back(freed);
}

void CaptureWindow::setBaselineToTotals() { baseline_ = totals_; }

void CaptureWindow::addToBaseline(const std::vector<AllocatorNet>& removed) {
  for (const AllocatorNet& n : removed) {
    AllocatorNet& b = baseline_[n.device];
    b.device = n.device;
    b.allocated += n.allocated;
    b.reserved += n.reserved;
  }
}

std::vector<Event> CaptureWindow::driverRowsAt(uint64_t cut, int64_t t_ns) {
  auto madeBefore = [&](const DriverBlock& b) { return b.alloc_seq == kNoSeq || b.alloc_seq < cut; };
  std::vector<Event> rows;
  auto row = [&](const DriverBlock& b) {
    Event e;
    e.t_ns = t_ns;
    e.device = b.device;
    e.source = Source::Driver;
    e.action = Action::Alloc;
    e.addr = b.addr;
    e.size = b.size;
    e.stream = b.stream;
    rows.push_back(e);
  };
  for (const auto& [key, b] : driver_live_)
    if (madeBefore(b)) row(b);
  std::deque<DriverBlock> kept;
  for (const DriverBlock& b : driver_freed_) {
    if (b.free_seq < cut) continue;  // gone before the window starts
    if (madeBefore(b)) row(b);
    else kept.push_back(b);
  }
  driver_freed_.swap(kept);
  return rows;
}

}  // namespace sawtooth::capture
