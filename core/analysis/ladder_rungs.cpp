#include "core/analysis/ladder_rungs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/reduction_staging.h"
#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

constexpr int64_t kFixedUpTo = 512;  // scalars and tiny vectors: never scaled, never cast

bool modelState(Category c) {
  return c == Category::Parameter || c == Category::Gradient || c == Category::OptimizerState;
}

bool inForward(StepPart p) { return p == StepPart::Forward || p == StepPart::Recompute; }
bool inBackward(StepPart p) { return p == StepPart::Backward || p == StepPart::Recompute; }

int64_t scaledBytes(int64_t bytes, int64_t num, int64_t den) { return (bytes * num + den - 1) / den; }

// Replays recorded blocks into a program: persistent ones first, then each op as asked.
class Emitter {
 public:
  Emitter(const LadderInput& in, const std::vector<bool>& batch_scaled)
      : in_(in), scaled_(batch_scaled), id_(in.blocks.size(), 0), alive_(in.blocks.size(), false) {
    for (uint32_t b = 0; b < in.blocks.size(); ++b)
      if (in.blocks[b].alloc_op < 0) {
        id_[b] = program.persistent(in.blocks[b].bytes, roleOf(in.blocks[b].category), false);
        alive_[b] = true;
      }
  }
  // The recorded op as it was, or an allocation of `bytes` (and `kind`) instead of the recorded size.
  void replay(const LadderOp& op) {
    if (op.alloc) alloc(op.block, in_.blocks[op.block].bytes);
    else free(op.block);
  }
  void alloc(uint32_t b, int64_t bytes, std::optional<BlockRole> kind = std::nullopt) {
    id_[b] = program.alloc(bytes, kind.value_or(roleOf(in_.blocks[b].category)), scaled_[b]);
    alive_[b] = true;
  }
  void free(uint32_t b) {
    if (!alive_[b]) return;
    program.free(id_[b]);
    alive_[b] = false;
  }
  bool alive(uint32_t b) const { return alive_[b]; }
  uint32_t id(uint32_t b) const { return id_[b]; }
  void rebind(uint32_t b, uint32_t program_block) {
    id_[b] = program_block;
    alive_[b] = true;
  }

  MemoryProgram program;

 private:
  const LadderInput& in_;
  const std::vector<bool>& scaled_;
  std::vector<uint32_t> id_;
  std::vector<bool> alive_;
};

bool bornIn(const LadderBlock& b, uint32_t begin, uint32_t end) {
  return b.alloc_op >= 0 && static_cast<uint32_t>(b.alloc_op) >= begin && static_cast<uint32_t>(b.alloc_op) < end;
}
bool survives(const LadderBlock& b, uint32_t end) { return b.free_op < 0 || static_cast<uint32_t>(b.free_op) >= end; }

// Where the backward step that made a gradient at `q` ends: before the first allocation that
// follows a free (the node has released what it used, the next node starts).
uint32_t nodeEnd(const LadderInput& in, uint32_t q, uint32_t end) {
  bool seen_free = false;
  for (uint32_t r = q + 1; r < end; ++r) {
    if (!in.ops[r].alloc) seen_free = true;
    else if (seen_free) return r;
  }
  return end;
}

std::string bytesText(int64_t b) { return formatBytes(b); }

// Made by the same code: the same function at the same depth of the stack (a block's residual sum
// and its norm's lines are both a `forward` of the same file, one frame apart). Blocks without a
// stack are no code's.
bool sameCode(const LadderBlock& a, const LadderBlock& b) { return a.code != 0 && a.code == b.code && a.depth == b.depth; }

int64_t sumWhere(const LadderInput& in, const std::vector<bool>& scaled, bool want_scaled, bool only_fb) {
  int64_t s = 0;
  for (uint32_t b = 0; b < in.blocks.size(); ++b)
    if (scaled[b] == want_scaled && (!only_fb || inForward(in.blocks[b].born) || inBackward(in.blocks[b].born)))
      s += in.blocks[b].bytes;
  return s;
}

// A backward block that is a row sum's staging buffer (reduction_staging.h): sized for `rows` rows
// of `outputs` outputs.
struct StagingBuffer {
  int64_t rows = 0;
  int64_t outputs = 0;
};

// The staging buffers among the backward blocks of a size forward never made: a block right after
// a small gradient (the bias's, of `outputs` elements of 4 or 2 bytes) whose size is exactly the
// buffer ATen sizes for a sum over rows, with the rows told by a batch-scaled block alive then (the
// incoming gradient, rows × outputs elements). Nothing where the device is unknown.
std::map<uint32_t, StagingBuffer> stagingBuffers(const LadderInput& in, const std::vector<bool>& scaled) {
  std::map<uint32_t, StagingBuffer> out;
  const ReductionDevice device = reductionDeviceOf(in.device_name);
  if (!in.cuda || device.multiprocessors == 0) return out;
  constexpr int kLookBack = 4;      // ops between the bias's gradient and the buffer
  constexpr int kRowsFrom = 64;     // ops back to look for a block that tells the rows
  for (uint32_t b = 0; b < in.blocks.size(); ++b) {
    const LadderBlock& blk = in.blocks[b];
    if (scaled[b] || blk.born != StepPart::Backward || modelState(blk.category) || blk.bytes <= kFixedUpTo ||
        blk.alloc_op < 0 || blk.free_op < 0)
      continue;
    const auto at = static_cast<uint32_t>(blk.alloc_op);
    std::optional<StagingBuffer> found;
    for (uint32_t q = at; q-- > 0 && at - q <= kLookBack && !found;) {
      const LadderOp& op = in.ops[q];
      const LadderBlock& gradient = in.blocks[op.block];
      if (!op.alloc || gradient.category != Category::Gradient) continue;
      for (int64_t element : {4, 2}) {
        if (gradient.bytes % element != 0) continue;
        const int64_t outputs = gradient.bytes / element;
        for (uint32_t r = at; r-- > 0 && at - r <= kRowsFrom && !found;) {
          const LadderOp& seen = in.ops[r];
          if (!seen.alloc || !scaled[seen.block]) continue;
          const int64_t bytes = in.blocks[seen.block].bytes;
          for (int64_t e : {4, 2}) {
            if (bytes % (outputs * e) != 0) continue;
            const int64_t rows = bytes / (outputs * e);
            if (rowSumStagingBytes(rows, outputs, device) == blk.bytes) {
              found = StagingBuffer{rows, outputs};
              break;
            }
          }
        }
        if (found) break;
      }
    }
    if (found) out[b] = *found;
  }
  return out;
}

}  // namespace

std::vector<bool> batchScaledBlocks(const LadderInput& in) {
  std::vector<bool> out(in.blocks.size(), false);
  std::unordered_set<int64_t> forward_sizes;
  for (const LadderBlock& b : in.blocks)
    if (inForward(b.born) && !modelState(b.category) && b.bytes > kFixedUpTo) forward_sizes.insert(b.bytes);
  for (size_t i = 0; i < in.blocks.size(); ++i) {
    const LadderBlock& b = in.blocks[i];
    if (b.alloc_op < 0 || b.bytes <= kFixedUpTo || modelState(b.category)) continue;
    if (b.free_op < 0 && b.category != Category::Input && b.category != Category::Activation) continue;
    if (inForward(b.born) || b.category == Category::Input) out[i] = true;
    else if (b.born == StepPart::Backward) out[i] = forward_sizes.count(b.bytes) > 0;
  }
  return out;
}

RungProgram identityRung(const LadderInput& in) {
  const std::vector<bool> scaled = batchScaledBlocks(in);
  Emitter e(in, scaled);
  for (const LadderOp& op : in.ops) e.replay(op);
  RungProgram r;
  r.program = std::move(e.program);
  r.reasoning.push_back("as recorded");
  return r;
}

RungProgram batchRung(const LadderInput& in, int k, bool accumulate) {
  RungProgram r;
  if (k < 2) {
    r.applicable = false;
    r.why_not = "k must be at least 2";
    return r;
  }
  const std::vector<bool> scaled = batchScaledBlocks(in);
  Emitter e(in, scaled);
  // A row sum's staging buffer is sized for the rows a micro-batch has (none below a thousand or so).
  const std::map<uint32_t, StagingBuffer> staging = stagingBuffers(in, scaled);
  const ReductionDevice device = reductionDeviceOf(in.device_name);
  std::map<uint32_t, int64_t> staged_bytes;
  for (const auto& [b, buffer] : staging)
    staged_bytes[b] = rowSumStagingBytes(scaledBytes(buffer.rows, 1, k), buffer.outputs, device);
  auto bytesOf = [&](uint32_t b) {
    if (auto it = staged_bytes.find(b); it != staged_bytes.end()) return it->second;
    return scaled[b] ? scaledBytes(in.blocks[b].bytes, 1, k) : in.blocks[b].bytes;
  };
  auto allocAs = [&](uint32_t b) {  // a buffer the micro-batch needs none of is not made
    if (const int64_t bytes = bytesOf(b); bytes > 0) e.alloc(b, bytes);
  };
  uint32_t pos = 0;
  size_t replicated = 0;
  for (const MicroStep& m : in.micro_steps) {
    for (; pos < m.forward_begin; ++pos) {
      const LadderOp& op = in.ops[pos];
      if (op.alloc) allocAs(op.block);
      else e.free(op.block);
    }
    const int copies = accumulate && m.hasBackward() ? k : 1;
    if (copies > 1) ++replicated;
    // Gradients made in this backward and kept: where a later micro-batch's copy of each is added in.
    std::map<uint32_t, std::vector<uint32_t>> gradient_ends;  // op position -> gradients to free there
    for (uint32_t q = m.backward_begin; q < m.end; ++q) {
      const LadderOp& op = in.ops[q];
      if (op.alloc && in.blocks[op.block].category == Category::Gradient && survives(in.blocks[op.block], m.end))
        gradient_ends[nodeEnd(in, q, m.end)].push_back(op.block);
    }
    for (int c = 0; c < copies; ++c) {
      std::map<uint32_t, uint32_t> transient;  // recorded gradient -> its copy in this micro-batch
      std::vector<uint32_t> kept_copies;       // other survivors' copies in later micro-batches
      auto freeTransients = [&](uint32_t at) {
        if (auto it = gradient_ends.find(at); it != gradient_ends.end())
          for (uint32_t g : it->second)
            if (auto t = transient.find(g); t != transient.end()) e.program.free(t->second), transient.erase(t);
      };
      for (uint32_t q = m.forward_begin; q < m.end; ++q) {
        if (c > 0) freeTransients(q);
        const LadderOp& op = in.ops[q];
        const LadderBlock& blk = in.blocks[op.block];
        if (!bornIn(blk, m.forward_begin, m.end)) {
          if (c == 0) e.free(op.block);  // made before this micro-step, freed in it
          continue;
        }
        if (!op.alloc) {
          e.free(op.block);
          continue;
        }
        if (c > 0 && survives(blk, m.end)) {
          if (blk.category == Category::Gradient) {
            transient[op.block] = e.program.alloc(blk.bytes, BlockRole::Gradient, false);
          } else {
            kept_copies.push_back(e.program.alloc(bytesOf(op.block), roleOf(blk.category), scaled[op.block]));
          }
          continue;
        }
        allocAs(op.block);
      }
      if (c > 0) {
        freeTransients(m.end);
        for (uint32_t id : kept_copies) e.program.free(id);
      }
    }
    pos = m.end;
  }
  for (; pos < in.ops.size(); ++pos) {
    const LadderOp& op = in.ops[pos];
    if (op.alloc) allocAs(op.block);
    else e.free(op.block);
  }
  r.program = std::move(e.program);
  const int64_t scaling = sumWhere(in, scaled, true, false), fixed = sumWhere(in, scaled, false, true);
  r.reasoning.push_back(fmt::format(
      "blocks that scale with the batch (made in forward, or in backward with a size forward also made: activations, "
      "their gradients, temporaries, inputs made in the step) shrink to 1/{}: {} allocated over the run become {}",
      k, bytesText(scaling), bytesText(scaledBytes(scaling, 1, k))));
  r.reasoning.push_back(fmt::format(
      "parameters, gradients, optimizer state and blocks of {} B or less do not change ({} allocated in forward and "
      "backward do not scale)",
      kFixedUpTo, bytesText(fixed)));
  if (!staging.empty()) {
    int64_t largest = 0, largest_now = 0;
    for (const auto& [b, buffer] : staging)
      if (in.blocks[b].bytes > largest) largest = in.blocks[b].bytes, largest_now = staged_bytes[b];
    const StagingBuffer& any = staging.begin()->second;
    const auto backwards = std::count_if(in.micro_steps.begin(), in.micro_steps.end(),
                                         [](const MicroStep& m) { return m.hasBackward(); });
    const std::string how_many =
        backwards > 1 && staging.size() % static_cast<size_t>(backwards) == 0
            ? fmt::format("{} backward blocks a pass ({} in the run)", staging.size() / static_cast<size_t>(backwards),
                          staging.size())
            : fmt::format("{} backward block(s)", staging.size());
    r.reasoning.push_back(fmt::format(
        "{} of a size forward never made are a row sum's staging buffer (a bias's gradient, "
        "grad_output.sum(0): PyTorch's CUDA reduction splits a long sum across thread blocks and stages their partial "
        "sums, a buffer sized by the rows up to a cap set by the {} multiprocessors of the {}): at {} rows a pass "
        "instead of {}, the largest {}",
        how_many, device.multiprocessors, in.device_name, scaledBytes(any.rows, 1, k), any.rows,
        largest_now == largest ? fmt::format("stays {} (the cap)", bytesText(largest))
        : largest_now > 0      ? fmt::format("{} instead of {}", bytesText(largest_now), bytesText(largest))
                               : fmt::format("goes ({} recorded): a sum that short is not staged",
                                             bytesText(largest))));
  }
  int64_t largest_fixed_backward = 0;
  for (uint32_t b = 0; b < in.blocks.size(); ++b)
    if (!scaled[b] && !staging.count(b) && in.blocks[b].born == StepPart::Backward && !modelState(in.blocks[b].category))
      largest_fixed_backward = std::max(largest_fixed_backward, in.blocks[b].bytes);
  if (largest_fixed_backward > kFixedUpTo) {
    r.may_be_lower_by = largest_fixed_backward - scaledBytes(largest_fixed_backward, 1, k);
    r.range_why = fmt::format(
        "the largest backward block of a size forward never made, if it is a workspace that scales with the rows "
        "(1/{} of {})",
        k, bytesText(largest_fixed_backward));
  }
  if (largest_fixed_backward > kFixedUpTo)
    r.reasoning.push_back(fmt::format(
        "uncertain: a block of backward whose size forward never made is kept whole ({} the largest); where it is a "
        "library's workspace sized by the batch it sees (cuBLAS picks smaller ones for fewer rows), a smaller "
        "micro-batch peaks lower than predicted, by up to that much",
        bytesText(largest_fixed_backward)));
  if (accumulate) {
    r.reasoning.push_back(fmt::format(
        "{} forward + backward pass(es) run {} times each; the first micro-batch makes the gradients, each later one makes "
        "every gradient again and adds it in place, so one extra gradient exists while its backward step runs",
        replicated, k));
    if (replicated == 0) {
      r.applicable = false;
      r.why_not = "the run has no forward followed by a backward to split";
    }
  }
  return r;
}

namespace {

// hold_before_cache: the saved tensors a block recomputes before its first cache write stay to the
// end of the backward (the high end of the range the recording leaves).
RungProgram checkpointProgram(const LadderInput& in, int every, CheckpointForm form, bool hold_before_cache) {
  RungProgram r;
  const bool reentrant = form == CheckpointForm::Reentrant;
  if (!in.repeated.found()) {
    r.applicable = false;
    r.why_not = "no repeated blocks to checkpoint: " + in.repeated.source;
    return r;
  }
  if (in.already_checkpointed) {
    r.applicable = false;
    r.why_not = "the run already checkpoints";
    return r;
  }
  const std::vector<bool> scaled = batchScaledBlocks(in);
  Emitter e(in, scaled);
  const bool cpu = !in.cuda;
  int64_t dropped_bytes = 0, recompute_allocated = 0, kept_cached = 0, largest_internal = 0, early_freed = 0;
  // Saved tensors a block recomputes before its first cache write: the recomputed entry the cache
  // holds to the end of backward keeps the recomputed graph that made it, and with it those of them
  // its write depends on (which ones is data flow, not in a recording).
  int64_t before_cache_write = 0;
  std::set<uint32_t> held_by_entry_graph;  // those blocks (recorded ids), with hold_before_cache
  int64_t largest_kept_to_end = 0;  // non-reentrant: the largest recomputed tensor kept to its step's end
  std::unordered_set<int64_t> parameter_sizes;
  for (const LadderBlock& b : in.blocks)
    if (b.category == Category::Parameter && b.bytes > 0) parameter_sizes.insert(b.bytes);
  size_t checkpointed_total = 0;
  std::vector<double> fractions;
  bool timed_by_clock = !in.cuda;
  uint32_t pos = 0;
  for (size_t mi = 0; mi < in.micro_steps.size(); ++mi) {
    const MicroStep& m = in.micro_steps[mi];
    const std::vector<BlockSpan>* spans = mi < in.repeated.forward.size() ? &in.repeated.forward[mi] : nullptr;
    for (; pos < m.forward_begin; ++pos) e.replay(in.ops[pos]);
    if (!m.hasBackward() || !spans || spans->empty()) {
      for (; pos < m.end; ++pos) e.replay(in.ops[pos]);
      continue;
    }
    struct Block {
      BlockSpan span;
      std::vector<uint32_t> allocs;   // recorded blocks made in the span, in order
      std::set<uint32_t> internal;    // saved for this block's backward
      uint32_t output = UINT32_MAX;
      uint32_t last_internal_op = 0;  // the op allocating the last saved tensor
      int64_t insert_after = -1;      // backward op after which it is recomputed (-1: backward's start)
      uint32_t last_internal_free = 0;
      uint32_t rng = UINT32_MAX;      // program block of its RNG state (CPU)
      uint32_t held_output = UINT32_MAX;
    };
    std::vector<Block> ck;
    std::map<uint32_t, size_t> block_of_span_start;
    for (size_t bi = 0; bi < spans->size(); ++bi) {
      if (bi % static_cast<size_t>(every) != 0) continue;
      Block b;
      b.span = (*spans)[bi];
      for (uint32_t q = b.span.begin; q < b.span.end; ++q)
        if (in.ops[q].alloc) b.allocs.push_back(in.ops[q].block);
      if (b.allocs.empty()) continue;
      b.output = b.allocs.back();
      for (uint32_t q = b.span.begin; q < b.span.end; ++q) {
        const uint32_t id = in.ops[q].block;
        const LadderBlock& blk = in.blocks[id];
        if (in.ops[q].alloc && id != b.output && blk.free_op >= 0 && static_cast<uint32_t>(blk.free_op) >= m.backward_begin &&
            static_cast<uint32_t>(blk.free_op) < m.end && !modelState(blk.category)) {
          b.internal.insert(id);
          largest_internal = std::max(largest_internal, blk.bytes);
          b.last_internal_op = q;
          b.last_internal_free = std::max(b.last_internal_free, static_cast<uint32_t>(blk.free_op));
        }
      }
      if (b.internal.empty()) continue;  // nothing saved: checkpointing it changes nothing
      // Recomputed when backward reaches it: after the block's output and everything born after the
      // block have been freed by the backward of what came later.
      for (uint32_t q = m.backward_begin; q < m.end; ++q) {
        const LadderOp& op = in.ops[q];
        if (op.alloc) continue;
        const LadderBlock& blk = in.blocks[op.block];
        if (op.block == b.output || bornIn(blk, b.span.end, m.backward_begin)) b.insert_after = q;
      }
      block_of_span_start[b.span.begin] = ck.size();
      ck.push_back(std::move(b));
    }
    if (ck.empty()) {
      for (; pos < m.end; ++pos) e.replay(in.ops[pos]);
      continue;
    }
    checkpointed_total += ck.size();
    std::map<uint32_t, size_t> internal_owner;
    for (size_t c = 0; c < ck.size(); ++c)
      for (uint32_t id : ck[c].internal) internal_owner[id] = c;

    // Forward: a checkpointed block's saved tensors go as soon as the next op has made its output.
    std::vector<uint32_t> pending;
    for (uint32_t q = m.forward_begin; q < m.backward_begin; ++q) {
      if (auto it = block_of_span_start.find(q); it != block_of_span_start.end() && cpu)
        ck[it->second].rng = e.program.alloc(kCpuRngStateBytes, BlockRole::RngState);
      const LadderOp& op = in.ops[q];
      if (!op.alloc) {
        e.free(op.block);
        continue;
      }
      e.alloc(op.block, in.blocks[op.block].bytes);
      for (uint32_t id : pending) e.free(id), dropped_bytes += in.blocks[id].bytes;
      pending.clear();
      if (internal_owner.count(op.block)) {
        // What a cache stored is referenced from outside the block: checkpointing cannot free it.
        if (in.blocks[op.block].cached) kept_cached += in.blocks[op.block].bytes;
        else pending.push_back(op.block);
      }
    }
    for (uint32_t id : pending) e.free(id), dropped_bytes += in.blocks[id].bytes;

    // Backward: each checkpointed block is recomputed where backward reaches it.
    std::map<int64_t, std::vector<size_t>> recompute_at;
    for (size_t c = 0; c < ck.size(); ++c) recompute_at[ck[c].insert_after].push_back(c);
    auto recompute = [&](size_t c) {
      Block& b = ck[c];
      uint32_t rng_copy = UINT32_MAX;
      if (cpu) rng_copy = e.program.alloc(kCpuRngStateBytes, BlockRole::RngState);
      const uint32_t stop = reentrant ? b.span.end : b.last_internal_op + 1;
      std::vector<uint32_t> temps;
      std::set<uint32_t> rebound;
      int64_t saved_so_far = 0;
      std::vector<uint32_t> saved_before;
      bool wrote_cache = false;
      for (uint32_t q = b.span.begin; q < stop; ++q) {
        const LadderOp& op = in.ops[q];
        const uint32_t id = op.block;
        if (op.alloc) {
          const bool internal = b.internal.count(id) > 0;
          // A cache whose update made a new block on every call in forward concatenates (one that
          // wrote in place, like a static cache, would allocate nothing): recomputed, the update
          // finds the entry forward stored and makes old and new together, twice the block.
          const bool appended = internal && in.blocks[id].cached;
          const int64_t bytes = in.blocks[id].bytes * (appended ? 2 : 1);
          if (appended && !wrote_cache) {
            before_cache_write += saved_so_far;
            wrote_cache = true;
            if (hold_before_cache) held_by_entry_graph.insert(saved_before.begin(), saved_before.end());
          }
          if (internal && !appended && !wrote_cache) saved_so_far += bytes, saved_before.push_back(id);
          const uint32_t p =
              e.program.alloc(bytes, internal ? BlockRole::Recomputed : BlockRole::Temporary, scaled[id]);
          recompute_allocated += bytes;
          if (internal) {
            // The cache's old entry goes when the new one replaces it; the cache holds the new one
            // (the checkpoint keeps the cache, an argument of every block) until the backward ends.
            if (in.blocks[id].cached && e.alive(id)) e.free(id);
            e.rebind(id, p);
          } else if (id == b.output && reentrant) {
            b.held_output = p;
          } else {
            temps.push_back(p);
            if (!e.alive(id)) e.rebind(id, p), rebound.insert(id);
          }
        } else if (rebound.count(id) && e.alive(id)) {
          const uint32_t p = e.id(id);
          e.free(id);
          temps.erase(std::remove(temps.begin(), temps.end(), p), temps.end());
        }
      }
      for (uint32_t p : temps) e.program.free(p);
      if (rng_copy != UINT32_MAX) e.program.free(rng_copy);
    };
    // Non-reentrant: the backward formula that unpacks a recomputed tensor holds the only reference,
    // so the tensor goes when the formula returns. The engine then reduces each gradient made for a
    // broadcast input to that input's shape (a bias's sum, with its workspace) before it releases a
    // saved tensor of the step, as the recorded run's were. In a step (since the previous saved
    // tensor's free) that makes a weight's gradient and then a block of another parameter's size,
    // that last one is the reduced bias gradient: the recomputed tensor is freed right before it.
    std::map<uint32_t, std::vector<uint32_t>> early_free;
    if (!reentrant && !parameter_sizes.empty())
      for (const auto& [id, c] : internal_owner) {
        const LadderBlock& blk = in.blocks[id];
        if (blk.cached || blk.free_op < 0) continue;
        const auto f = static_cast<uint32_t>(blk.free_op);
        if (f < m.backward_begin || f >= m.end) continue;
        uint32_t last = UINT32_MAX;  // the step's last allocation of a parameter's size
        bool weight_before = false;
        for (uint32_t q = f; q-- > m.backward_begin;) {
          const LadderOp& op = in.ops[q];
          if (!op.alloc && inForward(in.blocks[op.block].born)) break;  // the previous saved tensor's step
          if (op.alloc && parameter_sizes.count(in.blocks[op.block].bytes)) {
            weight_before |= last != UINT32_MAX;
            if (last == UINT32_MAX) last = q;
          }
        }
        if (weight_before && last > m.backward_begin)
          early_free[last - 1].push_back(id), early_freed += in.blocks[id].bytes;
      }
    if (!reentrant)
      for (const auto& [id, c] : internal_owner) {
        bool early = false;
        for (const auto& [q, ids] : early_free) early |= std::find(ids.begin(), ids.end(), id) != ids.end();
        if (!early && !in.blocks[id].cached) largest_kept_to_end = std::max(largest_kept_to_end, in.blocks[id].bytes);
      }
    if (auto it = recompute_at.find(-1); it != recompute_at.end())
      for (size_t c : it->second) recompute(c);
    for (uint32_t q = m.backward_begin; q < m.end; ++q) {
      const LadderOp& op = in.ops[q];
      const bool held_by_cache = !op.alloc && internal_owner.count(op.block) &&
                                 (in.blocks[op.block].cached || held_by_entry_graph.count(op.block));
      if (!held_by_cache) e.replay(op);
      if (auto it = early_free.find(q); it != early_free.end())
        for (uint32_t id : it->second)
          if (e.alive(id) && !held_by_entry_graph.count(id)) e.free(id);
      if (!op.alloc)
        if (auto it = internal_owner.find(op.block); it != internal_owner.end()) {
          Block& b = ck[it->second];
          if (q == b.last_internal_free) {
            if (b.held_output != UINT32_MAX) e.program.free(b.held_output), b.held_output = UINT32_MAX;
            if (!reentrant && b.rng != UINT32_MAX) e.program.free(b.rng), b.rng = UINT32_MAX;
          }
        }
      if (auto it = recompute_at.find(q); it != recompute_at.end())
        for (size_t c : it->second) recompute(c);
    }
    for (Block& b : ck) {
      // A saved tensor the recorded backward freed before reaching the block is not kept past it.
      for (uint32_t id : b.internal)
        if (e.alive(id)) e.free(id);
      if (b.held_output != UINT32_MAX) e.program.free(b.held_output);
      if (b.rng != UINT32_MAX) e.program.free(b.rng);
    }
    pos = m.end;

    // The forward work recomputed, as a fraction of this forward: by the clock on the CPU (where
    // an op's allocation comes when it runs), by the bytes the ops allocate on a GPU (whose host
    // runs ahead of the kernels).
    const int64_t t0 = in.ops[m.forward_begin].t_ns, t1 = in.ops[m.backward_begin - 1].t_ns;
    double fwd_bytes = 0;
    for (uint32_t q = m.forward_begin; q < m.backward_begin; ++q)
      if (in.ops[q].alloc) fwd_bytes += static_cast<double>(in.blocks[in.ops[q].block].bytes);
    double added = 0;
    for (const Block& b : ck) {
      const uint32_t stop = reentrant ? b.span.end : b.last_internal_op + 1;
      if (timed_by_clock && t1 > t0) {
        const int64_t end_t = stop < m.backward_begin ? in.ops[stop].t_ns : t1;
        added += static_cast<double>(end_t - in.ops[b.span.begin].t_ns) / static_cast<double>(t1 - t0);
      } else if (fwd_bytes > 0) {
        double bytes = 0;
        for (uint32_t q = b.span.begin; q < stop; ++q)
          if (in.ops[q].alloc) bytes += static_cast<double>(in.blocks[in.ops[q].block].bytes);
        added += bytes / fwd_bytes;
      }
    }
    fractions.push_back(added);
  }
  for (; pos < in.ops.size(); ++pos) e.replay(in.ops[pos]);
  r.program = std::move(e.program);
  if (checkpointed_total == 0) {
    r.applicable = false;
    r.why_not = "the repeated blocks keep nothing for backward but their outputs (the next block's inputs)";
    return r;
  }
  const size_t fraction_n = fractions.size();
  if (!fractions.empty()) {
    // The median pass: the first pass pays for first calls, a loaded host for its neighbours.
    std::sort(fractions.begin(), fractions.end());
    r.recompute_fraction = fractions[fractions.size() / 2];
  }
  r.recompute_source = timed_by_clock ? "the forward's clock" : "the bytes the recomputed ops allocate";
  const size_t per_pass = checkpointed_total / std::max<size_t>(1, fraction_n);
  r.reasoning.push_back(fmt::format("{} of the {} repeated blocks ({}) checkpointed ({} per forward)",
                                    every == 1 ? std::string("every one") : fmt::format("every {}{}", every, every == 2 ? "nd" : every == 3 ? "rd" : "th"),
                                    in.repeated.count, in.repeated.name, per_pass));
  r.reasoning.push_back(fmt::format(
      "each keeps only its input{}; the {} it saved for backward are freed in forward as soon as the next op has run",
      cpu ? fmt::format(" and the CPU RNG state ({} B)", kCpuRngStateBytes) : std::string(),
      bytesText(dropped_bytes / static_cast<int64_t>(std::max<size_t>(1, fraction_n)))));
  r.reasoning.push_back(fmt::format(
      "when backward reaches a block its forward runs again ({}): {} per forward made again, alive until the block's "
      "backward frees them",
      reentrant ? "reentrant: the whole block, whose output is held until its backward ends"
                : "non-reentrant: only until the last tensor it saved (early stop)",
      bytesText(recompute_allocated / static_cast<int64_t>(std::max<size_t>(1, fraction_n)))));
  if (!reentrant && largest_internal > 0) {
    r.reasoning.push_back(fmt::format(
        "non-reentrant checkpointing hands a recomputed tensor to the backward formula that unpacks it and keeps no "
        "other reference: it goes when the formula returns, before the engine reduces a broadcast input's gradient "
        "(a bias's sum, with its workspace) and before the step's end, where the recorded run released its saved "
        "tensor; in a step that makes a weight's gradient and then a block of another parameter's size (the "
        "bias's gradient the engine reduces), a recomputed tensor is freed right before that block ({} per "
        "forward freed so)",
        bytesText(early_freed / static_cast<int64_t>(std::max<size_t>(1, fraction_n)))));
    if (largest_kept_to_end > 0) {
      r.reasoning.push_back(fmt::format(
          "uncertain: in a step that does not make a weight's and then a bias's gradient the tensor is kept to the "
          "step's end; "
          "where the formula used it before other work of the step, the prediction may be high by up to one such "
          "tensor ({} here)",
          bytesText(largest_kept_to_end)));
      r.may_be_lower_by = largest_kept_to_end;
      r.range_why = "one recomputed tensor its formula may drop before its step's end";
    }
  }
  r.reasoning.push_back(fmt::format("forward work added: {:.0f} % of a forward (measured by {})", 100 * r.recompute_fraction,
                                    r.recompute_source));
  if (kept_cached > 0)
    r.reasoning.push_back(fmt::format(
        "kept: {} per forward that the blocks store in a cache (made in a cache's code, e.g. transformers' "
        "past_key_values with use_cache on): the cache outlives each block, so checkpointing frees none of it. Its "
        "update made a new block on every call, so it concatenates (transformers' DynamicCache; a cache written in "
        "place allocates nothing): each recomputation appends its entry to the one forward stored, a block of twice "
        "the size that replaces it and is held until backward ends, {} more once every block is recomputed. "
        "Uncertain: a cache that replaces its entry instead holds the recomputed one alone; turning the cache off "
        "in training (use_cache=False) frees it all",
        bytesText(kept_cached / static_cast<int64_t>(std::max<size_t>(1, fraction_n))),
        bytesText(kept_cached / static_cast<int64_t>(std::max<size_t>(1, fraction_n)))));
  if (kept_cached > 0) {
    r.may_be_lower_by += kept_cached / static_cast<int64_t>(std::max<size_t>(1, fraction_n));
    r.range_why += std::string(r.range_why.empty() ? "" : "; ") +
                   "a cache that replaces its entry on recomputation instead of appending to it (one forward's entries)";
  }
  if (before_cache_write > 0 && hold_before_cache) {
    r.reasoning.push_back(fmt::format(
        "kept to the end of backward: the tensors a block saves before its cache write ({} per forward). The "
        "recomputed cache entry is made by the recomputed ops and keeps their graph (its grad_fn) while the cache "
        "holds it, and that graph keeps what it saved on the way to the write (the Llama-style model's input norm, "
        "read by the key and value projections), where without the cache each would go in its block's backward. "
        "Uncertain: which of them the write depends on is the program's data flow, not in a recording (the range's "
        "low end frees them all as the recorded backward did)",
        bytesText(before_cache_write / static_cast<int64_t>(std::max<size_t>(1, fraction_n)))));
  }
  return r;
}

bool writesACache(const LadderInput& in) {
  for (const LadderBlock& b : in.blocks)
    if (b.cached) return true;
  return false;
}

}  // namespace

RungProgram checkpointRung(const LadderInput& in, int every, CheckpointForm form) {
  if (!writesACache(in)) return checkpointProgram(in, every, form, false);
  RungProgram held = checkpointProgram(in, every, form, true);
  if (!held.applicable) return held;
  // The low end: each saved tensor freed where the recorded backward freed it.
  const RungProgram freed = checkpointProgram(in, every, form, false);
  const auto peakOf = [&](const MemoryProgram& p) {
    const ProgramPeak k = programPeak(p, in);
    return in.cuda ? k.block_bytes : k.bytes;
  };
  if (const int64_t lower = peakOf(held.program) - peakOf(freed.program); lower > 0) {
    held.may_be_lower_by += lower;
    held.range_why += std::string(held.range_why.empty() ? "" : "; ") +
                      "the saved tensors before a block's cache write that the write does not depend on, freed in "
                      "their block's backward";
  }
  return held;
}

namespace {

// What type promotion keeps 4-byte under autocast, told by where a block was made: autocast casts
// only the inputs of the ops on its lists, and any other op of a 2-byte and a 4-byte tensor is
// 4-byte. Before the model's first repeated block nothing has met a lower-precision op (the
// embedding reads fp32 weights: it is on neither list), so what the forward makes there outside
// nn.Linear / nn.Conv code is 4-byte, the first block's input too; a repeated block that adds its
// input back (a residual connection, written in the block's own forward) then makes a 4-byte sum,
// and so every block after it. The block's own forward is the shallowest code of a block's ops.
struct Promotion {
  std::vector<bool> keep;  // blocks kept 4-byte
  int64_t stream_bytes = 0;  // the residual stream's size (one block's input), 0 when none
  int64_t prologue = 0, residual = 0;  // bytes kept so, over the run
};
Promotion promotedFp32(const LadderInput& in, const std::vector<bool>& scaled) {
  Promotion p;
  p.keep.assign(in.blocks.size(), false);
  if (!in.stacks || !in.repeated.found()) return p;
  for (size_t mi = 0; mi < in.micro_steps.size() && mi < in.repeated.forward.size(); ++mi) {
    const MicroStep& m = in.micro_steps[mi];
    const std::vector<BlockSpan>& spans = in.repeated.forward[mi];
    if (spans.empty()) continue;
    // The first block's input: the largest block the prologue made that is alive when it starts.
    int64_t input_bytes = 0;
    AutocastOp input_op = AutocastOp::Unknown;
    for (uint32_t q = m.forward_begin; q < spans.front().begin; ++q) {
      const LadderOp& op = in.ops[q];
      const LadderBlock& b = in.blocks[op.block];
      if (!op.alloc || !scaled[op.block] || b.autocast == AutocastOp::BoolMask) continue;
      if (b.autocast != AutocastOp::LowPrecision) p.keep[op.block] = true, p.prologue += b.bytes;
      if (survives(b, spans.front().begin) && b.bytes > input_bytes) input_bytes = b.bytes, input_op = b.autocast;
    }
    if (input_bytes == 0 || input_op == AutocastOp::LowPrecision) continue;
    p.stream_bytes = input_bytes;
    for (const BlockSpan& span : spans) {
      uint16_t own = UINT16_MAX;  // the depth of the block's own forward
      for (uint32_t q = span.begin; q < span.end; ++q)
        if (in.ops[q].alloc && in.blocks[in.ops[q].block].depth > 0)
          own = std::min(own, in.blocks[in.ops[q].block].depth);
      for (uint32_t q = span.begin; q < span.end; ++q) {
        const LadderBlock& b = in.blocks[in.ops[q].block];
        if (in.ops[q].alloc && b.depth == own && b.bytes == input_bytes && b.autocast == AutocastOp::Unknown &&
            scaled[in.ops[q].block])
          p.keep[in.ops[q].block] = true, p.residual += b.bytes;
      }
    }
  }
  return p;
}

// The largest input block (category input, past kFixedUpTo) alive at each forward's start, asked
// for at positions that never go back: one sweep over the inputs for the whole run, not one per
// micro-step (a 12,000-step recording took 17 s in the per-step scan).
class AliveInputs {
 public:
  explicit AliveInputs(const LadderInput& in) : in_(in) {
    for (uint32_t b = 0; b < in.blocks.size(); ++b)
      if (in.blocks[b].category == Category::Input && in.blocks[b].bytes > kFixedUpTo) by_alloc_.push_back(b);
    std::stable_sort(by_alloc_.begin(), by_alloc_.end(),
                     [&](uint32_t a, uint32_t b) { return in.blocks[a].alloc_op < in.blocks[b].alloc_op; });
  }
  // Alive at op `at`: allocated before it (or before the run), not freed before it.
  int64_t largestAliveAt(uint32_t at) {
    for (; next_ < by_alloc_.size(); ++next_) {
      const LadderBlock& blk = in_.blocks[by_alloc_[next_]];
      if (blk.alloc_op >= 0 && static_cast<uint32_t>(blk.alloc_op) >= at) break;
      alive_.emplace(blk.free_op < 0 ? UINT32_MAX : static_cast<uint32_t>(blk.free_op), blk.bytes);
      sizes_.insert(blk.bytes);
    }
    while (!alive_.empty() && alive_.top().first < at) {
      sizes_.erase(sizes_.find(alive_.top().second));
      alive_.pop();
    }
    return sizes_.empty() ? 0 : *sizes_.rbegin();
  }

 private:
  const LadderInput& in_;
  std::vector<uint32_t> by_alloc_;
  size_t next_ = 0;
  // (free op, bytes) of the inputs allocated so far and not yet seen freed, soonest freed on top.
  std::priority_queue<std::pair<uint32_t, int64_t>, std::vector<std::pair<uint32_t, int64_t>>, std::greater<>> alive_;
  std::multiset<int64_t> sizes_;
};

// The blocks forward has made and not freed, by their recorded size. Autocast casts a 2-byte input
// of a float32-list op up to 4 bytes while the op runs (and transformers' loss does so itself with
// .float(), a no-op in an fp32 run): a copy beside the op's output that the recording cannot show.
// The op's input is told by size: the float32-list ops that make a block of the batch's size
// (layer_norm, softmax, log_softmax under cross_entropy, pow) make it in their input's shape, so the
// input is the latest block of that size still alive, made by other code than the op's own line (a
// GELU's `0.5 * input` comes before its torch.pow); where that one is 4-byte (a residual stream
// that type promotion keeps fp32, an RMSNorm's own cast) there is nothing to cast.
class AliveBySize {
 public:
  void made(uint32_t block, int64_t bytes) { alive_[bytes].push_back(block); }
  void freed(uint32_t block, int64_t bytes) {
    auto it = alive_.find(bytes);
    if (it == alive_.end()) return;
    auto& v = it->second;
    if (auto b = std::find(v.begin(), v.end(), block); b != v.end()) v.erase(b);
    if (v.empty()) alive_.erase(it);
  }
  // The latest of that size made by other code than `op`'s (UINT32_MAX: none).
  uint32_t inputOf(const LadderBlock& op, const LadderInput& in) const {
    auto it = alive_.find(op.bytes);
    if (it == alive_.end()) return UINT32_MAX;
    for (auto b = it->second.rbegin(); b != it->second.rend(); ++b)
      if (!sameCode(in.blocks[*b], op)) return *b;
    return UINT32_MAX;
  }

 private:
  std::unordered_map<int64_t, std::vector<uint32_t>> alive_;
};

// A linear layer autocast runs in 2 bytes (nn.Linear, nn.Conv, torch.addmm) casts a 4-byte input to
// a 2-byte copy and saves that copy for backward, not the input: autocast caches only the weights'
// casts, so every layer reading the same 4-byte tensor (q, k and v projections of an RMSNorm's fp32
// output, Conv1D after layer_norm) makes and keeps its own, and the 4-byte tensor goes once the last
// of them has read it. A recording does not name a layer's input: it is taken as the most recent
// block forward made and has not freed, outside linear layers — of the op that made it, its largest
// (layer_norm makes its output, then its mean and rstd). An input the fp32 run freed in forward was
// not saved (it needs no gradient): nothing is kept for it.
struct LinearInputs {
  std::unordered_map<uint32_t, uint32_t> input_of;     // a layer's op -> the 4-byte block it reads
  std::unordered_map<uint32_t, uint32_t> last_reader;  // that block -> its last reader's op
};
template <class KeptFourByte>
LinearInputs linearInputs(const LadderInput& in, const MicroStep& m, const std::vector<bool>& scaled,
                          const KeptFourByte& kept_four_byte) {
  LinearInputs out;
  std::vector<uint32_t> made;  // forward's blocks outside linear layers, in order
  for (uint32_t q = m.forward_begin; q < m.backward_begin; ++q) {
    const LadderOp& op = in.ops[q];
    if (!op.alloc || !scaled[op.block]) continue;
    const LadderBlock& b = in.blocks[op.block];
    if (b.autocast != AutocastOp::LowPrecision) {
      if (b.autocast != AutocastOp::BoolMask) made.push_back(op.block);
      continue;
    }
    while (!made.empty() && !survives(in.blocks[made.back()], q)) made.pop_back();
    if (made.empty()) continue;
    uint32_t input = made.back();
    for (size_t i = made.size() - 1, seen = 0; i > 0 && seen < 8; --i, ++seen) {
      const LadderBlock& x = in.blocks[made[i - 1]];
      if (!sameCode(x, in.blocks[made.back()])) break;
      if (survives(x, q) && x.bytes > in.blocks[input].bytes) input = made[i - 1];
    }
    if (!kept_four_byte(input) || !survives(in.blocks[input], m.backward_begin)) continue;
    out.input_of[q] = input;
    out.last_reader[input] = q;
  }
  return out;
}

// unnamed_fp32: the blocks of ops the stacks do not name kept 4-byte (the range's other end).
RungProgram autocastProgram(const LadderInput& in, LowPrecision dtype, bool unnamed_fp32) {
  RungProgram r;
  const std::vector<bool> scaled = batchScaledBlocks(in);
  Emitter e(in, scaled);
  auto half = [](int64_t b) { return (b + 1) / 2; };
  // What stays as it was: blocks made by an op autocast runs in fp32 (by the torch.nn.functional
  // call in their stack), dropout's bool masks, and, in backward (no stacks there), the blocks of a
  // size such an fp32 op made in forward: their gradients, which keep their tensor's dtype.
  const Promotion promoted = promotedFp32(in, scaled);
  std::unordered_set<int64_t> fp32_sizes;
  for (uint32_t b = 0; b < in.blocks.size(); ++b)
    if (scaled[b] && inForward(in.blocks[b].born) &&
        (in.blocks[b].autocast == AutocastOp::Float32 ||
         (unnamed_fp32 && in.blocks[b].autocast == AutocastOp::Unknown)))
      fp32_sizes.insert(in.blocks[b].bytes);
  if (promoted.stream_bytes > 0) fp32_sizes.insert(promoted.stream_bytes);  // the stream's gradient
  int64_t kept_fp32 = 0, kept_by_source = 0, kept_masks = 0, kept_backward = 0, halved_unknown_forward = 0;
  // What the rung keeps 4-byte, without counting it (lowers() below counts).
  auto kept_four_byte = [&](uint32_t id) {
    const LadderBlock& blk = in.blocks[id];
    if (!scaled[id] || blk.autocast == AutocastOp::BoolMask) return false;
    if (blk.autocast == AutocastOp::Float32 || promoted.keep[id]) return true;
    return unnamed_fp32 && inForward(blk.born) && blk.autocast == AutocastOp::Unknown;
  };
  auto lowers = [&](uint32_t id) {
    const LadderBlock& blk = in.blocks[id];
    if (!scaled[id]) return false;
    if (blk.autocast == AutocastOp::Float32) return (blk.fp32_by_source ? kept_by_source : kept_fp32) += blk.bytes, false;
    if (promoted.keep[id]) return false;
    if (blk.autocast == AutocastOp::BoolMask) return kept_masks += blk.bytes, false;
    if (blk.born == StepPart::Backward && fp32_sizes.count(blk.bytes)) return kept_backward += blk.bytes, false;
    if (inForward(blk.born) && blk.autocast == AutocastOp::Unknown) {
      if (unnamed_fp32) return false;
      halved_unknown_forward += blk.bytes;
    }
    return true;
  };
  // The data the first layer reads: the largest input alive when a forward starts.
  int64_t casts_total = 0, halved_total = 0, input_cast = 0, input_casts_total = 0, gradient_bytes = 0;
  int64_t upcasts_total = 0;
  size_t weights = 0, upcasts = 0;
  AliveBySize alive_by_size;
  std::vector<bool> lowered(in.blocks.size(), false);
  bool previous_by_source = false;
  uint32_t previous_code = 0;
  // This micro-step's linear layers given a 4-byte input, and their copies, freed where the fp32 run
  // freed the input (its earliest reader's backward: the one that held it last).
  LinearInputs linear_inputs;
  std::map<uint32_t, std::vector<uint32_t>> copies_freed_at;  // op position -> copies freed before it
  int64_t linear_copies_total = 0, linear_inputs_freed = 0;
  size_t linear_copies = 0;
  // A float32-list op that keeps its input (a GELU's torch.pow, layer_norm) keeps autocast's 4-byte
  // copy of a 2-byte input until backward instead; the 2-byte input then goes once the op (or its
  // line of source) has run.
  const MicroStep* step = nullptr;  // the micro-step whose forward runs, when it has a backward
  uint32_t input_after_line = UINT32_MAX;
  int64_t saved_upcasts_total = 0;
  size_t saved_upcasts = 0;
  auto forwardOp = [&](uint32_t q) {
    const LadderOp& op = in.ops[q];
    const LadderBlock& blk = in.blocks[op.block];
    if (op.alloc && input_after_line != UINT32_MAX &&
        !(blk.fp32_by_source && previous_by_source && blk.code == previous_code)) {
      e.free(input_after_line);
      alive_by_size.freed(input_after_line, in.blocks[input_after_line].bytes);
      input_after_line = UINT32_MAX;
    }
    if (auto it = linear_inputs.input_of.find(q); it != linear_inputs.input_of.end()) {
      const LadderBlock& x = in.blocks[it->second];
      const uint32_t copy = e.program.alloc(half(x.bytes), BlockRole::InputCast, true);
      copies_freed_at[x.free_op < 0 ? static_cast<uint32_t>(in.ops.size()) : static_cast<uint32_t>(x.free_op)]
          .push_back(copy);
      linear_copies_total += half(x.bytes);
      ++linear_copies;
    }
    if (!op.alloc) {
      alive_by_size.freed(op.block, blk.bytes);
      e.free(op.block);
      return;
    }
    uint32_t up = UINT32_MAX;
    // A line of source read as Float32 makes many blocks (a hand-written GELU: one expression); only
    // its float32-list op casts, once: the first of the line's blocks in a row.
    const bool line_continues = blk.fp32_by_source && previous_by_source && blk.code == previous_code;
    previous_by_source = blk.fp32_by_source;
    previous_code = blk.code;
    bool up_saved = false;
    const uint32_t input = scaled[op.block] && blk.autocast == AutocastOp::Float32 && !line_continues
                               ? alive_by_size.inputOf(blk, in)
                               : UINT32_MAX;
    if (input != UINT32_MAX && lowered[input]) {
      up = e.program.alloc(blk.bytes, BlockRole::UpCast, true);
      upcasts_total += blk.bytes;
      ++upcasts;
      const LadderBlock& x = in.blocks[input];
      if (step && blk.float32_saves_input && survives(x, step->backward_begin)) {
        up_saved = true;
        copies_freed_at[x.free_op < 0 ? static_cast<uint32_t>(in.ops.size()) : static_cast<uint32_t>(x.free_op)]
            .push_back(up);
        saved_upcasts_total += blk.bytes;
        ++saved_upcasts;
        input_after_line = input;
      }
    }
    const bool low = lowers(op.block);
    e.alloc(op.block, low ? half(blk.bytes) : blk.bytes);
    if (low) halved_total += blk.bytes - half(blk.bytes), lowered[op.block] = true;
    if (scaled[op.block]) alive_by_size.made(op.block, blk.bytes);
    if (up != UINT32_MAX && !up_saved) e.program.free(up);
    if (auto it = linear_inputs.input_of.find(q); it != linear_inputs.input_of.end() &&
                                                  linear_inputs.last_reader[it->second] == q && e.alive(it->second)) {
      e.free(it->second);  // its readers keep their copies: nothing else holds it for backward
      alive_by_size.freed(it->second, in.blocks[it->second].bytes);
      linear_inputs_freed += in.blocks[it->second].bytes;
    }
  };
  auto freeCopiesAt = [&](uint32_t q) {
    if (auto it = copies_freed_at.find(q); it != copies_freed_at.end()) {
      for (uint32_t c : it->second) e.program.free(c);
      copies_freed_at.erase(it);
    }
  };
  uint32_t pos = 0;
  AliveInputs inputs(in);
  for (const MicroStep& m : in.micro_steps) {
    for (; pos < m.forward_begin; ++pos) e.replay(in.ops[pos]);
    if (!m.hasBackward()) {
      linear_inputs = {};
      step = nullptr;
      for (; pos < m.end; ++pos) forwardOp(pos);
      continue;
    }
    linear_inputs = linearInputs(in, m, scaled, kept_four_byte);
    step = &m;
    // The gradients this backward makes, in order; those made after the last saved activation
    // is freed belong to layers that saved no weight (their input needs no gradient).
    std::vector<uint32_t> grads;
    uint32_t last_activation_free = m.backward_begin;
    for (uint32_t q = m.backward_begin; q < m.end; ++q) {
      const LadderOp& op = in.ops[q];
      if (op.alloc && in.blocks[op.block].category == Category::Gradient && in.blocks[op.block].bytes > 0)
        grads.push_back(q);
      if (!op.alloc && scaled[op.block] && inForward(in.blocks[op.block].born)) last_activation_free = q;
    }
    const int64_t largest_input = inputs.largestAliveAt(m.forward_begin);
    std::map<uint32_t, uint32_t> cast_of;  // gradient op -> its weight's cast
    int64_t made_gradients = 0;
    std::vector<uint32_t> unsaved;
    for (uint32_t q : grads) {
      const uint32_t c = e.program.alloc(half(in.blocks[in.ops[q].block].bytes), BlockRole::WeightCast);
      casts_total += half(in.blocks[in.ops[q].block].bytes);
      made_gradients += in.blocks[in.ops[q].block].bytes;
      ++weights;
      if (q > last_activation_free) unsaved.push_back(c);
      else cast_of[q] = c;
    }
    uint32_t input_copy = UINT32_MAX;
    if (largest_input > 0) {
      input_copy = e.program.alloc(half(largest_input), BlockRole::InputCast, true);
      input_cast = half(largest_input);
      input_casts_total += input_cast;
    }
    for (; pos < m.backward_begin; ++pos) forwardOp(pos);
    if (input_after_line != UINT32_MAX) {
      e.free(input_after_line);
      alive_by_size.freed(input_after_line, in.blocks[input_after_line].bytes);
      input_after_line = UINT32_MAX;
    }
    gradient_bytes = std::max(gradient_bytes, made_gradients);
    for (uint32_t c : unsaved) e.program.free(c);  // the cast cache empties when forward's autocast region ends
    // The layer's backward step makes the 2-byte gradient; autocast's cast of the weight is an op of
    // its own, whose backward casts that gradient to the fp32 one kept: a separate step, run once the
    // layer's step has ended (its temporaries and incoming gradient freed, its saved tensors — the
    // weight's copy, the first layer's input copy — released).
    struct CastBack {
      uint32_t grad = 0;  // the recorded fp32 gradient
      uint32_t low = 0;   // its 2-byte copy in the program
      uint32_t cast = UINT32_MAX;
    };
    std::map<uint32_t, std::vector<CastBack>> cast_back;  // op position -> what happens before it
    std::map<uint32_t, bool> frees_input_copy;
    if (!grads.empty() && input_copy != UINT32_MAX) frees_input_copy[nodeEnd(in, grads.back(), m.end)] = true;
    auto runCastBacks = [&](uint32_t at) {
      if (auto it = cast_back.find(at); it != cast_back.end()) {
        for (const CastBack& c : it->second) {
          if (c.cast != UINT32_MAX) e.program.free(c.cast);
          e.alloc(c.grad, in.blocks[c.grad].bytes);
          e.program.free(c.low);
        }
        cast_back.erase(it);
      }
      if (frees_input_copy.count(at) && input_copy != UINT32_MAX) e.program.free(input_copy), input_copy = UINT32_MAX;
    };
    for (; pos < m.end; ++pos) {
      runCastBacks(pos);
      freeCopiesAt(pos);
      const LadderOp& op = in.ops[pos];
      const int64_t b = in.blocks[op.block].bytes;
      if (!op.alloc) {
        e.free(op.block);
        continue;
      }
      if (in.blocks[op.block].category == Category::Gradient && std::find(grads.begin(), grads.end(), pos) != grads.end()) {
        CastBack c{op.block, e.program.alloc(half(b), BlockRole::LowPrecisionGrad)};
        if (auto it = cast_of.find(pos); it != cast_of.end()) c.cast = it->second, cast_of.erase(it);
        cast_back[nodeEnd(in, pos, m.end)].push_back(c);
        continue;
      }
      const bool low = lowers(op.block);
      e.alloc(op.block, low ? half(b) : b);
      if (low) halved_total += b - half(b);
    }
    runCastBacks(m.end);
    for (const auto& [q, copies] : copies_freed_at)
      for (uint32_t c : copies) e.program.free(c);
    copies_freed_at.clear();
    for (const auto& [q, c] : cast_of) e.program.free(c);
    if (input_copy != UINT32_MAX) e.program.free(input_copy);
  }
  for (; pos < in.ops.size(); ++pos) e.replay(in.ops[pos]);
  r.program = std::move(e.program);
  const size_t passes = std::max<size_t>(1, in.micro_steps.size());
  // Each weight's copy reads 4 bytes an element and writes 2; its gradient's cast back reads 2 and
  // writes 4; so does the input's copy in forward.
  // An up-cast reads 2 bytes an element and writes 4: 1.5 times its 4-byte size.
  r.cast_traffic = (6 * casts_total + 3 * (input_casts_total + linear_copies_total) + 3 * upcasts_total / 2) /
                   static_cast<int64_t>(passes);
  r.gradient_bytes = gradient_bytes;
  const auto per_pass = [&](int64_t b) { return bytesText(b / static_cast<int64_t>(passes)); };
  r.reasoning.push_back(fmt::format(
      "activations, their gradients and temporaries (the blocks that scale with the batch) become 2-byte: {} less "
      "allocated per forward + backward",
      bytesText(halved_total / static_cast<int64_t>(passes))));
  r.reasoning.push_back(fmt::format(
      "autocast keeps a 2-byte copy of each of the {} weights ({} in all) from forward until its gradient is made; the "
      "layer whose gradient comes after every saved activation is gone (the first: its input needs no gradient) keeps "
      "its copy only through forward",
      weights / passes, bytesText(casts_total / static_cast<int64_t>(passes))));
  r.reasoning.push_back(
      "each weight's gradient is made in 2 bytes by its layer's backward step; the weight's cast back to fp32 is a "
      "step of its own, after the layer's has ended (its temporaries and incoming gradient freed, the weight's copy "
      "and the first layer's input copy released): only then is the fp32 gradient made and the 2-byte one freed");
  if (input_cast > 0)
    r.reasoning.push_back(fmt::format("the first layer saves a 2-byte copy of the input ({})", bytesText(input_cast)));
  if (linear_copies > 0)
    r.reasoning.push_back(fmt::format(
        "a linear layer given a 4-byte input (the output of a norm, a GELU or a line that type promotion keeps "
        "fp32) saves its own 2-byte copy of it for backward, not the input (autocast caches only the weights' casts): "
        "{} such layer{} per forward, {} of copies, and the 4-byte inputs ({}) go once their last reader has run. "
        "Uncertain: a layer's input is taken as the most recent tensor made before it; a layer that reads an older "
        "one (Llama's up_proj reads the norm's output after gate_proj and its activation ran) is not seen",
        linear_copies / passes, linear_copies / passes == 1 ? "" : "s", per_pass(linear_copies_total),
        per_pass(linear_inputs_freed)));
  if (upcasts > 0)
    r.reasoning.push_back(fmt::format(
        "a float32-list op given a 2-byte input (the loss's log_softmax on a Linear's logits) reads a 4-byte copy of "
        "it, beside its output while it runs: {} such op{} per forward, {} of copies (an fp32 run makes none)",
        upcasts / passes, upcasts / passes == 1 ? "" : "s", per_pass(upcasts_total)));
  if (saved_upcasts > 0)
    r.reasoning.push_back(fmt::format(
        "of those, {} per forward keep their input for backward (a GELU's torch.pow, layer_norm): they keep the "
        "4-byte copy ({} per forward) until backward instead of the 2-byte input, which goes once its line has run. "
        "Uncertain: where another op of a later line also keeps the 2-byte input, it stays too",
        saved_upcasts / passes, per_pass(saved_upcasts_total)));
  if (in.stacks) {
    r.reasoning.push_back(fmt::format(
        "stay 4-byte: what ops on autocast's float32 list make (layer_norm, softmax, log_softmax, cross_entropy, ...: "
        "the torch.nn.functional call in the block's stack), {} per forward, and in backward, whose blocks have no "
        "stack, the blocks of those sizes (their gradients), {} per backward",
        per_pass(kept_fp32), per_pass(kept_backward)));
    if (!in.fp32_source_lines.empty()) {
      std::string lines;
      for (size_t i = 0; i < in.fp32_source_lines.size() && i < 4; ++i)
        lines += (i ? ", " : "") + in.fp32_source_lines[i];
      if (in.fp32_source_lines.size() > 4) lines += fmt::format(" and {} more", in.fp32_source_lines.size() - 4);
      r.reasoning.push_back(fmt::format(
          "stay 4-byte, by the program's source (the lines its stacks name, read on this machine): what a line that "
          "calls a float32-list op with no torch.nn.functional frame (torch.pow, rsqrt, exp, ...) or casts to "
          "float32 makes, taken whole (type promotion keeps the rest of the expression 4-byte): {} per forward ({})",
          per_pass(kept_by_source), lines));
    }
    if (kept_masks > 0)
      r.reasoning.push_back(fmt::format("dropout's masks (a byte an element) do not change: {} per forward",
                                        per_pass(kept_masks)));
    if (promoted.prologue + promoted.residual > 0)
      r.reasoning.push_back(fmt::format(
          "stay 4-byte by type promotion (autocast casts only the inputs of ops on its lists; any other op of a "
          "2-byte and a 4-byte tensor is 4-byte): what forward makes before the first repeated block outside "
          "nn.Linear / nn.Conv code ({} per forward: the embedding reads fp32 weights, so the first block's input "
          "is fp32), and the residual stream, the sums of a block's input ({}) written in the block's own forward "
          "({} per forward), with their gradients",
          per_pass(promoted.prologue), bytesText(promoted.stream_bytes), per_pass(promoted.residual)));
    r.reasoning.push_back(fmt::format(
        "uncertain, not in a recording: {} per forward made by ops the stacks do not name are taken as 2-byte{}. A "
        "Python stack names the line, not the op: a float32-list op called without a torch.nn.functional frame "
        "(torch.pow in a hand-written GELU, rsqrt, exp, mean) makes its result 4-byte and type promotion keeps "
        "the rest of that expression 4-byte; so does an fp32 buffer or tensor used directly (rotary's cos and sin, "
        "handed from another module) or an explicit .float() that no float32-list op reads; "
        "a lower-precision op other than a linear layer (attention, matmul) given a 4-byte input saves its own "
        "2-byte copy of it: where they do, the peak is higher than predicted, up to the peak with all of "
        "them (and their gradients) 4-byte; blocks made in nn.Linear or nn.Conv code are 2-byte whatever their input",
        per_pass(halved_unknown_forward),
        in.source_lines_unread > 0
            ? fmt::format(" ({} of the lines they name could not be read here to tell)", in.source_lines_unread)
            : std::string()));
  } else {
    r.reasoning.push_back(
        "uncertain: the recording has no Python stacks (a C++ program, or stacks off), so the ops autocast runs in "
        "fp32 cannot be told: every activation is taken as 2-byte; where the program normalises, takes a softmax or "
        "a loss over many classes, the peak is higher than predicted");
  }
  r.reasoning.push_back(std::string("parameters, gradients and optimizer state stay fp32") +
                        (dtype == LowPrecision::Float16 ? "; fp16 adds a loss scaler (a few bytes)" : ""));
  return r;
}

}  // namespace

RungProgram autocastRung(const LadderInput& in, LowPrecision dtype) {
  if (!in.autocast.empty()) {
    RungProgram r;
    r.applicable = false;
    r.why_not = "the run already autocasts (" + in.autocast + ")";
    return r;
  }
  RungProgram r = autocastProgram(in, dtype, false);
  if (in.stacks) {
    r.upper_program = autocastProgram(in, dtype, true).program;
    r.range_why =
        "low end: the ops the stacks do not name run in 2 bytes; high end: they, and their gradients, stay 4-byte "
        "(float32-list ops without a torch.nn.functional frame and what type promotion keeps 4-byte after them, an "
        "fp32 buffer used directly, .float()): a recording has no dtypes, and its stacks name lines, not "
        "ops";
  }
  return r;
}

int64_t gradientBytesOfABackward(const LadderInput& in) {
  int64_t most = 0, params = 0;
  for (const MicroStep& m : in.micro_steps) {
    int64_t made = 0;
    for (uint32_t q = m.backward_begin; q < m.end && q < in.ops.size(); ++q)
      if (in.ops[q].alloc && in.blocks[in.ops[q].block].category == Category::Gradient) made += in.blocks[in.ops[q].block].bytes;
    most = std::max(most, made);
  }
  if (most > 0) return most;
  for (const LadderBlock& b : in.blocks)
    if (b.category == Category::Parameter && b.alloc_op < 0) params += b.bytes;
  return params;
}

RungProgram shardingRung(const LadderInput& in, Sharding kind, int n) {
  RungProgram r;
  if (n < 2) {
    r.applicable = false;
    r.why_not = "sharding needs at least 2 devices";
    return r;
  }
  const std::vector<bool> scaled = batchScaledBlocks(in);
  auto shard = [&](int64_t b) { return (b + n - 1) / n; };
  const bool grads = kind != Sharding::Zero1, params = kind == Sharding::Full;
  MemoryProgram p;
  std::vector<uint32_t> id(in.blocks.size(), 0);
  std::vector<bool> alive(in.blocks.size(), false);
  int64_t state = 0, opt_work = 0, grad_bytes = 0, param_bytes = 0;
  auto bytesFor = [&](uint32_t b, bool& sharded) {
    const LadderBlock& blk = in.blocks[b];
    sharded = blk.category == Category::OptimizerState || (blk.born == StepPart::Optimizer && blk.bytes > kFixedUpTo) ||
              (params && blk.category == Category::Parameter);
    return sharded ? shard(blk.bytes) : blk.bytes;
  };
  for (uint32_t b = 0; b < in.blocks.size(); ++b)
    if (in.blocks[b].alloc_op < 0) {
      bool sh = false;
      id[b] = p.persistent(bytesFor(b, sh), roleOf(in.blocks[b].category));
      alive[b] = true;
      if (in.blocks[b].category == Category::OptimizerState) state += in.blocks[b].bytes;
      if (in.blocks[b].category == Category::Parameter) param_bytes += in.blocks[b].bytes;
    }
  // Full sharding gathers one unit's parameters at a time: a repeated block's (the largest
  // gradient made between two blocks' recomputation points stands for it), or the whole model.
  int64_t unit = 0;
  if (params) {
    const int64_t all_grads = gradientBytesOfABackward(in);
    unit = in.repeated.found() ? all_grads / static_cast<int64_t>(in.repeated.count + 1) : std::max(all_grads, param_bytes);
  }
  const int64_t gathered_bytes = in.repeated.found() ? 2 * unit : unit;  // the next unit prefetched, when there are several
  uint32_t gathered = UINT32_MAX;
  size_t next_micro = 0;
  for (uint32_t q = 0; q < in.ops.size(); ++q) {
    if (params) {
      while (next_micro < in.micro_steps.size() && in.micro_steps[next_micro].end <= q) ++next_micro;
      const bool at_begin = next_micro < in.micro_steps.size() && in.micro_steps[next_micro].forward_begin == q;
      if (at_begin && unit > 0) gathered = p.alloc(gathered_bytes, BlockRole::GatheredParameter);
    }
    const LadderOp& op = in.ops[q];
    const LadderBlock& blk = in.blocks[op.block];
    if (!op.alloc) {
      if (alive[op.block]) p.free(id[op.block]), alive[op.block] = false;
    } else if (grads && blk.category == Category::Gradient) {
      const uint32_t whole = p.alloc(blk.bytes, BlockRole::CollectiveBuffer);
      id[op.block] = p.alloc(shard(blk.bytes), BlockRole::Gradient);
      alive[op.block] = true;
      p.free(whole);
      grad_bytes += blk.bytes;
    } else {
      bool sh = false;
      id[op.block] = p.alloc(bytesFor(op.block, sh), roleOf(blk.category), scaled[op.block]);
      alive[op.block] = true;
      if (blk.category == Category::OptimizerState) state += blk.bytes;
      else if (sh) opt_work += blk.bytes;
    }
    if (params && gathered != UINT32_MAX && next_micro < in.micro_steps.size() && in.micro_steps[next_micro].end == q + 1) {
      p.free(gathered);
      gathered = UINT32_MAX;
    }
  }
  if (gathered != UINT32_MAX) p.free(gathered);
  r.program = std::move(p);
  r.reasoning.push_back(fmt::format("per device, each running this batch; optimizer state ({}) divided by {} (ZeRO-1)",
                                    bytesText(state), n));
  r.reasoning.push_back(fmt::format("the optimizer's working memory ({} allocated in its steps) divided by {}: each "
                                    "device steps only its shard",
                                    bytesText(opt_work), n));
  if (grads)
    r.reasoning.push_back(fmt::format(
        "gradients ({} made) kept as 1/{} shards: each exists whole until it is reduce-scattered (one at a time here; "
        "bucketing holds a bucket's worth)",
        bytesText(grad_bytes), n));
  if (params)
    r.reasoning.push_back(fmt::format(
        "parameters ({}) divided by {}; during forward and backward {} ({})",
        bytesText(param_bytes), n,
        in.repeated.found() ? fmt::format("one unit's parameters are gathered whole and the next one prefetched: 2 × {}", bytesText(unit))
                            : fmt::format("the one unit's parameters are gathered whole: {}", bytesText(unit)),
        in.repeated.found() ? "a unit: a repeated block, its parameters taken as one backward's gradients over the blocks + 1"
                            : "no repeated blocks to wrap: the whole model is one unit"));
  r.reasoning.push_back("NCCL's own buffers are outside PyTorch's allocator and not counted");
  if (kind != Sharding::Full && state > 0) {
    // PyTorch's ZeroRedundancyOptimizer shards by whole parameters: largest first, each to the rank
    // holding least so far; a flat split (DeepSpeed) gives every rank 1/N. A rank's state lies between
    // the lightest and the heaviest rank's share of that partition.
    std::vector<int64_t> sizes;
    int64_t param_total = 0;
    for (const LadderBlock& b : in.blocks)
      if (b.category == Category::Parameter && b.bytes > 0) sizes.push_back(b.bytes), param_total += b.bytes;
    std::sort(sizes.rbegin(), sizes.rend());
    std::vector<int64_t> load(static_cast<size_t>(n), 0);
    for (int64_t sz : sizes) *std::min_element(load.begin(), load.end()) += sz;
    if (param_total > 0) {
      const double per_byte = static_cast<double>(state) / static_cast<double>(param_total);
      const auto share = [&](int64_t l) { return static_cast<int64_t>(static_cast<double>(l) * per_byte); };
      const int64_t even = shard(state);
      const int64_t lightest = share(*std::min_element(load.begin(), load.end()));
      const int64_t heaviest = share(*std::max_element(load.begin(), load.end()));
      r.may_be_lower_by = std::max<int64_t>(0, even - lightest);
      r.may_be_higher_by = std::max<int64_t>(0, heaviest - even);
      if (r.may_be_lower_by > 0 || r.may_be_higher_by > 0) {
        r.range_why = fmt::format(
            "ZeroRedundancyOptimizer gives each rank whole parameters (largest first, to the least-loaded rank): "
            "its ranks hold {} to {} of the optimizer state here, not 1/{} ({}) each as a flat split does",
            bytesText(lightest), bytesText(heaviest), n, bytesText(even));
        r.reasoning.push_back("uncertain: " + r.range_why);
      }
    }
  }
  return r;
}

}  // namespace sawtooth
