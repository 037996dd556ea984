#include "core/analysis/diff_top_sites.h"

#include <algorithm>

namespace sawtooth {

std::vector<size_t> topChangedRows(const TraceDiff& diff, size_t n) {
  std::vector<size_t> rows;
  for (size_t i = 0; i < diff.rows.size(); ++i)
    if (diff.rows[i].growth() != 0) rows.push_back(i);
  auto magnitude = [&](size_t i) {
    const int64_t g = diff.rows[i].growth();
    return g < 0 ? -static_cast<double>(g) : static_cast<double>(g);
  };
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return magnitude(a) > magnitude(b); });
  if (rows.size() > n) rows.resize(n);
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return diff.rows[a].growth() > diff.rows[b].growth(); });
  return rows;
}

}  // namespace sawtooth
