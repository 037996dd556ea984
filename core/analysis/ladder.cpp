#include "core/analysis/ladder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/interconnect.h"
#include "core/analysis/ladder_rungs.h"
#include "core/analysis/result_text.h"
#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

// Dense matrix throughput from the vendors' datasheets (TFLOP/s): FP32 without tensor cores,
// TF32 and BF16/FP16 on tensor cores. Only ratios are used: how much faster the same matrix
// products run in 2-byte types than in the precision the run used.
// hbm: the memory bandwidth (TB/s), for the copies autocast adds (bandwidth-bound kernels).
struct Throughput {
  const char* name_part;
  double fp32, tf32, bf16;
  double hbm;
};
constexpr Throughput kThroughputs[] = {
    {"H200", 67, 495, 989, 4.8},    {"H100", 67, 495, 989, 3.35}, {"GH200", 67, 495, 989, 4.0},
    {"A100", 19.5, 156, 312, 2.0},  {"L40S", 91.6, 183, 362, 0.864}, {"L4", 30.3, 60, 121, 0.3},
    {"A10", 31.2, 62.5, 125, 0.6},  {"V100", 15.7, 15.7, 125, 0.9},
};

// The share of the datasheet bandwidth a large elementwise copy reaches (STREAM-style copies on HBM
// parts reach 80-90 %): autocast's casts and a loss scaler's unscale are such copies.
constexpr double kCopyEfficiency = 0.8;

// What the datasheet figures become in matrix products of a training step's sizes: the H200
// samples' fp32 run reached 86 % of the FP32 figure, its tf32 run 61 % of the TF32 one (tensor
// cores need larger tiles to stay fed).
constexpr double kSimtEfficiency = 0.86, kTensorCoreEfficiency = 0.61;

const Throughput* throughputOf(const std::string& device_name) {
  for (const Throughput& t : kThroughputs)
    if (device_name.find(t.name_part) != std::string::npos) return &t;
  return nullptr;
}

std::string ordinalEvery(int every) {
  if (every == 1) return "every block";
  if (every == 2) return "every 2nd block";
  if (every == 3) return "every 3rd block";
  return fmt::format("every {}th block", every);
}

struct Built {
  RungProgram rung;
  ProgramPeak peak;
  std::optional<int64_t> low, high;  // the range the recording leaves (blocks on CUDA, bytes on the CPU)
};

Built build(RungProgram rung, const LadderInput& in) {
  Built b{std::move(rung), {}, std::nullopt, std::nullopt};
  if (!b.rung.applicable) return b;
  b.peak = programPeak(b.rung.program, in);
  const auto measure = [&](const ProgramPeak& p) { return in.cuda ? p.block_bytes : p.bytes; };
  const int64_t peak = measure(b.peak);
  const auto rounded = [&](int64_t bytes) { return bytes > 0 ? in.roundedBytes(bytes) : 0; };
  int64_t low = peak - rounded(b.rung.may_be_lower_by), high = peak + rounded(b.rung.may_be_higher_by);
  if (b.rung.upper_program) high = std::max(high, measure(programPeak(*b.rung.upper_program, in)));
  if (low < peak || high > peak) {
    b.low = std::max<int64_t>(0, low);
    b.high = high;
    // The upper program is only a bound: it is not kept with the row.
    b.rung.upper_program.reset();
  }
  return b;
}

LadderRow rowFrom(std::string id, std::string label, RungFamily family, const Built& b) {
  LadderRow row;
  row.id = std::move(id);
  row.label = std::move(label);
  row.family = family;
  row.applicable = b.rung.applicable;
  row.note = b.rung.why_not;
  if (!b.rung.applicable) return row;
  row.peak_allocated = b.peak.bytes;
  row.peak_allocated_blocks = b.peak.block_bytes;
  row.at_peak = b.peak.by_kind;
  row.reasoning = b.rung.reasoning;
  row.peak_low = b.low;
  row.peak_high = b.high;
  row.range_why = b.rung.range_why;
  if (b.low && b.high)
    row.reasoning.push_back(fmt::format("the peak the recording leaves open: {} to {} ({})", formatBytes(*b.low),
                                        formatBytes(*b.high), b.rung.range_why));
  return row;
}

// Where in the step a program peaks: the part of the recorded op whose position it reaches (the
// rungs keep the recorded order, adding their own blocks in between).
std::string peakPart(const LadderInput& in, const ProgramPeak& peak, const LadderRow& row) {
  (void)in;
  std::array<int64_t, kBlockRoleCount> k = row.at_peak;
  const int64_t activations = k[static_cast<size_t>(BlockRole::Activation)] + k[static_cast<size_t>(BlockRole::Recomputed)];
  const int64_t grads = k[static_cast<size_t>(BlockRole::Gradient)];
  (void)peak;
  if (k[static_cast<size_t>(BlockRole::Recomputed)] > 0) return "backward (recomputing a block)";
  if (activations > 0 && grads > 0) return "backward";
  if (activations > 0) return "end of forward / start of backward";
  if (grads > 0 && k[static_cast<size_t>(BlockRole::OptimizerState)] > 0) return "backward end / optimizer";
  return "";
}

// A kernel other than a matrix product is bound by memory bandwidth: it writes the tensor it
// allocates and reads inputs of about its size, some two (an elementwise op of two tensors, a
// backward op reading the incoming gradient and a saved input): about three bytes moved for each
// byte allocated.
constexpr double kBytesMovedPerAllocated = 3;

// What a program allocates over its run: bytes and allocations (about one an operator).
struct ProgramTraffic {
  double bytes = 0;
  double allocations = 0;
};
ProgramTraffic trafficOf(const MemoryProgram& program) {
  ProgramTraffic t;
  for (const MemoryProgram::Op& op : program.ops())
    if (op.alloc) {
      t.bytes += static_cast<double>(program.blocks()[op.block].bytes);
      t.allocations += 1;
    }
  return t;
}

double hostFloorMs(const LadderInput& in) {
  size_t ops = 0;
  for (const MicroStep& m : in.micro_steps) ops += m.end - m.forward_begin;
  const size_t passes = std::max<size_t>(1, in.micro_steps.size());
  // About one allocation per operator: the allocations of a pass stand for its operators.
  return static_cast<double>(ops) / static_cast<double>(passes) / 2.0 * kEagerOpOverheadMs;
}

double microStepsPerUnit(const LadderInput& in) {
  if (!in.timing || in.timing->what == "fwd_bwd" || in.optimizer_steps == 0 || in.micro_steps.empty()) return 1;
  return std::max(1.0, std::round(static_cast<double>(in.micro_steps.size()) / static_cast<double>(in.optimizer_steps)));
}

int64_t roundedDown(double v) { return static_cast<int64_t>(std::floor(v)); }

}  // namespace

std::string_view name(RungFamily f) {
  switch (f) {
    case RungFamily::Baseline: return "as recorded";
    case RungFamily::Compile: return "compile";
    case RungFamily::Precision: return "precision";
    case RungFamily::Checkpoint: return "activation checkpointing";
    case RungFamily::Accumulation: return "gradient accumulation";
    case RungFamily::Batch: return "smaller batch";
    case RungFamily::Sharding: return "more devices";
  }
  return "";
}

const LadderRow* LadderReport::row(std::string_view id) const {
  for (const LadderRow& r : rows)
    if (r.id == id) return &r;
  return nullptr;
}

LadderReport predictLadder(const LadderInput& in, const LadderOptions& options) {
  LadderReport rep;
  rep.run = in.run;
  rep.device = in.device;
  rep.device_name = in.device_name;
  rep.cuda = in.cuda;
  rep.batch = in.batch;
  rep.batch_key = in.batch_key;
  rep.blocks_source = in.repeated.found() ? fmt::format("{} blocks: {}", in.repeated.count, in.repeated.source) : in.repeated.source;
  if (options.device_memory > 0) {
    rep.device_memory = options.device_memory;
    rep.device_memory_source = "chosen";
  } else if (in.device_total_bytes > 0) {
    rep.device_memory = in.device_total_bytes;
    rep.device_memory_source = "the recorded device's";
  }
  rep.shard_devices = options.shard_devices > 0 ? options.shard_devices : std::max(2, in.world_size);
  if (in.timing) {
    rep.time_source = in.timing->source;
    rep.parts_source = in.timing->parts_source;
  } else {
    rep.time_source = "no step time recorded (no timing measurement, fewer than three optimizer steps)";
  }

  const Built base = build(identityRung(in), in);
  // Reserved memory carried over from the measured run: what the caching allocator held above
  // its blocks at the peak, as a ratio (the same program's rounding and segment sizes).
  const double reserved_ratio = in.peak_reserved > 0 && in.peak_allocated_blocks > 0
                                    ? static_cast<double>(in.peak_reserved) / static_cast<double>(in.peak_allocated_blocks)
                                    : 0;
  const std::optional<double> T = in.timing ? std::optional<double>(in.timing->median_ms) : std::nullopt;
  const double fwd = in.timing ? in.timing->forward_ms : 0, bwd = in.timing ? in.timing->backward_ms : 0;
  const double opt = in.timing ? in.timing->optimizer_ms : 0;
  const double per_unit = microStepsPerUnit(in);

  auto finish = [&](LadderRow& row, const Built& b) {
    if (!row.applicable || !row.predicted) return;
    if (reserved_ratio > 0)
      row.peak_reserved = static_cast<int64_t>(std::llround(static_cast<double>(row.peak_allocated_blocks) * reserved_ratio));
    row.peak_part = peakPart(in, b.peak, row);
    if (rep.device_memory > 0) {
      const double need = row.peak_reserved ? static_cast<double>(*row.peak_reserved) : static_cast<double>(row.peak_allocated_blocks);
      row.fits = need <= static_cast<double>(rep.device_memory);
      // The largest batch that fits: batch-scaled blocks grow with it (bisection on the scale).
      const double ratio = reserved_ratio > 0 ? reserved_ratio : 1.0;
      auto fitsAt = [&](double s) {
        return static_cast<double>(programPeak(b.rung.program, in, s).block_bytes) * ratio <= static_cast<double>(rep.device_memory);
      };
      if (fitsAt(1.0 / 1024)) {
        double lo = 1.0 / 1024, hi = 1;
        while (fitsAt(hi) && hi < 1 << 20) lo = hi, hi *= 2;
        if (!fitsAt(hi)) {
          for (int i = 0; i < 40; ++i) {
            const double mid = (lo + hi) / 2;
            (fitsAt(mid) ? lo : hi) = mid;
          }
        } else {
          lo = hi;
        }
        row.max_batch_scale = lo;
        if (in.batch) row.max_batch = roundedDown(lo * static_cast<double>(*in.batch) + 1e-9);
      } else {
        row.max_batch_scale = 0;
        if (in.batch) row.max_batch = 0;
      }
    }
  };

  {
    LadderRow row = rowFrom("baseline", "as recorded", RungFamily::Baseline, base);
    row.step_ms = T;
    row.time_basis = T ? "measured" : rep.time_source;
    finish(row, base);
    rep.rows.push_back(std::move(row));
  }
  {
    LadderRow row;
    row.id = "compile";
    row.label = "torch.compile";
    row.family = RungFamily::Compile;
    row.predicted = false;
    row.note =
        "measured only: what compile fuses (and so which temporaries and launches vanish) is not in a recording; record "
        "it with sawtooth-record --rung compile";
    rep.rows.push_back(std::move(row));
  }
  const ProgramTraffic base_traffic = trafficOf(base.rung.program);
  for (LowPrecision dtype : {LowPrecision::BFloat16, LowPrecision::Float16}) {
    const bool bf16 = dtype == LowPrecision::BFloat16;
    const Built b = build(autocastRung(in, dtype), in);
    LadderRow row = rowFrom(bf16 ? "bf16" : "fp16", bf16 ? "bf16 autocast" : "fp16 autocast + loss scaling",
                            RungFamily::Precision, b);
    if (row.applicable && T) {
      const Throughput* tp = in.cuda ? throughputOf(in.device_name) : nullptr;
      const bool tf32 = in.matmul_precision == "high" || in.matmul_precision == "medium";
      if (tp) {
        const double base_rate = tf32 ? tp->tf32 * kTensorCoreEfficiency : tp->fp32 * kSimtEfficiency;
        const double r = base_rate / (tp->bf16 * kTensorCoreEfficiency);
        const double per_ms = tp->hbm * 1e9 * kCopyEfficiency;  // bytes a millisecond
        bool casts_in_bytes = false;
        const ProgramTraffic now_traffic = trafficOf(b.rung.program);
        const bool kernels_timed = in.kernels && in.kernels->busy_ms_per_step > 0;
        if (kernels_timed) {
          // The other kernels move what the step allocates: under autocast the rewrite's bytes
          // (2-byte activations, what stays fp32, autocast's casts and copies), except the foreach
          // kernels over parameters, gradients and optimizer state, which stay fp32.
          const double mm = in.kernels->matmul_ms_per_step;
          const double other = std::max(0.0, in.kernels->busy_ms_per_step - mm);
          const double foreach = std::min(other, in.kernels->foreach_ms_per_step);
          const double scale = base_traffic.bytes > 0 ? now_traffic.bytes / base_traffic.bytes : 0.5;
          const double other_now = (other - foreach) * scale + foreach;
          casts_in_bytes = base_traffic.bytes > 0;
          row.step_ms = std::max(0.0, *T - mm * (1 - r) - (other - other_now));
          row.time_basis = fmt::format(
              "the recorded GEMM kernels ({:.3g} ms a step) sped up by the {} datasheet ratio {} → {} at the efficiency such "
              "products reach ({:.3g}×); the other kernels ({:.3g} ms) moving the bytes the step allocates under autocast "
              "({:.0f} % of the recorded: 2-byte activations, what stays fp32, autocast's casts and copies), those over "
              "the parameters, gradients and optimizer state (foreach kernels, {:.3g} ms) as recorded: {:.3g} ms; the "
              "rest of the step unchanged",
              mm, in.device_name, tf32 ? "TF32" : "FP32", bf16 ? "BF16" : "FP16", 1 / r, other, 100 * scale, foreach,
              other_now);
        } else {
          // No kernel records: forward and backward split into the bandwidth-bound kernels, timed
          // from the bytes the step allocates (the recorded ones, and the rung's), and matrix
          // products, the rest; then the host's own launch time as the floor: eager PyTorch cannot
          // finish a step faster than it launches it, and autocast adds an op a cast.
          casts_in_bytes = true;
          const double units = std::max(1.0, static_cast<double>(in.micro_steps.size()) / per_unit);
          const ProgramTraffic& was = base_traffic;
          const ProgramTraffic& now = now_traffic;
          const double moved_was = kBytesMovedPerAllocated * was.bytes / units / per_ms;
          const double moved_now = kBytesMovedPerAllocated * now.bytes / units / per_ms;
          const double gemm = std::max(0.0, fwd + bwd - moved_was);
          const double gpu = *T - (fwd + bwd) + gemm * r + moved_now;
          const double extra_ops = std::max(0.0, (now.allocations - was.allocations) / units);
          const double host = in.timing->host_ms > 0 ? in.timing->host_ms + extra_ops * kEagerOpOverheadMs : 0;
          row.step_ms = std::max(gpu, host);
          row.time_basis = fmt::format(
              "no kernel records (--kernels on would time them): forward and backward ({:.3g} ms) split into "
              "bandwidth-bound kernels, {} bytes moved for each byte allocated ({} a step, {:.3g} ms at {:.0f} % of "
              "{} TB/s), and matrix products, the rest ({:.3g} ms); under autocast the products sped up by the {} "
              "datasheet ratio {} → {} at the efficiency such products reach ({:.3g}×) and the step's allocations "
              "({} a step, autocast's casts and fp32 copies included) moved as before ({:.3g} ms): {:.3g} ms on the GPU",
              fwd + bwd, kBytesMovedPerAllocated, formatBytes(static_cast<int64_t>(was.bytes / units)), moved_was,
              100 * kCopyEfficiency, tp->hbm, gemm, in.device_name, tf32 ? "TF32" : "FP32", bf16 ? "BF16" : "FP16", 1 / r,
              formatBytes(static_cast<int64_t>(now.bytes / units)), moved_now, gpu);
          if (host > 0)
            row.time_basis += fmt::format(
                "; the host launches the step in {:.3g} ms (its forward, backward and optimizer phases, medians) "
                "plus {:.0f} more operators autocast adds at {:.0f} µs each: {:.3g} ms, {}",
                in.timing->host_ms, extra_ops, kEagerOpOverheadMs * 1000, host,
                host > gpu ? "the step's time (the host, not the GPU, bounds it)" : "under the GPU's");
          else
            row.time_basis += "; the host's own launch time is not in the recording (no phases), so not a floor here";
        }
        // What autocast adds: its casts, and fp16's loss scaler, are copies bound by memory bandwidth,
        // of bytes the rewrite knows. The 2-byte GEMMs leave them exposed.
        const double cast_ms = casts_in_bytes ? 0 : static_cast<double>(b.rung.cast_traffic) * per_unit / per_ms;
        const double scaler_ms = bf16 ? 0 : 2 * static_cast<double>(b.rung.gradient_bytes) / per_ms;
        *row.step_ms += cast_ms + scaler_ms;
        if (!casts_in_bytes)
          row.time_basis += fmt::format(
            "; plus autocast's casts ({} a step read and written: each weight's 2-byte copy, its gradient cast back, "
            "the input's copy) at {:.0f} % of the {} TB/s of memory bandwidth: {:.3g} ms",
            formatBytes(static_cast<int64_t>(static_cast<double>(b.rung.cast_traffic) * per_unit)), 100 * kCopyEfficiency,
            tp->hbm, cast_ms);
        if (!bf16)
          row.time_basis += fmt::format(
              "; plus the loss scaler's unscale and inf check, which reads and writes every gradient ({}) once a "
              "step: {:.3g} ms. Not predicted: GradScaler.step reads the inf flag on the host, a synchronisation "
              "each step that lets the GPU wait for the next step's first launches",
              formatBytes(b.rung.gradient_bytes), scaler_ms);
        row.time_basis +=
            ". Uncertain: how fast the 2-byte GEMMs run (the datasheet ratio at one efficiency for TF32 and BF16/FP16 "
            "tensor cores; a product with a dimension no 2-byte tensor-core kernel is aligned to, such as GPT-2's "
            "50257-token vocabulary, runs far slower: on an H100 its three lm_head products took 7.9 ms in bf16 against "
            "3.3 ms for the other 144) and how near the casts come to the bandwidth (a step of many small weights, slower)";
        if (!kernels_timed)
          row.time_basis +=
              "; without kernel records also how many bytes each allocated one moves (an op of many small tensors "
              "stays further from the bandwidth)";
        row.time_basis +=
            "; and how much longer autocast makes the host's launching (its dispatch of each op, the casts' own "
            "backward steps): a step the GPU finishes faster can become one the host bounds (GPT-2 small on an H100: "
            "the host's phases 22.6 ms in fp32, 30.6 ms in bf16), which a GPU-bound recording's phases cannot tell, as "
            "a full launch queue makes its host wait";
      } else {
        row.time_basis = in.cuda ? (in.device_name.empty()
                                        ? std::string("not predicted: the recording does not name its GPU (recordings of "
                                                      "programs made before 2026-12-05 lack it; record again)")
                                        : "not predicted: no throughput table for " + in.device_name)
                                 : "not predicted on the CPU: bf16 speed depends on the CPU's bf16 support (AMX, AVX-512 "
                                   "BF16), not on the bytes";
      }
    }
    finish(row, b);
    rep.rows.push_back(std::move(row));
  }
  for (CheckpointForm form : {CheckpointForm::NonReentrant, CheckpointForm::Reentrant})
    for (int every : options.checkpoint_every) {
      const bool re = form == CheckpointForm::Reentrant;
      const Built b = build(checkpointRung(in, every, form), in);
      LadderRow row = rowFrom(fmt::format("checkpoint:every={}{}", every, re ? ":reentrant" : ""),
                              fmt::format("checkpoint {} ({})", ordinalEvery(every), re ? "reentrant" : "non-reentrant"),
                              RungFamily::Checkpoint, b);
      if (row.applicable && T) {
        row.step_ms = *T + fwd * b.rung.recompute_fraction;
        row.time_basis = fmt::format("+ {:.0f} % of the forward ({:.3g} ms{}) recomputed, the share by {}",
                                     100 * b.rung.recompute_fraction, fwd,
                                     in.timing->parts_measured ? ", measured" : ", assumed a third of forward + backward",
                                     b.rung.recompute_source);
      }
      finish(row, b);
      rep.rows.push_back(std::move(row));
    }
  const double host = hostFloorMs(in);
  for (int k : options.accumulation) {
    const Built b = build(batchRung(in, k, true), in);
    LadderRow row = rowFrom(fmt::format("accumulate:k={}", k), fmt::format("accumulate over {} micro-batches", k),
                            RungFamily::Accumulation, b);
    if (row.applicable && T) {
      const double pass = (fwd + bwd) / per_unit;
      row.step_ms = *T - per_unit * pass + per_unit * k * std::max(host, pass / k);
      row.time_basis = fmt::format(
          "the same work in {} passes of 1/{} the batch; a pass never costs less than its operators' host overhead "
          "({:.2g} ms: {:.0f} µs an operator)",
          k, k, host, kEagerOpOverheadMs * 1000);
    }
    finish(row, b);
    rep.rows.push_back(std::move(row));
  }
  for (int k : options.smaller_batch) {
    const Built b = build(batchRung(in, k, false), in);
    LadderRow row = rowFrom(fmt::format("batch:1/{}", k),
                            in.batch ? fmt::format("batch {} (1/{})", *in.batch / k, k) : fmt::format("1/{} of the batch", k),
                            RungFamily::Batch, b);
    if (row.applicable && T) {
      const double pass = (fwd + bwd) / per_unit;
      row.step_ms = *T - per_unit * pass + per_unit * std::max(host, pass / k);
      row.time_basis = fmt::format("forward and backward at 1/{} of the batch, not below the host overhead ({:.2g} ms)", k, host);
    }
    finish(row, b);
    rep.rows.push_back(std::move(row));
  }
  const int n = rep.shard_devices;
  const int64_t gradients = gradientBytesOfABackward(in);
  std::optional<Interconnect> link = interconnectOf(in.device_name, n);
  if (options.link_gb_per_s > 0)
    link = Interconnect{"the link asked for", options.link_gb_per_s, "as asked"};
  for (Sharding kind : {Sharding::Zero1, Sharding::Zero2, Sharding::Full}) {
    const char* id = kind == Sharding::Zero1 ? "zero1" : kind == Sharding::Zero2 ? "zero2" : "fsdp";
    const char* label = kind == Sharding::Zero1   ? "ZeRO-1: optimizer state sharded"
                        : kind == Sharding::Zero2 ? "ZeRO-2: + gradients sharded"
                                                  : "full sharding (FSDP): + parameters sharded";
    const Built b = build(shardingRung(in, kind, n), in);
    LadderRow row = rowFrom(fmt::format("{}:N={}", id, n), fmt::format("{} over {} devices", label, n), RungFamily::Sharding, b);
    if (row.applicable && T) {
      const double compute = *T - opt * (1 - 1.0 / n);
      if (in.world_size > 1 && in.timing && in.timing->collective_ms > 0) {
        // A recorded data-parallel run already pays its all-reduce, and a ring all-reduce is a
        // reduce-scatter and an all-gather: ZeRO-1 and 2 reduce-scatter the gradients and gather the
        // updated parameters, the same bytes, so their collectives cost what the recorded ones do
        // (the ZeRO paper's 2Ψ against DDP's 2Ψ). Full sharding gathers the parameters again for
        // backward: 3Ψ, half the recorded collectives' time more. Measured on two H200s, the
        // workload's ZeRO-1 step was no slower than DDP's (2.12 against 2.13 ms); the rule before,
        // half an all-reduce added, was 11-15 % high.
        const double comm = in.timing->collective_ms;
        row.step_ms = compute + (kind == Sharding::Full ? 0.5 : 0.0) * comm;
        row.time_basis = fmt::format(
            "the optimizer's time ({:.3g} ms) divided by {}; the collectives ({:.3g} ms recorded) move {}: {}",
            opt, n, comm, kind == Sharding::Full ? "half as much again (3Ψ against the all-reduce's 2Ψ)" : "as many bytes as the all-reduce (2Ψ)",
            kind == Sharding::Full
                ? "the parameters are gathered for forward and again for backward, and the gradients reduce-scattered; "
                  "their time is the recorded collectives' × 1.5"
                : "the gradients are reduce-scattered and the updated parameters gathered, an all-reduce's two halves, "
                  "so the step keeps the recorded collectives' time. Uncertain: an implementation that keeps the "
                  "all-reduce and broadcasts the parameters besides (torch's ZeroRedundancyOptimizer) moves 3Ψ, "
                  "which costs time only where the collectives are not hidden behind computation");
      } else if (in.world_size == 1 && link && gradients > 0) {
        // One device recorded: the collectives are not in it, so their time is the bytes they move
        // over the link: ZeRO-1 and 2 reduce-scatter the gradients and gather the updated
        // parameters, an all-reduce's two halves (2Ψ); full sharding gathers the parameters again for
        // backward (3Ψ). Taken as not hidden behind computation: the step's upper end.
        const double allreduce = ringAllReduceMs(static_cast<double>(gradients), n, link->bus_gb_per_s);
        const double comm = (kind == Sharding::Full ? 1.5 : 1.0) * allreduce;
        row.step_ms = compute + comm;
        row.time_basis = fmt::format(
            "compute per device {:.3g} ms (the optimizer's {:.3g} ms divided by {}), plus the collectives: {} over {} "
            "(Ψ: {} of gradients; {:.0f} GB/s of a ring all-reduce's bus bandwidth, {}), {:.3g} ms{}, taken as not "
            "hidden behind computation. Uncertain: gradients reduced in buckets during backward (DDP, FSDP) hide up "
            "to the backward's {:.3g} ms of it, leaving about the last bucket's; the link's figure {}",
            compute, opt, n, kind == Sharding::Full ? "3Ψ" : "2Ψ", link->link, formatBytes(gradients), link->bus_gb_per_s,
            link->basis, comm,
            kind == Sharding::Full ? " (an all-reduce's time × 1.5: the parameters gathered for forward and again for backward)" : "",
            bwd, options.link_gb_per_s > 0 ? "is the one asked for" : "is read from the device's name (--link-bandwidth sets it)");
      } else if (in.world_size > 1) {
        // Its step already holds its collectives, but not where: adding the link's time would count
        // them twice.
        row.time_basis = fmt::format(
            "compute per device {:.3g} ms (the optimizer's {:.3g} ms divided by {}); the collectives' time is not "
            "predicted: this data-parallel recording does not say how long its collectives took",
            compute, opt, n);
      } else {
        row.time_basis = fmt::format(
            "compute per device {:.3g} ms (the optimizer's {:.3g} ms divided by {}); the collectives' time is not "
            "predicted: a one-device recording has none, and no link is known for {} (--link-bandwidth sets one)",
            compute, opt, n, in.device_name.empty() ? std::string("this device") : in.device_name);
      }
    }
    finish(row, b);
    rep.rows.push_back(std::move(row));
  }

  // The diagnosis: where to start, in the seed's words.
  LadderDiagnosis& d = rep.diagnosis;
  const LadderRow& b0 = rep.rows.front();
  const int64_t held = b0.peak_reserved.value_or(b0.peak_allocated_blocks);
  bool tight = false;
  if (rep.device_memory > 0) {
    const double use = static_cast<double>(held) / static_cast<double>(rep.device_memory);
    d.evidence.push_back(fmt::format("the peak holds {} of {} ({:.0f} %)", formatBytes(held), formatBytes(rep.device_memory), 100 * use));
    tight = use >= 0.85;
  }
  std::string speed;
  if (in.kernels && T && *T > 0) {
    const double util = std::min(1.0, in.kernels->busy_ms_per_step / *T);
    const double mm = in.kernels->busy_ms_per_step > 0 ? in.kernels->matmul_ms_per_step / in.kernels->busy_ms_per_step : 0;
    d.evidence.push_back(fmt::format("the GPU is busy {:.0f} % of a step ({} kernels a step); matrix products are {:.0f} % "
                                     "of its kernel time",
                                     100 * util, in.kernels->kernels_per_step, 100 * mm));
    if (util < 0.6) speed = "overhead-bound";
    else if (mm >= 0.5) speed = "compute-bound";
    else speed = "bandwidth-bound";
  } else {
    d.evidence.push_back(in.cuda ? "no kernel records (record with --kernels on to see the GPU's utilisation)"
                                 : "a CPU recording: no GPU utilisation to judge speed by");
  }
  const bool already_low = !in.autocast.empty();
  if (tight) {
    d.verdict = "memory-tight";
    d.start_with = already_low ? "doesn't fit → checkpoint (large memory cut, modest time)"
                               : "tight → bf16 (half the bytes), and if it still doesn't fit → checkpoint";
  } else if (speed == "overhead-bound" || speed == "bandwidth-bound") {
    d.verdict = "bandwidth/overhead-bound";
    d.start_with = "slow (bandwidth/overhead) → compile (usually free)";
  } else if (speed == "compute-bound") {
    d.verdict = "compute-bound";
    d.start_with = already_low ? "still too slow → more devices" : "slow (compute) → bf16 (~1.5–2×, half the bytes)";
  } else {
    d.verdict = rep.device_memory > 0 ? "fits with room; speed not judged" : "not judged";
    d.start_with = "want a bigger batch → accumulate (≈ same wall-clock); see the rows for what each rung buys";
  }
  return rep;
}

void attachMeasured(LadderReport& report, const std::vector<MeasuredRung>& measured) {
  for (const MeasuredRung& m : measured)
    for (LadderRow& row : report.rows) {
      if (row.id != m.row || row.measured) continue;
      row.measured = m;
      if (row.applicable && row.predicted) {
        const int64_t p = report.cuda ? row.peak_allocated_blocks : row.peak_allocated;
        const int64_t q = report.cuda ? m.peak_allocated_blocks : m.peak_allocated;
        if (q > 0) row.peak_error = static_cast<double>(p) / static_cast<double>(q) - 1;
        if (row.peak_low && row.peak_high) row.measured_in_range = q >= *row.peak_low && q <= *row.peak_high;
        if (row.step_ms && m.step_ms && *m.step_ms > 0) row.time_error = *row.step_ms / *m.step_ms - 1;
      }
      break;
    }
}

}  // namespace sawtooth
