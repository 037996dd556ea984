#pragma once
// The seed's ladder for one recorded program: what each rung — compile, bf16 (fp16), activation
// checkpointing, gradient accumulation, a smaller batch, sharding over N devices — would do to the
// peak (in the caching allocator's blocks, as max_memory_allocated counts, and reserved) and to
// the step time, predicted from one recording with the reasoning shown; whether each fits a
// device of a chosen size and the largest batch that would; and the diagnosis that picks where to
// start (memory-tight, compute-bound, bandwidth/overhead-bound). Measured runs of a rung, where
// they are open, are put beside the prediction (core/analysis/ladder_measured.h).

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/ladder_input.h"
#include "core/analysis/ladder_program.h"

namespace sawtooth {

enum class RungFamily : uint8_t { Baseline, Compile, Precision, Checkpoint, Accumulation, Batch, Sharding };
std::string_view name(RungFamily family);

struct MeasuredRung {
  std::string row;     // the row it measures (LadderRow::id)
  std::string source;  // "every_2nd in checkpointing.sawtooth", "run.sawtooth (--rung bf16)"
  int64_t peak_allocated = 0;
  int64_t peak_allocated_blocks = 0;
  int64_t peak_reserved = -1;
  std::optional<double> step_ms;
};

struct LadderRow {
  std::string id;     // "baseline", "compile", "bf16", "checkpoint:every=2", "checkpoint:every=2:reentrant",
                      // "accumulate:k=4", "batch:1/2", "zero1:N=2", "zero2:N=2", "fsdp:N=2"
  std::string label;  // "bf16 autocast", "checkpoint every 2nd block (non-reentrant)", ...
  RungFamily family = RungFamily::Baseline;
  bool applicable = true;
  bool predicted = true;  // false: compile (measured only)
  std::string note;       // why not applicable, or why only measured

  int64_t peak_allocated = 0;         // the sum of requests at the peak (the trace's allocated series)
  int64_t peak_allocated_blocks = 0;  // in the allocator's blocks: max_memory_allocated (= the above on the CPU)
  std::optional<int64_t> peak_reserved;  // the baseline's reserved/allocated carried over (CUDA)
  std::array<int64_t, kBlockRoleCount> at_peak{};  // block bytes alive at the peak, by kind
  std::string peak_part;  // where the peak lands: "forward", "backward", "optimizer", ...

  std::optional<double> step_ms;
  std::string time_basis;  // how the step time was predicted, or why it is not
  std::vector<std::string> reasoning;

  std::optional<bool> fits;          // on the chosen device memory
  std::optional<double> max_batch_scale;  // the largest batch that fits, as a multiple of the recorded batch
  std::optional<int64_t> max_batch;       // the same in rows/samples, when the recording says its batch

  // The range the recording leaves (peaks as peak_error compares them: blocks on CUDA, bytes on the
  // CPU), and why; unset where the rule is exact.
  std::optional<int64_t> peak_low, peak_high;
  std::string range_why;

  std::optional<MeasuredRung> measured;
  std::optional<double> peak_error;  // predicted / measured − 1 (blocks on CUDA, bytes on the CPU)
  std::optional<double> time_error;
  std::optional<bool> measured_in_range;  // the measured peak within [peak_low, peak_high]
};

struct LadderDiagnosis {
  std::string verdict;  // "memory-tight", "compute-bound", "bandwidth/overhead-bound", or what is unknown
  std::vector<std::string> evidence;
  std::string start_with;  // the rung to try first, in the seed's words
};

struct LadderReport {
  std::string run;
  DeviceId device = 0;
  std::string device_name;
  bool cuda = false;
  int64_t device_memory = 0;  // what "fits" is judged against (0: unknown)
  std::string device_memory_source;
  std::optional<int64_t> batch;
  std::string batch_key;
  std::string blocks_source;  // how the repeated blocks were found
  std::string time_source;
  std::string parts_source;
  int shard_devices = 2;
  std::vector<LadderRow> rows;  // baseline first
  LadderDiagnosis diagnosis;

  const LadderRow* row(std::string_view id) const;
};

struct LadderOptions {
  int64_t device_memory = 0;  // 0: the recorded device's total
  std::vector<int> checkpoint_every = {4, 2, 1};
  std::vector<int> accumulation = {2, 4, 8};
  std::vector<int> smaller_batch = {2, 4};
  int shard_devices = 0;  // 0: the run's world size when distributed, else 2
  // A ring all-reduce's bus bandwidth between the devices, in 1e9 B/s, for the sharding rows' time
  // from a one-device recording; 0: from the device's name (interconnect.h), where known.
  double link_gb_per_s = 0;
};

LadderReport predictLadder(const LadderInput& input, const LadderOptions& options = {});

// Puts measured rungs beside their rows, with the errors (peak: blocks on CUDA, bytes on the
// CPU; time: the same measurement as the baseline's).
void attachMeasured(LadderReport& report, const std::vector<MeasuredRung>& measured);

// Per-operation host overhead of eager PyTorch (dispatch and launch), the floor under a
// micro-batch's time however small it gets.
inline constexpr double kEagerOpOverheadMs = 0.005;

}  // namespace sawtooth
