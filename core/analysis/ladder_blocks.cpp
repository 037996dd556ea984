#include "core/analysis/ladder_blocks.h"

#include <fmt/format.h>

namespace sawtooth {
namespace {

// Forwards longer than this are not searched (the search is quadratic in the forward's ops);
// module data finds blocks in any length.
constexpr size_t kMaxSearchedOps = 16384;

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// A forward's allocation pattern: one value per op (size and whether it allocates), and the op each
// value stands for. Blocks made in a forward and never freed in the run are left out: a library's
// workspace made on first use (cuBLAS), or a cache kept across steps, is made once, not by every
// layer, and would otherwise break the first layer's pattern so that the blocks found start inside
// a layer.
struct Signature {
  std::vector<uint64_t> values;
  std::vector<uint32_t> ops;
};

Signature forwardSignature(const LadderInput& in, const MicroStep& m) {
  Signature sig;
  sig.values.reserve(m.backward_begin - m.forward_begin);
  sig.ops.reserve(m.backward_begin - m.forward_begin);
  for (uint32_t i = m.forward_begin; i < m.backward_begin; ++i) {
    const LadderOp& op = in.ops[i];
    if (in.blocks[op.block].free_op < 0) continue;
    sig.values.push_back(mix(static_cast<uint64_t>(in.blocks[op.block].bytes) * 2 + (op.alloc ? 1 : 0)));
    sig.ops.push_back(i);
  }
  return sig;
}

}  // namespace

Repetition longestRepetition(const std::vector<uint64_t>& sig, size_t min_period) {
  Repetition best;
  const size_t n = sig.size();
  if (n < 2 * std::max<size_t>(min_period, 1)) return best;
  // Polynomial hashes of every window, from prefix hashes (arithmetic modulo 2^64): O(1) a window.
  constexpr uint64_t kBase = 0x100000001b3ULL;
  std::vector<uint64_t> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] * kBase + mix(sig[i]);
  std::vector<uint64_t> window(n);
  std::vector<uint32_t> run(n);
  uint64_t power = 1;
  for (size_t q = 0; q + 1 < std::max<size_t>(min_period, 1); ++q) power *= kBase;
  for (size_t p = std::max<size_t>(min_period, 1); 2 * p <= n; ++p) {
    power *= kBase;  // kBase^p
    const size_t windows = n - p + 1;
    for (size_t i = 0; i < windows; ++i) window[i] = prefix[i + p] - prefix[i] * power;
    // run[i]: how many periods after the one at i repeat it, one after another.
    for (size_t k = windows; k-- > 0;) {
      const size_t next = k + p;
      run[k] = next < windows && window[next] == window[k] ? run[next] + 1 : 0;
    }
    for (size_t i = 0; i < windows; ++i) {
      const size_t count = run[i] + 1;
      if (count < 2) continue;
      const size_t covered = count * p, best_covered = best.count * best.period;
      if (covered > best_covered || (covered == best_covered && count > best.count))
        best = Repetition{i, p, count};
    }
  }
  if (best.count < 2) return Repetition{};
  // Confirm the winner element by element (hash sums can collide); shorten it where it does not hold.
  size_t confirmed = 1;
  while (confirmed < best.count) {
    bool same = true;
    for (size_t q = 0; q < best.period && same; ++q)
      same = sig[best.start + confirmed * best.period + q] == sig[best.start + q];
    if (!same) break;
    ++confirmed;
  }
  best.count = confirmed;
  return best.count >= 2 ? best : Repetition{};
}

RepeatedBlocks repeatedBlocksFromPattern(const LadderInput& in) {
  RepeatedBlocks out;
  const MicroStep* first = nullptr;
  for (const MicroStep& m : in.micro_steps)
    if (m.hasBackward()) {
      first = &m;
      break;
    }
  if (!first) {
    out.source = "no forward followed by a backward in the run";
    return out;
  }
  const Signature first_sig = forwardSignature(in, *first);
  const std::vector<uint64_t>& model = first_sig.values;
  if (model.size() > kMaxSearchedOps) {
    out.source = fmt::format("not searched: the forward has {} allocator events (more than {})", model.size(),
                             kMaxSearchedOps);
    return out;
  }
  const Repetition rep = longestRepetition(model);
  if (rep.count < 2) {
    out.source = "no repeated blocks: no stretch of the forward allocates the same sizes in the same order twice";
    return out;
  }
  out.count = rep.count;
  out.name = "repeating allocation pattern";
  out.source = fmt::format(
      "{}: the forward allocates the same {} events {} times in a row (events {} to {} of {}), taken as {} identical "
      "blocks",
      in.recorded_modules ? "from the allocation pattern (the recording's modules are not used to find blocks yet)"
                          : "no module data",
      rep.period, rep.count, rep.start, rep.start + rep.period * rep.count, model.size(), rep.count);
  for (const MicroStep& m : in.micro_steps) {
    std::vector<BlockSpan> spans;
    if (m.hasBackward()) {
      const Signature signature = forwardSignature(in, m);
      const std::vector<uint64_t>& sig = signature.values;
      Repetition r = rep;
      if (sig != model) {
        // The same layers, give or take one whose pattern the first forward interrupted (a
        // library's workspace made on first use): the same period is enough.
        r = longestRepetition(sig);
        if (r.period != rep.period) r = Repetition{};
      }
      // A block's ops run from its first value's op to the next block's (the last block: to the op
      // after its last value), so an op left out of the pattern belongs to the block it falls in.
      for (size_t b = 0; b < r.count; ++b) {
        const size_t first_value = r.start + b * r.period, end_value = first_value + r.period;
        const uint32_t begin = signature.ops[first_value];
        const uint32_t end = end_value < signature.ops.size() && b + 1 < r.count ? signature.ops[end_value]
                                                                                 : signature.ops[end_value - 1] + 1;
        spans.push_back(BlockSpan{begin, end});
      }
    }
    out.forward.push_back(std::move(spans));
  }
  return out;
}

}  // namespace sawtooth
