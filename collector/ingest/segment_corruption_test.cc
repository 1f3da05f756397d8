// The reader against thousands of damaged segments (deterministic seed): random byte, word and
// index overwrites in the header, ring headers, records and tables (Python code slots included),
// applied before opening and between drains, plus truncated mappings. Runs the same entry point
// as the libFuzzer target, so gcc builds and CI cover it; under ASan any out-of-bounds read fails
// the test.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "collector/ingest/testing/segment_fuzz_entry.h"
#include "collector/ingest/testing/test_segment.h"
#include "shim/segment_layout.h"

namespace brrr::ingest::testing {
namespace {

const uint32_t kCodesOffset =
    static_cast<uint32_t>(ring::ComputeLayout(SmallGeometry()).codes_offset);

std::vector<uint8_t> RandomDamage(std::mt19937& random, int patches, bool truncate) {
  std::vector<uint8_t> data;
  data.push_back(truncate ? static_cast<uint8_t>(128 + random() % 128) : 0);
  // Offsets biased towards the header and ring headers, where the interesting fields are.
  for (int i = 0; i < patches; ++i) {
    const uint8_t width = random() % 4;
    const uint8_t phase = random() % 4;
    data.push_back(static_cast<uint8_t>(phase << 6 | width));
    // A third of the patches land in the header and ring headers, some in the first code slots
    // (the ones filled), the rest anywhere.
    const uint32_t where = random() % 6;
    const uint32_t offset = where < 2   ? random() % 5000
                            : where < 3 ? kCodesOffset + random() % (3 * sizeof(ring::CodeSlot))
                                        : random();
    data.push_back(offset & 0xff);
    data.push_back((offset >> 8) & 0xff);
    data.push_back((offset >> 16) & 0xff);
    const int bytes = 1 << width;
    const bool extreme = random() % 4 == 0;
    for (int b = 0; b < bytes; ++b) data.push_back(extreme ? 0xff : random() & 0xff);
  }
  return data;
}

TEST(SegmentCorruptionTest, ThousandsOfDamagedSegmentsNeverBreakTheInvariants) {
  std::mt19937 random(20240601);
  int opened = 0;
  uint64_t events = 0;
  constexpr int kIterations = 20000;
  for (int i = 0; i < kIterations; ++i) {
    const std::vector<uint8_t> data = RandomDamage(random, 1 + random() % 8, random() % 10 == 0);
    const FuzzOutcome outcome = FuzzSegmentReader(data.data(), data.size());
    ASSERT_EQ(outcome.violation, "") << "iteration " << i;
    opened += outcome.opened;
    events += outcome.events;
  }
  // The damage must leave many segments readable, or the test would not exercise draining.
  EXPECT_GT(opened, kIterations / 2);
  EXPECT_GT(events, 0u);
}

TEST(SegmentCorruptionTest, UndamagedSegmentDecodesEverything) {
  const uint8_t none[] = {0};
  const FuzzOutcome outcome = FuzzSegmentReader(none, sizeof(none));
  EXPECT_TRUE(outcome.opened);
  EXPECT_EQ(outcome.violation, "");
  // 7 host calls (one a sampled launch with Python frames) + 5 NVTX events + 6 device events (the
  // overhead record emits nothing) + 1 counter sample + 2 stacks (the other stack slot never
  // becomes ready) + 2 code objects (the third never becomes ready).
  EXPECT_EQ(outcome.events, 7u + 5u + 6u + 1u + 2u + 2u);
}

TEST(SegmentCorruptionTest, EveryTruncationIsRejectedCleanly) {
  for (int t = 128; t < 256; ++t) {
    const uint8_t data[] = {static_cast<uint8_t>(t)};
    const FuzzOutcome outcome = FuzzSegmentReader(data, sizeof(data));
    EXPECT_EQ(outcome.violation, "");
    EXPECT_FALSE(outcome.opened) << t;
  }
}

}  // namespace
}  // namespace brrr::ingest::testing
