// Tests of the deferred reasons of callback copies: the memcpy record decides direction and
// pageable memory; without it a copy is decided by what its call says, on expiry or at Finish;
// the cap decides at once; nothing is decided twice.
#include "collector/analysis/pending_copy_stalls.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace brrr {
namespace {

constexpr uint8_t kDtoH = 2, kHtoD = 1;                     // CUpti_ActivityMemcpyKind
constexpr uint8_t kPageable = 1, kPinned = 2, kDevice = 3;  // CUpti_ActivityMemoryKind

class PendingCopyStallsTest : public ::testing::Test {
 protected:
  PendingCopyStalls::Copy RuntimeCopy(Api api, int64_t seen_at) {
    PendingCopyStalls::Copy c;
    c.key = 7;
    c.facts.api = api;
    c.stack_id = 3;
    c.duration_ns = 50'000;
    c.seen_at = seen_at;
    return c;
  }
  PendingCopyStalls::Copy DriverCopy(const char* name) {
    PendingCopyStalls::Copy c = RuntimeCopy(Api::kUnknown, 0);
    c.cupti_name = name;
    return c;
  }
  static DeviceOp Memcpy(uint32_t corr, uint8_t kind, uint8_t src, uint8_t dst) {
    DeviceOp op;
    op.kind = DeviceOpKind::kMemcpy;
    op.correlation_id = corr;
    op.copy_kind = kind;
    op.src_kind = src;
    op.dst_kind = dst;
    return op;
  }

  std::vector<std::pair<uint32_t, StallReason>> decided;  // (stack id, reason)
  PendingCopyStalls pending{1'000'000, 4, [this](const PendingCopyStalls::Copy& c, StallReason r) {
                              decided.emplace_back(c.stack_id, r);
                            }};
};

TEST_F(PendingCopyStallsTest, MemcpyRecordDecidesDirectionAndPageableMemory) {
  pending.Hold(10, RuntimeCopy(Api::kCudaMemcpy, 0));
  pending.Hold(11, RuntimeCopy(Api::kCudaMemcpyAsync, 0));
  pending.Hold(12, RuntimeCopy(Api::kCudaMemcpyAsync, 0));
  EXPECT_TRUE(decided.empty());
  pending.OnMemcpy(Memcpy(10, kDtoH, kDevice, kPageable));
  pending.OnMemcpy(Memcpy(11, kDtoH, kDevice, kPageable));
  pending.OnMemcpy(Memcpy(12, kHtoD, kPinned, kDevice));
  pending.OnMemcpy(Memcpy(10, kDtoH, kDevice, kPageable));  // a second record: nothing more
  ASSERT_EQ(decided.size(), 3u);
  EXPECT_EQ(decided[0].second, StallReason::kD2hCopy);
  EXPECT_EQ(decided[1].second, StallReason::kPageableAsyncCopy);
  EXPECT_EQ(decided[2].second, StallReason::kAsyncCopyBlocked);
  EXPECT_EQ(pending.size(), 0u);
}

TEST_F(PendingCopyStallsTest, DriverCopiesAreClassifiedByNameAndRecord) {
  pending.Hold(20, DriverCopy("cuMemcpyAsync"));
  pending.OnMemcpy(Memcpy(20, kHtoD, kPageable, kDevice));
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].second, StallReason::kPageableAsyncCopy);
}

TEST_F(PendingCopyStallsTest, WithoutARecordDecidedOnExpiryOrFinish) {
  pending.Hold(30, RuntimeCopy(Api::kCudaMemcpy, 0));
  pending.Hold(31, RuntimeCopy(Api::kCudaMemcpy, 900'000));
  pending.Expire(1'500'000);  // only the first is older than the window
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].second, StallReason::kSyncCopy);  // direction unknown
  pending.Finish();
  EXPECT_EQ(decided.size(), 2u);
  EXPECT_EQ(pending.size(), 0u);
}

TEST_F(PendingCopyStallsTest, OverTheCapOrWithoutCorrelationDecidedAtOnce) {
  for (uint32_t id = 40; id < 44; ++id) pending.Hold(id, RuntimeCopy(Api::kCudaMemcpy, 0));
  EXPECT_TRUE(decided.empty());
  pending.Hold(44, RuntimeCopy(Api::kCudaMemcpy, 0));  // the cap is 4
  pending.Hold(0, RuntimeCopy(Api::kCudaMemcpy, 0));   // no correlation id to wait for
  EXPECT_EQ(decided.size(), 2u);
  EXPECT_EQ(pending.size(), 4u);
}

}  // namespace
}  // namespace brrr
