// The Mann-Whitney U test. See mann_whitney.h.
#include "collector/diff/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace brrr::diff {

MannWhitney MannWhitneyTest(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  MannWhitney r;
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  if (x.empty() || y.empty()) return r;
  std::vector<std::pair<int64_t, int>> all;  // value, sample (0: x)
  all.reserve(x.size() + y.size());
  for (int64_t v : x) all.emplace_back(v, 0);
  for (int64_t v : y) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  // Midranks; the tie term sum(t^3 - t).
  double rank_sum_x = 0, ties = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i) + 1 + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_x += midrank;
    }
    ties += t * t * t - t;
    i = j;
  }
  r.u = rank_sum_x - n1 * (n1 + 1) / 2;
  const double n = n1 + n2;
  const double mean = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return r;  // every value the same: no evidence of a shift
  const double z = (std::fabs(r.u - mean) - 0.5) / std::sqrt(variance);
  r.p = std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
  return r;
}

}  // namespace brrr::diff
