#pragma once
// Limits every reader works within, so that a hostile or broken file costs bounded memory and
// time: it is refused with a message naming the limit and how to raise it, never std::bad_alloc,
// a signal or a hang. The defaults open any real trace the machine could hold.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/util/result.h"

namespace sawtooth {

struct ReadLimits {
  // Memory the reader may hold for one file (the trace it builds and its working state);
  // 0: defaultMaxMemory().
  uint64_t max_memory = 0;
  // A compressed file may inflate to this many times its size, and to max_decompressed bytes
  // at most (0: the memory limit).
  uint64_t max_decompress_ratio = 100;
  uint64_t max_decompressed = 0;
  // Nesting (pickle MARKs, JSON depth) and the size of one container or string.
  uint64_t max_depth = 512;
  uint64_t max_container_items = uint64_t{1} << 28;
  uint64_t max_string_bytes = uint64_t{1} << 28;
  // Distinct frames and stacks, devices, and rows of the small tables of a .sawtooth file.
  uint64_t max_frames = uint64_t{1} << 24;
  uint64_t max_stacks = uint64_t{1} << 26;
  uint64_t max_devices = 4096;
  // The size of one event: more than any device holds (1 PiB) is not a size but a broken value.
  uint64_t max_size = uint64_t{1} << 50;
  // Events of one trace (each costs about 50 bytes in memory; the memory limit applies as well).
  uint64_t max_events = uint64_t{1} << 32;
  // What a few bytes may stand for: past the first amplification_floor, at most this many events,
  // and this many frames in the stacks built, per byte of input (a pprof sample's count, a
  // location's lines referenced again and again). Every format Sawtooth reads spends bytes on each
  // event it holds; only a reference can multiply. (The fuzzers lower the floor to reach the
  // limit with small inputs.)
  uint64_t max_amplification = 16;
  uint64_t amplification_floor = uint64_t{1} << 20;
  // Bytes read beside a .sawtooth file: its -wal (read whole when no writer keeps its index), or
  // its -journal with the database (copied to a private folder to be rolled back).
  uint64_t max_journal = uint64_t{1} << 30;
  // Wall-clock time for one file (every SQLite query is bounded by it too).
  double max_seconds = 600;

  // The memory limit in effect: max_memory, or the default.
  uint64_t memoryLimit() const;
};

// Three quarters of the physical memory, or of the address space / data limit (ulimit -v / -d)
// when one is set and smaller.
uint64_t defaultMaxMemory();

// "2G", "512M", "1.5GiB", "1000000" -> bytes; nullopt when unreadable.
std::optional<uint64_t> parseByteSize(std::string_view text);
// Sets one limit from "NAME=VALUE" (names: limitNames()); the error says what is accepted.
Status setLimit(ReadLimits& limits, std::string_view assignment);
std::span<const std::string_view> limitNames();
// How a user raises a limit: "raise it with --limit frames=N".
std::string raiseHint(std::string_view limit_name);

// Counts the bytes a reader holds against the memory limit, and watches the clock.
class ReadBudget {
 public:
  explicit ReadBudget(const ReadLimits& limits = {});

  const ReadLimits& limits() const { return limits_; }
  // Takes `bytes` more; false (nothing taken) when that would pass the limit.
  bool take(uint64_t bytes);
  void give(uint64_t bytes) { used_ = bytes > used_ ? 0 : used_ - bytes; }
  uint64_t used() const { return used_; }
  uint64_t peak() const { return peak_; }
  uint64_t limit() const { return limit_; }
  // "needs more than 1.50 GB of memory for WHAT (the memory limit, ...; raise it with --max-memory SIZE)"
  Error memoryError(std::string_view what) const;

  // The input's size in bytes (after decompression), for the amplification limit; unset, no
  // amplification limit applies.
  void setInputBytes(uint64_t bytes) { input_bytes_ = bytes; }
  // How many events (or stack frames) the input may make: max(floor, amplification × input bytes).
  uint64_t amplificationCap() const;
  // "sample 3: 1048577 events from 125 bytes of input: more than 16 a byte (the amplification
  // limit; raise it with --limit amplification=N)" for `count` past the cap.
  Status withinAmplification(uint64_t count, std::string_view what) const;

  bool pastDeadline() const { return std::chrono::steady_clock::now() > deadline_; }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }
  Error timeError() const;

 private:
  ReadLimits limits_;
  uint64_t limit_ = 0;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
  uint64_t input_bytes_ = UINT64_MAX;
  std::chrono::steady_clock::time_point deadline_;
};

// An importer's growing event store charged against the budget in steps of 64 K rows (49 bytes a
// row in the store) and held to the events and amplification limits: a few bytes of input that
// stand for millions of events (a pprof sample with a huge count) stop at a limit with an error
// value.
class EventCharge {
 public:
  explicit EventCharge(ReadBudget& budget) : budget_(budget) {}
  // Before adding a row to a store that holds `rows`.
  Status admit(uint64_t rows);

 private:
  ReadBudget& budget_;
  uint64_t charged_ = 0;
};

}  // namespace sawtooth
