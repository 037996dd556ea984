#include "core/analysis/ladder_input.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/analysis/experiment_results.h"
#include "core/analysis/ladder_blocks.h"
#include "core/analysis/python_line.h"
#include "core/util/keyed_hash.h"

namespace sawtooth {
namespace {

std::optional<int64_t> parseInt(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// Runs that check something rather than train (the accumulation workload's exact_check).
bool isCheckRun(const Run& run) { return run.name == "exact_check"; }

bool isDistributedRank(const Run& run) {
  const auto world = run.configValue("world_size");
  return run.configValue("rank").has_value() && world && parseInt(*world).value_or(1) > 1;
}

struct Window {
  uint16_t run = kNoRun;
  bool own_events_only = false;  // a rank of a merged distributed trace: other ranks share the device id
};

bool inRun(const EventStore& ev, size_t i, const Window& w) { return w.run == kNoRun || ev.run()[i] == w.run; }
bool counts(const EventStore& ev, size_t i, const Window& w) {
  return ev.source()[i] == Source::Allocator && (!w.own_events_only || ev.run()[i] == w.run);
}

// The device whose allocated bytes rise highest during the run (from zero at its first event).
std::optional<DeviceId> busiestDevice(const Trace& trace, const Window& w) {
  std::map<DeviceId, std::pair<int64_t, int64_t>> level;  // device -> (now, peak)
  const EventStore& ev = trace.events;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (!inRun(ev, i, w) || !counts(ev, i, w)) continue;
    const int sign = allocatedSign(ev.action()[i]);
    if (sign == 0) continue;
    auto& [now, peak] = level[ev.device()[i]];
    now += sign * ev.sizes()[i];
    peak = std::max(peak, now);
  }
  std::optional<DeviceId> best;
  int64_t best_peak = -1;
  for (const auto& [device, l] : level)
    if (l.second > best_peak) best = device, best_peak = l.second;
  return best;
}

StepPart partOf(const Trace& trace, uint32_t phase) {
  if (phase == kNoPhase || phase >= trace.phases.size()) return StepPart::Other;
  return stepPartOf(trace.phases[phase].name);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool isMatmulKernel(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // nvjet: cuBLAS's own GEMM kernels on Hopper (nvjet_sm90_...), which name no GEMM otherwise.
  for (const char* word : {"gemm", "cutlass", "xmma", "cublas", "matmul", "wgmma", "nvjet"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

// A recorded program's batch, from its command line (the shim records it as `process_argv`, a JSON
// list): the value of the first option of these names, "--batch 8" or "--batch=8". The names a
// training script's batch option mostly has (argparse, transformers' TrainingArguments); a script
// whose batch is not an option has none.
std::optional<std::pair<int64_t, std::string>> batchFromArgv(const std::string& argv_json) {
  const auto argv = nlohmann::json::parse(argv_json, nullptr, false);
  if (!argv.is_array()) return std::nullopt;
  static constexpr std::string_view kNames[] = {"--batch", "--batch-size", "--batch_size", "--micro-batch-size",
                                                "--micro_batch_size", "--per_device_train_batch_size",
                                                "--per-device-train-batch-size"};
  for (size_t i = 0; i < argv.size(); ++i) {
    if (!argv[i].is_string()) continue;
    const std::string& arg = argv[i].get_ref<const std::string&>();
    for (std::string_view name : kNames) {
      std::optional<std::string> value;
      if (arg == name && i + 1 < argv.size() && argv[i + 1].is_string()) value = argv[i + 1].get<std::string>();
      else if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=') value = arg.substr(name.size() + 1);
      if (!value) continue;
      if (auto n = parseInt(*value); n && *n > 0) return std::pair{*n, std::string(name)};
      return std::nullopt;  // the option is there, its value is not a count
    }
  }
  return std::nullopt;
}

void fillConfig(LadderInput& in, const Run* run) {
  if (!run) return;
  in.workload = run->workload;
  in.config = run->config;
  for (const char* key : {"micro_batch", "batch", "rows", "global_batch"})
    if (auto v = run->configValue(key))
      if (auto n = parseInt(*v); n && *n > 0) {
        in.batch = *n;
        in.batch_key = key;
        break;
      }
  if (!in.batch)
    if (auto argv = run->configValue("process_argv"))
      if (auto found = batchFromArgv(*argv)) {
        in.batch = found->first;
        in.batch_key = found->second;  // "--batch": an option of the program, not a configuration key
      }
  if (auto v = run->configValue("world_size")) in.world_size = static_cast<int>(std::max<int64_t>(1, parseInt(*v).value_or(1)));
  if (auto v = run->configValue("rank")) in.rank = static_cast<int>(parseInt(*v).value_or(0));
  if (auto v = run->configValue("autocast"); v && *v != "off") in.autocast = *v;
  if (auto v = run->configValue("float32_matmul_precision")) in.matmul_precision = *v;
  if (auto v = run->configValue("checkpoint_every"); v && *v != "never") in.already_checkpointed = true;
}

// The optimizer's steps of a run on a device, in order: its optimizer phases, one that runs inside
// another counted as that one (ZeroRedundancyOptimizer's step runs its local optimizer's step
// within its own: the shim marks both).
std::vector<const Phase*> optimizerSteps(const Trace& trace, uint16_t run_index, DeviceId device) {
  std::vector<const Phase*> out;
  for (const Phase& p : trace.phases) {
    if (p.kind != PhaseKind::Phase || stepPartOf(p.name) != StepPart::Optimizer) continue;
    if ((run_index != kNoRun && p.run != run_index) || (p.device != kAllDevices && p.device != device)) continue;
    if (!out.empty() && p.begin_ns >= out.back()->begin_ns && p.end_ns <= out.back()->end_ns) continue;
    out.push_back(&p);
  }
  return out;
}

// The step's timing: the run's own measurement when it has one, else the intervals between its
// optimizer steps; and the parts of a step from the phases.
void fillTiming(LadderInput& in, const Trace& trace, const Run* run) {
  LadderTiming t;
  if (run)
    if (auto timing = runTiming(*run)) {
      t.what = timing->name;
      t.median_ms = timing->median_ms;
      t.min_ms = timing->min_ms;
      t.max_ms = timing->max_ms;
      t.samples = timing->samples;
      t.source = fmt::format("the run's {} measurement (median of {})", timing->name, timing->samples);
    }
  std::vector<double> fwd, bwd, opt, step_ends;
  for (const Phase* p : optimizerSteps(trace, in.run_index, in.device)) {
    opt.push_back(static_cast<double>(p->end_ns - p->begin_ns) / 1e6);
    step_ends.push_back(static_cast<double>(p->end_ns) / 1e6);
  }
  double collective_total = 0;
  for (const Phase& p : trace.phases) {
    if (p.kind != PhaseKind::Phase || (in.run_index != kNoRun && p.run != in.run_index)) continue;
    if (p.device != kAllDevices && p.device != in.device) continue;
    const double ms = static_cast<double>(p.end_ns - p.begin_ns) / 1e6;
    switch (stepPartOf(p.name)) {
      case StepPart::Forward: fwd.push_back(ms); break;
      case StepPart::Backward: bwd.push_back(ms); break;
      case StepPart::Optimizer: break;
      default:
        if (p.name == "allreduce" || p.name == "all_reduce" || p.name == "broadcast" || p.name == "reduce_scatter" ||
            p.name == "all_gather")
          collective_total += ms;
        break;
    }
  }
  if (t.what.empty() && step_ends.size() >= 3) {
    std::vector<double> intervals;
    for (size_t i = 1; i < step_ends.size(); ++i) intervals.push_back(step_ends[i] - step_ends[i - 1]);
    std::sort(intervals.begin(), intervals.end());
    // The first step allocates the optimizer's state and warms caches: it is left out.
    std::vector<double> steady(intervals.size() > 2 ? intervals.begin() + 1 : intervals.begin(), intervals.end());
    t.what = "step";
    t.median_ms = median(steady);
    t.min_ms = steady.front();
    t.max_ms = steady.back();
    t.samples = steady.size();
    t.source = fmt::format("the intervals between the run's optimizer steps (median of {})", steady.size());
  }
  if (t.what.empty()) return;
  // Micro-steps in one timed unit: a training step holds micro_steps / optimizer_steps of them;
  // a fwd_bwd measurement times one.
  double micro_per_unit = 1;
  if (t.what != "fwd_bwd" && in.optimizer_steps > 0 && !in.micro_steps.empty())
    micro_per_unit = std::max(1.0, std::round(static_cast<double>(in.micro_steps.size()) / static_cast<double>(in.optimizer_steps)));
  const bool has_opt = t.what != "fwd_bwd" && !opt.empty();
  if (!in.cuda && !fwd.empty() && !bwd.empty()) {
    t.forward_ms = median(fwd) * micro_per_unit;
    t.backward_ms = median(bwd) * micro_per_unit;
    t.optimizer_ms = has_opt ? median(opt) : 0;
    t.parts_measured = true;
    t.parts_source = "the recorded phases' durations (medians)";
  } else {
    // On a GPU the phases time the host launching kernels, not the kernels. The optimizer's own
    // phase stands for its time (foreach optimizers launch few, bandwidth-bound kernels and the
    // host keeps pace); the rest of the step is forward and backward, backward taken as twice
    // forward (two matrix products for each one of forward).
    t.optimizer_ms = has_opt ? std::min(median(opt), 0.25 * t.median_ms) : 0;
    if (in.cuda && !fwd.empty() && !bwd.empty())
      t.host_ms = (median(fwd) + median(bwd)) * micro_per_unit + (has_opt ? median(opt) : 0);
    const double fb = std::max(0.0, t.median_ms - t.optimizer_ms);
    t.forward_ms = fb / 3;
    t.backward_ms = 2 * fb / 3;
    t.parts_source = in.cuda ? "assumed: the host's phases do not time the GPU; backward = 2 × forward"
                             : "assumed: backward = 2 × forward (no phases recorded)";
  }
  // Medians of separate phases can add up to more than the median step: they are shares of it.
  if (const double sum = t.forward_ms + t.backward_ms + t.optimizer_ms; sum > t.median_ms && sum > 0) {
    const double f = t.median_ms / sum;
    t.forward_ms *= f, t.backward_ms *= f, t.optimizer_ms *= f;
  }
  t.other_ms = std::max(0.0, t.median_ms - t.forward_ms - t.backward_ms - t.optimizer_ms);
  if (!opt.empty()) t.collective_ms = collective_total / static_cast<double>(opt.size());
  in.timing = t;
}

void fillKernels(LadderInput& in, const Trace& trace) {
  // A kernel's run is the one whose time it starts in (its recorded run tag follows the host, which
  // runs ahead): from the run's first phase to the next run's.
  int64_t begin = INT64_MIN, end = INT64_MAX;
  if (in.run_index != kNoRun) {
    std::map<uint16_t, int64_t> first;
    for (const Phase& p : trace.phases)
      if (p.run != kNoRun && (!first.count(p.run) || p.begin_ns < first[p.run])) first[p.run] = p.begin_ns;
    auto it = first.find(in.run_index);
    if (it == first.end()) return;
    begin = it->second;
    for (const auto& [run, t] : first)
      if (t > begin) end = std::min(end, t);
  }
  std::vector<std::pair<int64_t, int64_t>> intervals;
  int64_t matmul_ns = 0, foreach_ns = 0;
  size_t count = 0;
  for (const KernelInterval& k : trace.kernels) {
    if (k.device != in.device || k.begin_ns < begin || k.begin_ns >= end || k.end_ns < k.begin_ns) continue;
    intervals.emplace_back(k.begin_ns, k.end_ns);
    if (k.name < trace.kernel_names.size()) {
      const std::string& name = trace.kernel_names[k.name];
      if (isMatmulKernel(name))
        matmul_ns += k.end_ns - k.begin_ns;
      else if (name.find("multi_tensor_apply") != std::string::npos)
        foreach_ns += k.end_ns - k.begin_ns;
    }
    ++count;
  }
  if (intervals.empty()) return;
  std::sort(intervals.begin(), intervals.end());
  int64_t busy = 0, cur_b = intervals.front().first, cur_e = intervals.front().second;
  for (const auto& [b, e] : intervals) {
    if (b > cur_e) {
      busy += cur_e - cur_b;
      cur_b = b;
      cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  busy += cur_e - cur_b;
  const double steps = static_cast<double>(std::max<size_t>(1, in.optimizer_steps > 0 ? in.optimizer_steps : in.micro_steps.size()));
  KernelTime kt;
  kt.busy_ms_per_step = static_cast<double>(busy) / 1e6 / steps;
  kt.matmul_ms_per_step = static_cast<double>(matmul_ns) / 1e6 / steps;
  kt.foreach_ms_per_step = static_cast<double>(foreach_ns) / 1e6 / steps;
  kt.window_ms_per_step = static_cast<double>(cur_e - intervals.front().first) / 1e6 / steps;
  kt.kernels_per_step = static_cast<size_t>(static_cast<double>(count) / steps);
  in.kernels = kt;
}

// What follows the last site-packages/ (or dist-packages/) of a path: the file within its package
// ("torch/nn/functional.py"); the whole path where there is none.
std::string_view withinPackages(std::string_view file) {
  for (const std::string_view packages : {std::string_view("packages/"), std::string_view("packages\\")})
    if (const size_t at = file.rfind(packages); at != std::string_view::npos) file = file.substr(at + packages.size());
  return file;
}

// A file of the installed torch package: /opt/torch/.venv/.../site-packages/transformers/x.py is not.
bool isTorchFile(std::string_view file) {
  const std::string_view rest = withinPackages(file);
  return rest.size() != file.size() && (rest.starts_with("torch/") || rest.starts_with("torch\\"));
}

// The op that made a block, for autocast: the innermost torch.nn.functional frame of its stack.
class AutocastOps {
 public:
  AutocastOps(const StackTable& stacks, const SourceLineReader& source, LadderInput& in)
      : stacks_(stacks), source_(source), in_(in) {}
  struct Facts {
    AutocastOp op = AutocastOp::Unknown;
    bool by_source = false;
    // By source: the line (an id, 1 up) and how many of the blocks one run of it makes come before
    // its float32-list op and keep their input's dtype (-1: the line is taken whole).
    uint32_t line = 0;
    int before_float32 = -1;
    bool saves_input = false;  // the float32-list op keeps its input for backward
    bool cached = false;
    uint32_t code = 0;
    uint16_t depth = 0;
  };
  Facts of(uint32_t stack) {
    if (stack == kNoStack) return {};
    if (auto it = known_.find(stack); it != known_.end()) return it->second;
    Facts facts;
    const auto frames = stacks_.stack(stack);
    facts.depth = static_cast<uint16_t>(std::min<size_t>(frames.size(), UINT16_MAX));
    if (!frames.empty()) {
      const FrameView inner = stacks_.frame(frames.front());
      std::string key(inner.file);
      key.append(1, '\n').append(inner.name);
      facts.code = codes_.try_emplace(std::move(key), static_cast<uint32_t>(codes_.size() + 1)).first->second;
    }
    bool op_found = false;
    for (uint32_t f : frames) {
      const FrameView frame = stacks_.frame(f);
      if (!op_found &&
          (frame.file.ends_with("torch/nn/functional.py") || frame.file.ends_with("torch\\nn\\functional.py"))) {
        facts.op = autocastOpOfFunctional(frame.name);
        facts.saves_input = facts.op == AutocastOp::Float32 && float32OpSavesItsInput(frame.name);
        op_found = true;
      } else if (!op_found && (frame.file.ends_with("torch/nn/modules/linear.py") ||
                               frame.file.ends_with("torch/nn/modules/conv.py") ||
                               frame.file.ends_with("torch\\nn\\modules\\linear.py") ||
                               frame.file.ends_with("torch\\nn\\modules\\conv.py"))) {
        facts.op = AutocastOp::LowPrecision;
        op_found = true;
      }
      facts.cached |= isCacheFile(frame.file);
    }
    if (!op_found && !frames.empty()) bySource(stacks_.frame(frames.front()), facts);
    return known_[stack] = facts;
  }

 private:
  // The innermost frame is the program's line that called the op (a C++ op has no frame of its own),
  // unless it is PyTorch's: torch/_tensor.py's reflected operators (1 / x, 2 ** x) are on the list.
  void bySource(const FrameView& inner, Facts& facts) {
    if (isTorchFile(inner.file)) {
      if (inner.file.ends_with("_tensor.py") &&
          (inner.name == "__rpow__" || inner.name == "__rdiv__" || inner.name == "__rtruediv__"))
        facts.op = AutocastOp::Float32;
      return;
    }
    if (!source_ || inner.line <= 0) return;
    std::string key(inner.file);
    key.append(1, ':').append(std::to_string(inner.line));
    auto [it, fresh] = lines_.try_emplace(std::move(key), Line{});
    if (fresh) {
      it->second.id = static_cast<uint32_t>(lines_.size());
      const auto text = source_(inner.file, static_cast<uint32_t>(inner.line));
      if (!text) {
        ++in_.source_lines_unread;
      } else if ((it->second.op = autocastOpOfSourceLine(*text)) == AutocastOp::Float32) {
        it->second.before_float32 = blocksBeforeFloat32Op(*text).value_or(-1);
        const auto first = firstFloat32Op(*text);
        it->second.saves_input = first && float32OpSavesItsInput(*first);
        const size_t slash = inner.file.find_last_of("/\\");
        in_.fp32_source_lines.push_back(
            fmt::format("{}:{}", slash == std::string_view::npos ? inner.file : inner.file.substr(slash + 1), inner.line));
      }
    }
    if (it->second.op == AutocastOp::LowPrecision) facts.op = AutocastOp::LowPrecision;
    if (it->second.op == AutocastOp::Float32) {
      facts.op = AutocastOp::Float32;
      facts.by_source = true;
      facts.line = it->second.id;
      facts.before_float32 = it->second.before_float32;
      facts.saves_input = it->second.saves_input;
    }
  }

  struct Line {
    AutocastOp op = AutocastOp::Unknown;
    uint32_t id = 0;
    int before_float32 = -1;
    bool saves_input = false;
  };
  const StackTable& stacks_;
  const SourceLineReader& source_;
  LadderInput& in_;
  std::unordered_map<std::string, Line, KeyedHash> lines_;  // "file:line" -> what its source says
  std::unordered_map<uint32_t, Facts> known_;
  std::unordered_map<std::string, uint32_t, KeyedHash> codes_;  // a frame's file and function -> its code id
};

// Dropout makes its mask (a byte an element) and then its output: in an fp32 run the mask is a
// quarter of the output that follows it.
void markDropoutMasks(std::vector<LadderBlock>& blocks, const std::vector<LadderOp>& ops) {
  uint32_t prev = UINT32_MAX;
  for (const LadderOp& op : ops) {
    if (!op.alloc) continue;
    LadderBlock& b = blocks[op.block];
    if (prev != UINT32_MAX && b.autocast == AutocastOp::Dropout && blocks[prev].autocast == AutocastOp::Dropout &&
        blocks[prev].bytes * 4 == b.bytes)
      blocks[prev].autocast = AutocastOp::BoolMask;
    prev = op.block;
  }
}

}  // namespace

bool isCacheFile(std::string_view file) {
  const size_t slash = file.find_last_of("/\\");
  const std::string_view base = slash == std::string_view::npos ? file : file.substr(slash + 1);
  // PyTorch's own caches (torch/_inductor/codecache.py runs compiled code) hold no tensors of a model.
  const std::string_view dir = withinPackages(file.substr(0, file.size() - base.size()));
  if (dir.starts_with("torch/") || dir.starts_with("torch\\") || dir.find("torch/_inductor") != std::string_view::npos ||
      dir.find("torch/_dynamo") != std::string_view::npos)
    return false;
  return base.find("cache") != std::string_view::npos;
}

std::string_view name(AutocastOp op) {
  switch (op) {
    case AutocastOp::Unknown: return "unknown";
    case AutocastOp::Float32: return "float32";
    case AutocastOp::Dropout: return "dropout";
    case AutocastOp::BoolMask: return "bool mask";
    case AutocastOp::LowPrecision: return "lower precision";
  }
  return "unknown";
}

AutocastOp autocastOpOfFunctional(std::string_view function) {
  // PyTorch's "CUDA ops that can autocast to float32" with a Python function in
  // torch.nn.functional (torch/csrc/autocast_mode.cpp, docs/amp.html#cuda-ops-that-can-autocast-to-float32).
  static constexpr std::string_view kFloat32[] = {
      "layer_norm", "group_norm", "softmax", "softmin", "log_softmax", "cross_entropy", "nll_loss", "kl_div",
      "mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits", "poisson_nll_loss",
      "margin_ranking_loss", "hinge_embedding_loss", "multilabel_margin_loss", "multi_margin_loss", "soft_margin_loss",
      "triplet_margin_loss", "cosine_embedding_loss", "normalize"};
  static constexpr std::string_view kDropout[] = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                                                  "feature_alpha_dropout"};
  if (std::find(std::begin(kFloat32), std::end(kFloat32), function) != std::end(kFloat32)) return AutocastOp::Float32;
  if (std::find(std::begin(kDropout), std::end(kDropout), function) != std::end(kDropout)) return AutocastOp::Dropout;
  return AutocastOp::Unknown;
}

AutocastOp autocastOpOfSourceLine(std::string_view line) {
  if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  // Casts to float32: x.float(), .to(torch.float32), dtype=torch.float (which is float32).
  if (line.find(".float()") != std::string_view::npos) return AutocastOp::Float32;
  for (size_t at = line.find("torch.float"); at != std::string_view::npos; at = line.find("torch.float", at + 1)) {
    const std::string_view rest = line.substr(at + 11);
    if (rest.starts_with("32") || rest.empty() || !word(rest.front())) return AutocastOp::Float32;
  }
  // x ** 2 (__pow__); not f(x, **kwargs) or {**a}: unpacking follows '(', ',' or '{'.
  for (size_t at = line.find("**"); at != std::string_view::npos; at = line.find("**", at + 2)) {
    size_t before = at;
    while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t')) --before;
    if (before > 0 && line[before - 1] != '(' && line[before - 1] != ',' && line[before - 1] != '{')
      return AutocastOp::Float32;
  }
  // An fp32 parameter of the module as an operand of arithmetic (RMSNorm's `self.weight * h`):
  // autocast casts only the inputs of the ops on its lists, so type promotion makes the result 4-byte.
  for (const std::string_view parameter : {std::string_view("self.weight"), std::string_view("self.bias")}) {
    for (size_t at = line.find(parameter); at != std::string_view::npos; at = line.find(parameter, at + 1)) {
      const size_t after = at + parameter.size();
      if ((at > 0 && (word(line[at - 1]) || line[at - 1] == '.')) ||
          (after < line.size() && (word(line[after]) || line[after] == '.' || line[after] == '(' || line[after] == '[')))
        continue;
      size_t before = at;
      while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t')) --before;
      size_t next = after;
      while (next < line.size() && (line[next] == ' ' || line[next] == '\t')) ++next;
      auto arithmetic = [](char c) { return c == '*' || c == '+' || c == '-' || c == '/'; };
      const bool unpacked = before >= 2 && line[before - 1] == '*' && line[before - 2] == '*';
      if ((before > 0 && arithmetic(line[before - 1]) && !unpacked) || (next < line.size() && arithmetic(line[next])))
        return AutocastOp::Float32;
    }
  }
  // An op on autocast's float32 list called as x.op( or torch.op( (not math.exp(): a Python number's);
  // a linear layer written as a call (transformers' Conv1D: torch.addmm(self.bias, x, self.weight)) is
  // on the lower-precision list.
  bool linear = false;
  for (size_t dot = line.find('.'); dot != std::string_view::npos; dot = line.find('.', dot + 1)) {
    size_t end = dot + 1;
    while (end < line.size() && word(line[end])) ++end;
    if (end >= line.size() || line[end] != '(') continue;
    const std::string_view op = line.substr(dot + 1, end - dot - 1);
    linear |= op == "addmm" || op == "linear";
    if (!isFloat32ListOp(op)) continue;
    size_t begin = dot;
    while (begin > 0 && word(line[begin - 1])) --begin;
    const std::string_view owner = line.substr(begin, dot - begin);
    if (owner == "math" || owner == "np" || owner == "numpy") continue;
    return AutocastOp::Float32;
  }
  return linear ? AutocastOp::LowPrecision : AutocastOp::Unknown;
}

std::string_view name(StepPart part) {
  switch (part) {
    case StepPart::Before: return "before the run";
    case StepPart::Forward: return "forward";
    case StepPart::Backward: return "backward";
    case StepPart::Recompute: return "recompute";
    case StepPart::Optimizer: return "optimizer";
    case StepPart::ZeroGrad: return "zero_grad";
    case StepPart::Other: return "other";
  }
  return "other";
}

StepPart stepPartOf(std::string_view phase) {
  if (phase == "forward") return StepPart::Forward;
  if (phase == "backward") return StepPart::Backward;
  if (phase == "recompute") return StepPart::Recompute;
  if (phase == "optimizer") return StepPart::Optimizer;
  if (phase == "zero_grad") return StepPart::ZeroGrad;
  return StepPart::Other;
}

std::vector<MicroStep> findMicroSteps(const std::vector<LadderOp>& ops) {
  std::vector<MicroStep> out;
  const auto n = static_cast<uint32_t>(ops.size());
  auto backwardish = [](StepPart p) { return p == StepPart::Backward || p == StepPart::Recompute; };
  uint32_t i = 0;
  while (i < n) {
    if (ops[i].part != StepPart::Forward) {
      ++i;
      continue;
    }
    MicroStep m;
    m.forward_begin = i;
    while (i < n && ops[i].part == StepPart::Forward) ++i;
    m.backward_begin = i;
    while (i < n && backwardish(ops[i].part)) ++i;
    m.end = i;
    out.push_back(m);
  }
  return out;
}

Result<LadderInput> ladderInput(const Trace& trace, const LadderSelection& selection) {
  LadderInput in;
  Window w;
  const Run* run = nullptr;
  if (!trace.runs.empty()) {
    for (size_t r = 0; r < trace.runs.size() && !run; ++r) {
      const Run& candidate = trace.runs[r];
      if (selection.run.empty() ? !isCheckRun(candidate) : candidate.name == selection.run) {
        run = &candidate;
        w.run = static_cast<uint16_t>(r);
      }
    }
    if (!run) {
      std::string names;
      for (const Run& r : trace.runs) names += (names.empty() ? "" : ", ") + r.name;
      return Error{selection.run.empty() ? "the trace has only check runs (" + names + "): choose one with --run"
                                         : "no run named '" + selection.run + "' (runs: " + names + ")"};
    }
    w.own_events_only = isDistributedRank(*run);
    in.run = run->name;
    in.run_index = w.run;
  } else if (!selection.run.empty()) {
    return Error{"the trace has no runs, so there is no run named '" + selection.run + "'"};
  }

  const std::optional<DeviceId> busiest = busiestDevice(trace, w);
  if (selection.device) {
    in.device = *selection.device;
  } else if (busiest) {
    in.device = *busiest;
  } else {
    return Error{in.run.empty() ? std::string("the trace has no allocator events")
                                : "run '" + in.run + "' has no allocator events"};
  }
  in.cuda = in.device != kCpuDevice;
  in.allocator = allocatorSettings(trace);
  if (const DeviceInfo* d = trace.device(in.device)) {
    in.device_name = d->name;
    in.device_total_bytes = d->total_bytes;
  }
  if (in.device_name.empty())
    if (auto it = trace.meta.find("device_name"); it != trace.meta.end() && in.cuda) in.device_name = it->second;
  if (in.device_total_bytes == 0 && in.cuda)
    if (auto it = trace.meta.find("device_total_bytes"); it != trace.meta.end())
      in.device_total_bytes = parseInt(it->second).value_or(0);

  // One pass over the device's allocator events: what is alive when the run begins, then the run's
  // own allocations and frees. Blocks from before the trace (a snapshot's baseline) are one block.
  const EventStore& ev = trace.events;
  // Addresses come from the file: keyed (std::hash of an address is the address, which a file can
  // choose to fill one bucket).
  std::unordered_map<uint64_t, uint32_t, KeyedHash> live;  // address -> block
  std::vector<LadderBlock> before;                         // alive before the run, in the order they were made
  std::unordered_map<uint64_t, uint32_t, KeyedHash> before_live;
  int64_t baseline = 0;
  if (const DeviceInfo* d = trace.device(in.device); d && !w.own_events_only) baseline = d->baseline_allocated;
  int64_t reserved = 0, reserved_peak = 0;
  if (const DeviceInfo* d = trace.device(in.device); d && !w.own_events_only) reserved = d->baseline_reserved;
  bool any_segment_event = false, started = false, ended = false;
  std::vector<LadderBlock> blocks;
  std::vector<LadderOp> ops;
  AutocastOps autocast_ops(trace.stacks, selection.source, in);
  uint32_t previous_line = 0;  // the line (AutocastOps' id) of the previous block made, 0: none read
  int line_position = 0;       // which of that line's run of blocks it was
  for (size_t i = 0; i < ev.size() && !ended; ++i) {
    if (ev.device()[i] != in.device || !counts(ev, i, w)) continue;
    const Action a = ev.action()[i];
    const bool mine = inRun(ev, i, w);
    if (!started && mine && allocatedSign(a) != 0) {
      started = true;
      // Blocks alive now are where the run starts from, in the order they were made (not the
      // keyed table's, which changes from run to run).
      std::vector<std::pair<uint32_t, uint64_t>> alive;
      alive.reserve(before_live.size());
      for (const auto& [addr, b] : before_live) alive.emplace_back(b, addr);
      std::sort(alive.begin(), alive.end());
      for (const auto& [b, addr] : alive) {
        live[addr] = static_cast<uint32_t>(blocks.size());
        blocks.push_back(before[b]);
      }
      reserved_peak = reserved;
    }
    if (started && !mine && in.run_index != kNoRun && allocatedSign(a) != 0) {
      ended = true;
      break;
    }
    if (const int rs = reservedSign(a); rs != 0) {
      any_segment_event = true;
      reserved += rs * ev.sizes()[i];
      if (started) reserved_peak = std::max(reserved_peak, reserved);
      continue;
    }
    if (a == Action::Alloc) {
      if (!started) {
        before_live[ev.addr()[i]] = static_cast<uint32_t>(before.size());
        before.push_back(LadderBlock{ev.sizes()[i], ev.category()[i], StepPart::Before, -1, -1});
        continue;
      }
      LadderBlock b;
      b.bytes = ev.sizes()[i];
      b.category = ev.category()[i];
      b.born = partOf(trace, ev.phase()[i]);
      uint32_t line = 0;
      if (ev.stack()[i] != kNoStack) {
        const auto facts = autocast_ops.of(ev.stack()[i]);
        line = facts.line;
        b.autocast = facts.op;
        b.fp32_by_source = facts.by_source;
        b.float32_saves_input = facts.saves_input;
        // One run of a line read as fp32 makes its blocks one after another: those Python evaluates
        // before the float32-list op keep their input's dtype.
        line_position = facts.line != 0 && facts.line == previous_line ? line_position + 1 : 0;
        if (facts.by_source && facts.before_float32 >= 0 && line_position < facts.before_float32) {
          b.autocast = AutocastOp::Unknown;
          b.fp32_by_source = false;
          b.float32_saves_input = false;
        }
        b.cached = facts.cached;
        b.code = facts.code;
        b.depth = facts.depth;
        if (b.born == StepPart::Forward) in.stacks = true;
      }
      previous_line = line;
      b.alloc_op = static_cast<int32_t>(ops.size());
      live[ev.addr()[i]] = static_cast<uint32_t>(blocks.size());
      ops.push_back(LadderOp{static_cast<uint32_t>(blocks.size()), true, b.born, ev.tNs()[i]});
      blocks.push_back(b);
    } else if (a == Action::FreeCompleted) {
      if (!started) {
        if (auto it = before_live.find(ev.addr()[i]); it != before_live.end()) {
          before_live.erase(it);
        } else {
          baseline -= ev.sizes()[i];  // a block from before the trace
        }
        continue;
      }
      uint32_t id = 0;
      if (auto it = live.find(ev.addr()[i]); it != live.end()) {
        id = it->second;
        live.erase(it);
      } else {
        // A block from before the trace freed in the run: it was part of the baseline.
        id = static_cast<uint32_t>(blocks.size());
        blocks.push_back(LadderBlock{ev.sizes()[i], ev.category()[i], StepPart::Before, -1, -1});
        baseline -= ev.sizes()[i];
      }
      blocks[id].free_op = static_cast<int32_t>(ops.size());
      ops.push_back(LadderOp{id, false, partOf(trace, ev.phase()[i]), ev.tNs()[i]});
    }
  }
  if (!started) return Error{"run '" + in.run + "' has no allocations on " + trace.deviceName(in.device)};
  if (baseline > 0) blocks.push_back(LadderBlock{baseline, Category::Unknown, StepPart::Before, -1, -1});
  markDropoutMasks(blocks, ops);
  in.blocks = std::move(blocks);
  in.ops = std::move(ops);
  if (any_segment_event) in.peak_reserved = reserved_peak;

  // The measured peaks, by the same sweep every prediction uses.
  int64_t now = 0, now_blocks = 0;
  for (const LadderBlock& b : in.blocks)
    if (b.alloc_op < 0) now += b.bytes, now_blocks += in.roundedBytes(b.bytes);
  in.peak_allocated = now;
  in.peak_allocated_blocks = now_blocks;
  for (const LadderOp& op : in.ops) {
    const int64_t bytes = in.blocks[op.block].bytes;
    const int sign = op.alloc ? 1 : -1;
    now += sign * bytes;
    now_blocks += sign * in.roundedBytes(bytes);
    in.peak_allocated = std::max(in.peak_allocated, now);
    in.peak_allocated_blocks = std::max(in.peak_allocated_blocks, now_blocks);
  }

  in.micro_steps = findMicroSteps(in.ops);
  in.optimizer_steps = optimizerSteps(trace, in.run_index, in.device).size();
  fillConfig(in, run);
  // A recorded program says whether its model already ran under autocast (the shim's meta).
  if (auto it = trace.meta.find("program_autocast"); in.autocast.empty() && it != trace.meta.end() && it->second != "off")
    in.autocast = it->second;
  // A recording of a rung applied by sawtooth-record (--rung) already runs it: its ladder starts there.
  if (auto it = trace.meta.find("rung"); it != trace.meta.end()) {
    if (in.autocast.empty() && (it->second == "bf16" || it->second == "fp16"))
      in.autocast = it->second + " (sawtooth-record --rung " + it->second + ")";
    if (it->second.starts_with("checkpoint")) in.already_checkpointed = true;
  }
  fillTiming(in, trace, run);
  fillKernels(in, trace);
  in.repeated = repeatedBlocksFromPattern(in, !trace.modules.empty());
  if (!in.repeated.found() && !trace.modules.empty()) {
    RepeatedBlocks from_modules = repeatedBlocksFromModules(in, trace.modules, in.run_index);
    if (from_modules.found()) in.repeated = std::move(from_modules);
    else in.repeated.source += "; " + from_modules.source;
  } else if (auto off = trace.meta.find("modules"); !in.repeated.found() && off != trace.meta.end() && off->second == "off") {
    in.repeated.source += "; this recording has no module tree to look in (`sawtooth-record --modules on` records one)";
  }
  return in;
}

}  // namespace sawtooth
