#include "core/analysis/ladder_blocks.h"

#include <fmt/format.h>

#include <cstdint>

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

RepeatedBlocks repeatedBlocksFromPattern(const LadderInput& in, bool has_modules) {
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
      has_modules ? "from the allocation pattern (tried before the module tree)" : "no module data",
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

RepeatedBlocks repeatedBlocksFromModules(const LadderInput& in, const ModuleTree& tree, uint16_t run) {
  RepeatedBlocks out;
  // The longest run of consecutive children of one class and parameter size (ties: the larger
  // blocks, then the earlier parent).
  uint32_t parent = kNoModule;
  std::vector<uint32_t> group;
  const auto children = tree.children();
  for (uint32_t p = 0; p < children.size(); ++p) {
    const std::vector<uint32_t>& c = children[p];
    for (size_t i = 0; i < c.size();) {
      size_t j = i + 1;
      while (j < c.size() && tree.modules[c[j]].class_name == tree.modules[c[i]].class_name &&
             tree.modules[c[j]].parameter_bytes == tree.modules[c[i]].parameter_bytes)
        ++j;
      const size_t n = j - i;
      const bool better = n >= 2 && (n > group.size() || (n == group.size() && !group.empty() &&
                                                          tree.modules[c[i]].parameter_bytes >
                                                              tree.modules[group[0]].parameter_bytes));
      if (better) {
        parent = p;
        group.assign(c.begin() + static_cast<std::ptrdiff_t>(i), c.begin() + static_cast<std::ptrdiff_t>(j));
      }
      i = j;
    }
  }
  if (group.size() < 2) {
    out.source = "no module has two children of one class in a row";
    return out;
  }
  std::vector<int32_t> position(tree.modules.size(), -1);
  for (size_t b = 0; b < group.size(); ++b) position[group[b]] = static_cast<int32_t>(b);
  std::vector<const ModuleCall*> calls;  // the group's forward calls, by begin time
  for (const ModuleCall& c : tree.calls)
    if (c.pass == Pass::Forward && c.module < position.size() && position[c.module] >= 0 &&
        (run == kNoRun || c.run == kNoRun || c.run == run))
      calls.push_back(&c);
  const Module& first = tree.modules[group[0]];
  // The first op of [from, to) at or after time t.
  auto opAt = [&](uint32_t from, uint32_t to, int64_t t) {
    while (from < to && in.ops[from].t_ns < t) ++from;
    return from;
  };
  size_t shown = 0, next_call = 0;
  for (const MicroStep& m : in.micro_steps) {
    std::vector<BlockSpan> spans;
    if (m.hasBackward() && m.backward_begin > m.forward_begin) {
      const int64_t lo = m.forward_begin > 0 ? in.ops[m.forward_begin - 1].t_ns : INT64_MIN;
      const int64_t hi = in.ops[m.backward_begin - 1].t_ns;
      while (next_call < calls.size() && calls[next_call]->begin_ns <= lo) ++next_call;
      std::vector<const ModuleCall*> mine;
      for (size_t k = next_call; k < calls.size() && calls[k]->begin_ns <= hi; ++k) mine.push_back(calls[k]);
      // Each block called once, in the list's order: anything else (a block called twice, one
      // skipped) shows no blocks for this forward.
      bool in_order = mine.size() == group.size();
      for (size_t b = 0; in_order && b < mine.size(); ++b) in_order = position[mine[b]->module] == static_cast<int32_t>(b);
      if (in_order) {
        uint32_t at = m.forward_begin;
        for (size_t b = 0; b < mine.size(); ++b) {
          const uint32_t begin = opAt(at, m.backward_begin, mine[b]->begin_ns);
          const uint32_t end = b + 1 < mine.size() ? opAt(begin, m.backward_begin, mine[b + 1]->begin_ns)
                                                   : opAt(begin, m.backward_begin, mine[b]->end_ns + 1);
          spans.push_back(BlockSpan{begin, end});
          at = end;
        }
        ++shown;
      }
    }
    out.forward.push_back(std::move(spans));
  }
  if (shown == 0) {
    out.forward.clear();
    out.source = fmt::format("the {} {} modules under {} are not called once each, in order, in any forward", group.size(),
                             first.class_name, tree.modules[parent].name);
    return out;
  }
  out.count = group.size();
  out.name = fmt::format("{} ({} × {})", tree.modules[parent].name, group.size(), first.class_name);
  out.source = fmt::format("from the module tree: the {} {} modules in a row under {}, each block's ops from its forward "
                           "call to the next block's ({} of {} forwards)",
                           group.size(), first.class_name, tree.modules[parent].name, shown, in.micro_steps.size());
  return out;
}

}  // namespace sawtooth
