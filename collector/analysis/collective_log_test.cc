// CollectiveLogBuilder: which kernels are collectives, per-stream order, the cap.
#include "collector/analysis/collective_log.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;

TEST(IsCollectiveKernelNameTest, NcclNamesPlainAndMangled) {
  EXPECT_TRUE(IsCollectiveKernelName("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  EXPECT_TRUE(IsCollectiveKernelName("_Z38ncclDevKernel_AllReduce_Sum_f32_RING_LLPf"));
  EXPECT_TRUE(IsCollectiveKernelName("_ZL25ncclKernel_AllGather_RING"));
  EXPECT_TRUE(IsCollectiveKernelName("ncclKernel_Broadcast_RING_LL_Sum_int8_t"));
  EXPECT_FALSE(IsCollectiveKernelName("my_ncclDevKernel_copy"));
  EXPECT_FALSE(IsCollectiveKernelName("_Z12some_kernelPf"));
  EXPECT_FALSE(IsCollectiveKernelName("_Z"));
  EXPECT_FALSE(IsCollectiveKernelName("_ZncclDevKernel_AllReduce"));  // no length: not mangled
  EXPECT_FALSE(IsCollectiveKernelName(""));
  EXPECT_FALSE(IsCollectiveKernelName("nvshmem_barrier_all"));
}

TEST(CollectiveLogBuilderTest, NoCollectiveNoLog) {
  CollectiveLogBuilder b;
  b.AddKernel("_Z4gemmPf", 7, 100, 200);
  EXPECT_FALSE(b.Build().has_value());
}

TEST(CollectiveLogBuilderTest, StreamsByFirstCollectiveEachInStartOrder) {
  CollectiveLogBuilder b;
  b.AddKernel("ncclDevKernel_AllReduce", 14, 500, 900);
  b.AddKernel("_Z4gemmPf", 7, 100, 200);
  b.AddKernel("ncclDevKernel_AllGather", 13, 300, 400);
  b.AddKernel("ncclDevKernel_AllReduce", 14, 200, 250);    // delivered late: goes first
  b.AddKernel("ncclDevKernel_AllReduce", 14, 1'000, 990);  // end before start: clamped
  const std::optional<CollectiveLog> log = b.Build();
  ASSERT_TRUE(log.has_value());
  EXPECT_EQ(log->count, 4u);
  ASSERT_EQ(log->streams.size(), 2u);
  EXPECT_EQ(log->streams[0].stream_id, 14u);
  EXPECT_THAT(log->streams[0].start_ns, ElementsAre(200, 500, 1'000));
  EXPECT_THAT(log->streams[0].end_ns, ElementsAre(250, 900, 1'000));
  EXPECT_EQ(log->streams[1].stream_id, 13u);
  EXPECT_THAT(log->streams[1].start_ns, ElementsAre(300));
}

// With name ids, each id's verdict is taken from its name once; ids do not mix.
TEST(CollectiveLogBuilderTest, NameIdsKeepEachNamesVerdict) {
  CollectiveLogBuilder b;
  b.AddKernel("ncclDevKernel_AllReduce", 14, 100, 200, /*name_id=*/2);
  b.AddKernel("_Z4gemmPf", 7, 150, 160, /*name_id=*/3);
  b.AddKernel("ncclDevKernel_AllReduce", 14, 300, 400, 2);
  b.AddKernel("_Z4gemmPf", 7, 350, 360, 3);
  const std::optional<CollectiveLog> log = b.Build();
  ASSERT_TRUE(log.has_value());
  EXPECT_EQ(log->count, 2u);
  ASSERT_EQ(log->streams.size(), 1u);
  EXPECT_THAT(log->streams[0].start_ns, ElementsAre(100, 300));
}

TEST(CollectiveLogBuilderTest, KeepsTheFirstUpToTheCapAndCountsAll) {
  CollectiveLogBuilder b;
  for (size_t i = 0; i < kMaxCollectivesKept + 10; ++i) {
    b.AddKernel("ncclDevKernel_AllReduce", 14, static_cast<int64_t>(i) * 10, 0);
  }
  const std::optional<CollectiveLog> log = b.Build();
  ASSERT_TRUE(log.has_value());
  EXPECT_EQ(log->count, kMaxCollectivesKept + 10);
  ASSERT_EQ(log->streams.size(), 1u);
  EXPECT_EQ(log->streams[0].start_ns.size(), kMaxCollectivesKept);
  EXPECT_EQ(log->streams[0].start_ns.back(), static_cast<int64_t>(kMaxCollectivesKept - 1) * 10);
}

}  // namespace
}  // namespace brrr
