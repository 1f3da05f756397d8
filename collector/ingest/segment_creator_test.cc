// Tests of segment creation for `brrr run` and of mapping an existing segment by name.
#include "collector/ingest/segment_creator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "collector/ingest/segment_reader.h"
#include "collector/ingest/shm_mapping.h"

namespace brrr::ingest {
namespace {

using ::testing::HasSubstr;

ring::SegmentGeometry Small() {
  ring::SegmentGeometry g;
  g.max_threads = 4;
  g.ring_capacity = 64;
  g.device_capacity = 64;
  g.stack_slots = 16;
  g.name_slots = 16;
  return g;
}

TEST(SegmentCreatorTest, CreatesAPrivateSegmentTheReaderAccepts) {
  auto created = CreatedSegment::Create(Small());
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string name = (*created)->name();
  EXPECT_TRUE(IsValidShmName(name)) << name;
  struct stat st {};
  ASSERT_EQ(stat(("/dev/shm" + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), ring::ComputeLayout(Small()).segment_size);
  ShmMapping& mapping = (*created)->mapping();
  auto reader = SegmentReader::Open(mapping.base(), mapping.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->geometry().ring_capacity, 64u);
  const auto& header = *static_cast<ring::SegmentHeader*>(mapping.base());
  EXPECT_NE(header.start_mono_ns, 0u);
  EXPECT_TRUE(header.clock_kind == ring::ClockKind::kTsc ||
              header.clock_kind == ring::ClockKind::kMonotonicNs);
}

TEST(SegmentCreatorTest, OpenExistingSharesTheSameMemoryAndUnlinkRemovesTheName) {
  auto created = CreatedSegment::Create(Small());
  ASSERT_TRUE(created.ok());
  const std::string name = (*created)->name();
  auto other = ShmMapping::OpenExisting(name);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ((*other)->size(), (*created)->mapping().size());
  static_cast<ring::SegmentHeader*>((*other)->base())->collector_done.store(1);
  EXPECT_EQ(static_cast<ring::SegmentHeader*>((*created)->mapping().base())->collector_done.load(),
            1u);
  (*created)->Unlink();
  EXPECT_FALSE(ShmMapping::OpenExisting(name).ok());
}

TEST(SegmentCreatorTest, DestructionUnlinks) {
  std::string name;
  {
    auto created = CreatedSegment::Create(Small());
    ASSERT_TRUE(created.ok());
    name = (*created)->name();
  }
  struct stat st {};
  EXPECT_NE(stat(("/dev/shm" + name).c_str(), &st), 0);
}

TEST(SegmentCreatorTest, RejectsInvalidGeometry) {
  ring::SegmentGeometry g = Small();
  g.ring_capacity = 100;  // not a power of two
  auto created = CreatedSegment::Create(g);
  ASSERT_FALSE(created.ok());
  EXPECT_THAT(created.status().message(), HasSubstr("invalid segment geometry"));
}

TEST(ShmMappingTest, RejectsBadNamesAndMissingSegments) {
  EXPECT_FALSE(ShmMapping::OpenExisting("no-slash").ok());
  EXPECT_FALSE(ShmMapping::OpenExisting("/a/b").ok());
  EXPECT_FALSE(ShmMapping::OpenExisting("/").ok());
  auto missing = ShmMapping::OpenExisting("/brrr-test-does-not-exist-42");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("shm_open"));
}

}  // namespace
}  // namespace brrr::ingest
