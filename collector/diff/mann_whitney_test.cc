// MannWhitneyTest against values worked by hand (the normal approximation with tie and
// continuity corrections, as scipy.stats.mannwhitneyu(method="asymptotic") computes it).
#include "collector/diff/mann_whitney.h"

#include "gtest/gtest.h"

namespace brrr::diff {
namespace {

// x = {1, 2, 3}, y = {4, 5, 6}: rank sum of x 6, U = 0; mean 4.5, variance 9/12 x 7 = 5.25;
// z = (4.5 - 0.5) / sqrt(5.25) = 1.7457; p = erfc(z / sqrt 2) = 0.08086.
TEST(MannWhitneyTest, SeparatedSamples) {
  const MannWhitney r = MannWhitneyTest({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p, 0.0808556, 1e-6);
}

// x = {1, 1, 2}, y = {1, 2, 2}: midranks 2 (the three 1s) and 5 (the three 2s); rank sum of x
// 9, U = 3; ties 2 x (27 - 3) = 48, variance 9/12 x (7 - 48/30) = 4.05;
// z = (1.5 - 0.5) / sqrt(4.05) = 0.4969; p = 0.61926.
TEST(MannWhitneyTest, TiesUseMidranksAndTheCorrection) {
  const MannWhitney r = MannWhitneyTest({1, 1, 2}, {1, 2, 2});
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_NEAR(r.p, 0.6192568, 1e-6);
}

TEST(MannWhitneyTest, IdenticalOrEmptySamplesShowNothing) {
  EXPECT_DOUBLE_EQ(MannWhitneyTest({5, 5, 5}, {5, 5}).p, 1.0);
  EXPECT_DOUBLE_EQ(MannWhitneyTest({}, {1, 2}).p, 1.0);
  EXPECT_DOUBLE_EQ(MannWhitneyTest({1, 2, 3, 4}, {1, 2, 3, 4}).p, 1.0);
}

// 30 steps of ~60 ms against 30 of ~40 ms: far below 0.01; and the order of the samples only
// changes U's side, not p.
TEST(MannWhitneyTest, AClearShiftIsSignificant) {
  std::vector<int64_t> before, after;
  for (int i = 0; i < 30; ++i) {
    before.push_back(60'000'000 + (i * 7919) % 500'000);
    after.push_back(40'000'000 + (i * 104729) % 500'000);
  }
  const MannWhitney r = MannWhitneyTest(before, after);
  EXPECT_LT(r.p, 1e-9);
  EXPECT_DOUBLE_EQ(r.u, 900);  // every value of `before` above every value of `after`
  EXPECT_DOUBLE_EQ(MannWhitneyTest(after, before).p, r.p);
}

}  // namespace
}  // namespace brrr::diff
