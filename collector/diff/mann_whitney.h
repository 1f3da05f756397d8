// The Mann-Whitney U test (Wilcoxon rank-sum) of two samples: whether values of one tend to be
// larger than the other's, without assuming a distribution (step times are skewed and have
// outliers). Two-sided p-value from the normal approximation with the tie correction and a
// continuity correction (as in e.g. scipy.stats.mannwhitneyu(method="asymptotic")); fine from
// about 8 values per sample, and exact enough for a p < 0.01 decision.
//
// Must never: divide by zero (identical samples give p = 1), or read past either sample.
#ifndef BRRR_COLLECTOR_DIFF_MANN_WHITNEY_H_
#define BRRR_COLLECTOR_DIFF_MANN_WHITNEY_H_

#include <cstdint>
#include <vector>

namespace brrr::diff {

struct MannWhitney {
  double u = 0;  // U of the first sample
  double p = 1;  // two-sided
};

// p = 1 when either sample is empty.
MannWhitney MannWhitneyTest(const std::vector<int64_t>& x, const std::vector<int64_t>& y);

}  // namespace brrr::diff

#endif  // BRRR_COLLECTOR_DIFF_MANN_WHITNEY_H_
