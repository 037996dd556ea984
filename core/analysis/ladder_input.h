#pragma once
// What the ladder's predictions start from (core/analysis/ladder.h): one run of a recording on one
// device, as the life of every allocator block — when it was born and when it was freed, in which
// part of the training step, its category — and the order of those births and deaths; the step's
// forward/backward passes, the model's repeated blocks, the allocator's settings and the run's
// timing. A small plain struct: ladderInput() fills it from a Trace, tests fill it by hand.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/allocator_rules.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

// The part of a training step an allocation or a free happened in (from the recording's phases).
enum class StepPart : uint8_t {
  Before,     // alive when the run began (parameters, inputs loaded earlier, the previous run's leftovers)
  Forward,
  Backward,
  Recompute,  // activation checkpointing running a forward again inside backward
  Optimizer,
  ZeroGrad,
  Other,      // outside those phases (setup, all-reduce, data loading, ...)
};
std::string_view name(StepPart part);
StepPart stepPartOf(std::string_view phase_name);

// What autocast does to a block, told by the op that made it: the innermost torch.nn.functional
// frame of its recorded Python stack. Most blocks have no such frame (no stack: backward, a
// recording without stacks; or an op the frame does not name): Unknown.
enum class AutocastOp : uint8_t {
  Unknown,
  Float32,   // an op on autocast's float32 list (layer_norm, softmax, cross_entropy, ...): stays 4-byte
  Dropout,   // made by dropout: its output follows its input's dtype, its mask is bool
  BoolMask,  // dropout's mask (a byte an element, a quarter of the fp32 output it masks): unchanged
  // Made by a layer on autocast's lower-precision list, told by its module's code in the stack
  // (torch/nn/modules/linear.py, conv.py) or by its line of source (torch.addmm, F.linear): 2-byte
  // whatever its input, and given a 4-byte input it saves its own 2-byte copy of it.
  LowPrecision,
};
std::string_view name(AutocastOp op);
// The op autocast sees in a torch.nn.functional function's name ("layer_norm" -> Float32).
AutocastOp autocastOpOfFunctional(std::string_view function);
// What a line of the program's source says of the blocks it makes where no torch.nn.functional
// frame names the op (a hand-written GELU's torch.pow, an RMSNorm's rsqrt, transformers' loss's
// .float()): Float32 when it calls an op on autocast's float32 list as a tensor method or torch
// function, casts to float32 itself, or uses the module's fp32 parameter (self.weight, self.bias) in
// arithmetic; what type promotion makes from that on the same line stays 4-byte too. LowPrecision
// when it calls a linear layer's op (torch.addmm, F.linear: transformers' Conv1D). Unknown otherwise.
AutocastOp autocastOpOfSourceLine(std::string_view line);

// A line of a Python file, as the program's stack names it: nullopt where the file cannot be read
// here. Empty: no source is read.
using SourceLineReader = std::function<std::optional<std::string>(std::string_view file, uint32_t line)>;

struct LadderBlock {
  int64_t bytes = 0;  // as recorded: the request (a CUDA block rounds it up: LadderInput::roundedBytes)
  Category category = Category::Unknown;
  StepPart born = StepPart::Before;
  int32_t alloc_op = -1;  // its alloc in LadderInput::ops; -1: alive when the run began
  int32_t free_op = -1;   // its free in LadderInput::ops; -1: still alive when the run ended
  AutocastOp autocast = AutocastOp::Unknown;
  // Float32 by its line of source (autocastOpOfSourceLine), not by a torch.nn.functional frame.
  bool fp32_by_source = false;
  // Made by a float32-list op that keeps its input for backward (pow, layer_norm): given a 2-byte
  // input, it keeps the 4-byte copy autocast made of it instead.
  bool float32_saves_input = false;
  // Made inside a cache's code (a frame in a file whose name says cache: transformers'
  // cache_utils.py, a KV cache): stored in an object that outlives the op, such as the
  // past_key_values every layer is handed, not only saved for backward.
  bool cached = false;
  // The code that made it, from its Python stack: the innermost frame's function (an id, the same
  // for the same file and function; 0: no stack), and how many frames deep the stack is.
  uint32_t code = 0;
  uint16_t depth = 0;
};
// Whether a frame's file is a cache's code: its base name contains "cache", outside PyTorch's own
// code (torch/_inductor/codecache.py runs compiled graphs).
bool isCacheFile(std::string_view file);

struct LadderOp {
  uint32_t block = 0;  // index into LadderInput::blocks
  bool alloc = true;   // an allocation, or a free
  StepPart part = StepPart::Other;
  int64_t t_ns = 0;
};

// One forward and the backward that follows it: ops [forward_begin, backward_begin) are the
// forward, [backward_begin, end) the backward (recomputation inside it included). A forward with
// no backward (evaluation) has backward_begin == end.
struct MicroStep {
  uint32_t forward_begin = 0;
  uint32_t backward_begin = 0;
  uint32_t end = 0;
  bool hasBackward() const { return end > backward_begin; }
};

// The model's repeated blocks (a ModuleList of identical layers), as the ops of each block's
// forward in each micro-step: what activation checkpointing works on.
struct BlockSpan {
  uint32_t begin = 0;  // ops [begin, end)
  uint32_t end = 0;
};
struct RepeatedBlocks {
  size_t count = 0;
  std::string name;    // "transformer.h (12 × GPT2Block)", or "repeating allocation pattern"
  std::string source;  // how they were found, in words (shown with the predictions)
  // Per micro-step: `count` spans in forward order, or none where that forward does not show them.
  std::vector<std::vector<BlockSpan>> forward;
  bool found() const { return count >= 2; }
};

// The run's step time and its parts.
struct LadderTiming {
  std::string what;  // "step_time", "fwd_bwd", "global_batch_time", or "step" (from the phases)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  size_t samples = 0;
  std::string source;  // where the step time comes from, in words
  // One step's parts in ms, and whether they were measured (the recorded phases, on the CPU) or
  // assumed (on a GPU the phases are the host's launch times: backward taken as twice forward).
  double forward_ms = 0, backward_ms = 0, optimizer_ms = 0, other_ms = 0;
  double collective_ms = 0;  // the recorded all-reduce / broadcast phases of a step (data parallel)
  // On a GPU: the host's own forward, backward and optimizer phases of a step (medians), the time
  // it takes to launch the step's work. Its own cost where the GPU lets it run ahead; more where a
  // full launch queue makes it wait for the GPU. 0 when the phases were not recorded.
  double host_ms = 0;
  bool parts_measured = false;
  std::string parts_source;
};

// The GPU's kernels during the run's steps, when the recording has them (CUPTI).
struct KernelTime {
  double busy_ms_per_step = 0;    // the union of kernel intervals
  double matmul_ms_per_step = 0;  // GEMM kernels (cuBLAS, CUTLASS, ...)
  // Foreach kernels (multi_tensor_apply: optimizers, zero_grad, gradient clipping), which read and
  // write the parameters, their gradients and the optimizer's state
  double foreach_ms_per_step = 0;
  double window_ms_per_step = 0;  // from the first kernel's start to the last one's end, per step
  size_t kernels_per_step = 0;
};

struct LadderInput {
  std::string run;  // the run's name ("" when the trace has no runs)
  uint16_t run_index = kNoRun;
  DeviceId device = 0;
  std::string device_name;
  int64_t device_total_bytes = 0;  // 0: unknown
  bool cuda = false;               // CUDA blocks round up to the caching allocator's sizes
  AllocatorSettings allocator;

  std::vector<LadderBlock> blocks;
  std::vector<LadderOp> ops;
  std::vector<MicroStep> micro_steps;
  size_t optimizer_steps = 0;
  RepeatedBlocks repeated;

  // Measured in the run itself: the allocated series' peak (requests, and CUDA blocks as
  // max_memory_allocated counts them) and the reserved one (CUDA; -1 when unknown).
  int64_t peak_allocated = 0;
  int64_t peak_allocated_blocks = 0;
  int64_t peak_reserved = -1;
  std::optional<LadderTiming> timing;
  std::optional<KernelTime> kernels;

  // What the run says about itself (its configuration): the batch, the world size, its precision
  // and whether it already checkpoints or accumulates.
  std::vector<std::pair<std::string, std::string>> config;
  std::string workload;  // the run's: a built-in workload's name, "program" for a recorded program
  std::optional<int64_t> batch;
  std::string batch_key;  // the configuration key the batch came from, or the program's option ("--batch")
  int world_size = 1;
  int rank = 0;
  std::string autocast;            // "" (off) or the dtype the run already autocasts to
  std::string matmul_precision;    // "highest", "high", ... when recorded
  bool already_checkpointed = false;
  bool stacks = false;  // whether the run's allocations in forward have Python stacks
  // The lines of source that made blocks Float32 ("activations.py:66"), in the order first met,
  // and how many lines were looked up and could not be read.
  std::vector<std::string> fp32_source_lines;
  size_t source_lines_unread = 0;

  int64_t roundedBytes(int64_t bytes) const { return cuda ? roundSize(bytes, allocator) : bytes; }
};

// Which run and device to start from: by name (empty: the first run that is not a check such as
// the accumulation workload's exact_check) and device (unset: the one whose allocated bytes peak
// highest in the run).
struct LadderSelection {
  std::string run;
  std::optional<DeviceId> device;
  SourceLineReader source;
};

// Fails, naming the run or device, when the selection is not in the trace or the run has no
// allocator events there.
Result<LadderInput> ladderInput(const Trace& trace, const LadderSelection& selection = {});

// The micro-steps of an op sequence: each maximal stretch of forward ops and the backward (and
// recompute) stretch right after it.
std::vector<MicroStep> findMicroSteps(const std::vector<LadderOp>& ops);

}  // namespace sawtooth
