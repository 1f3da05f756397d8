// The job merge's fuzz entry point under gtest: the checked-in seeds (testdata/job_merge_corpus,
// the libFuzzer target's starting corpus) merge with the rows worked out by hand and break no
// invariant, every truncation and a sweep of byte flips of a seed break none either, and the
// input is cut into pieces as job_merge_fuzz_entry.h says.
#include <fstream>
#include <sstream>
#include <string>

#include "collector/job/job_merge_fuzz_entry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::job {
namespace {

using ::testing::ElementsAre;

std::string Seed(const std::string& name) {
  std::ifstream in(std::string(BRRR_JOB_MERGE_CORPUS) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

JobMergeFuzzOutcome MergeBytes(const std::string& bytes) {
  return FuzzJobMerge(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(JobMergeFuzzTest, PiecesAreCutAtTheSeparatorUpToEight) {
  EXPECT_THAT(SplitFuzzPieces(""), ElementsAre(""));
  EXPECT_THAT(SplitFuzzPieces("a\xff"
                              "b\xff"),
              ElementsAre("a", "b", ""));
  // 9 separators: 7 cuts, the 8th piece keeps the rest with its separators.
  EXPECT_THAT(SplitFuzzPieces("0\xff"
                              "1\xff"
                              "2\xff"
                              "3\xff"
                              "4\xff"
                              "5\xff"
                              "6\xff"
                              "7\xff"
                              "8"),
              ElementsAre("0", "1", "2", "3", "4", "5", "6",
                          "7\xff"
                          "8"));
}

// one_rank: rank 0, device 0 (3 buckets of 1024 ns). two_ranks: and rank 1, devices 0 and 1:
// 3 rows. one_without_clock: and rank 2 with origin 0 (a file written before origins): its one
// device counted as left out. straggler: ranks 0-2 of 100 ms on one device each, host time
// outside CUDA 5, 5 and 60 ms: rank 2 is 55 ms (over 10 ms) and 12x (over 1.25x) above the
// median rank's 5 ms, so it is named. repeated_device_id (job_merge_fuzzer's first find): rank 0
// as in one_rank; pid 102 lists device 1 twice, which the reader rejects (a device is listed once;
// job_timeline.h would still give neither a row); a third piece that does not parse.
TEST(JobMergeFuzzTest, SeedsMergeAsWorkedOut) {
  struct Case {
    const char* name;
    size_t pieces, merged, kept, left_out;
    int64_t straggler_rank;
  };
  for (const Case& c :
       {Case{"one_rank.bin", 1, 1, 1, 0, -1}, Case{"two_ranks.bin", 2, 2, 3, 0, -1},
        Case{"one_without_clock.bin", 3, 3, 3, 1, -1}, Case{"straggler.bin", 3, 3, 3, 0, 2},
        Case{"repeated_device_id.bin", 3, 1, 1, 0, -1}}) {
    const JobMergeFuzzOutcome o = MergeBytes(Seed(c.name));
    EXPECT_EQ(o.violation, "") << c.name;
    EXPECT_EQ(o.pieces, c.pieces) << c.name;
    EXPECT_EQ(o.merged, c.merged) << c.name;
    EXPECT_EQ(o.kept_rows, c.kept) << c.name;
    EXPECT_EQ(o.left_out, c.left_out) << c.name;
    EXPECT_EQ(o.straggler_rank, c.straggler_rank) << c.name;
  }
}

TEST(JobMergeFuzzTest, TruncationsAndByteFlipsBreakNoInvariant) {
  const std::string seed = Seed("one_without_clock.bin");
  for (size_t n = 0; n <= seed.size(); n += 7) {
    EXPECT_EQ(MergeBytes(seed.substr(0, n)).violation, "") << "truncated to " << n;
  }
  for (size_t i = 0; i < seed.size(); i += 9) {
    for (char to : {'0', '9', '-', '"', '\xff'}) {
      std::string bad = seed;
      bad[i] = to;
      EXPECT_EQ(MergeBytes(bad).violation, "") << "byte " << i << " -> " << static_cast<int>(to);
    }
  }
}

}  // namespace
}  // namespace brrr::job
