// Tests for ActivityBuffers: filling, rollover to bufferCompleted, flush of partial buffers,
// record limits, dropped records, concurrency (every record exactly once).
#include "activity_buffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "fake_buffer_client.h"
#include "record_builders.h"

namespace simcuda::cupti {
namespace {

using testing::As;
using testing::BufferPolicy;
using testing::ReturnedBuffers;
using testing::ReturnedRecords;

constexpr size_t kApiRecordSize = sizeof(CUpti_ActivityAPI);  // 40

CUpti_ActivityAPI ApiRecord(uint32_t correlation_id) {
  ApiEvent e{};
  e.domain = ApiDomain::kRuntime;
  e.correlation_id = correlation_id;
  return MakeApiRecord(e, ClockOffset{});
}

void AppendApi(ActivityBuffers& buffers, uint32_t correlation_id) {
  const CUpti_ActivityAPI r = ApiRecord(correlation_id);
  buffers.Append(&r, sizeof(r));
}

std::vector<uint32_t> ReturnedCorrelationIds() {
  std::vector<uint32_t> ids;
  for (const auto& bytes : ReturnedRecords())
    ids.push_back(As<CUpti_ActivityAPI>(bytes).correlationId);
  return ids;
}

bool WaitForReturnedBuffers(size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ReturnedBuffers().size() >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

class ActivityBuffersTest : public ::testing::Test {
 protected:
  void Use(BufferPolicy policy) {
    testing::ResetFakeClient(policy);
    ASSERT_EQ(buffers_.RegisterCallbacks(&testing::RequestBuffer, &testing::CompleteBuffer),
              CUPTI_SUCCESS);
  }
  ActivityBuffers buffers_;
};

TEST_F(ActivityBuffersTest, NullCallbacksAreRejected) {
  EXPECT_EQ(buffers_.RegisterCallbacks(nullptr, &testing::CompleteBuffer),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(buffers_.RegisterCallbacks(&testing::RequestBuffer, nullptr),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_FALSE(buffers_.HasCallbacks());
}

TEST_F(ActivityBuffersTest, FlushWithoutCallbacksIsInvalidOperation) {
  EXPECT_EQ(buffers_.FlushAll(), CUPTI_ERROR_INVALID_OPERATION);
}

TEST_F(ActivityBuffersTest, RecordsWithoutCallbacksAreDropped) {
  AppendApi(buffers_, 1);
  AppendApi(buffers_, 2);
  EXPECT_EQ(buffers_.TakeDroppedCount(), 2u);
  EXPECT_EQ(buffers_.TakeDroppedCount(), 0u);  // reading resets
}

TEST_F(ActivityBuffersTest, PartialBufferIsDeliveredOnlyByFlush) {
  Use({.buffer_size = 4096});
  AppendApi(buffers_, 1);
  AppendApi(buffers_, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(ReturnedBuffers().empty());
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  const auto returned = ReturnedBuffers();
  ASSERT_EQ(returned.size(), 1u);
  EXPECT_EQ(returned[0].size, 4096u);
  EXPECT_EQ(returned[0].valid_size, 2 * kApiRecordSize);
  EXPECT_EQ(ReturnedCorrelationIds(), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(testing::OutstandingBufferCount(), 0u);
}

// cuptiActivityFlushPeriod as documented by NVIDIA: a periodic flush returns only full buffers.
// A partly filled buffer outlives several periods and needs a default (0) flush; a full one is
// delivered within one period without any flush.
TEST_F(ActivityBuffersTest, FlushPeriodDeliversFullBuffersButNotAPartialOne) {
  Use({.buffer_size = 3 * kApiRecordSize + 16});
  buffers_.SetFlushPeriodMs(5);
  EXPECT_EQ(buffers_.FlushPeriodMs(), 5u);
  AppendApi(buffers_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // six periods
  EXPECT_TRUE(ReturnedBuffers().empty());
  AppendApi(buffers_, 2);
  AppendApi(buffers_, 3);  // full
  const auto full_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitForReturnedBuffers(1));
  EXPECT_LT(std::chrono::steady_clock::now() - full_at, std::chrono::milliseconds(1000));
  AppendApi(buffers_, 4);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(ReturnedBuffers().size(), 1u);
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  EXPECT_EQ(ReturnedCorrelationIds(), (std::vector<uint32_t>{1, 2, 3, 4}));
  buffers_.SetFlushPeriodMs(0);
  EXPECT_EQ(buffers_.FlushPeriodMs(), 0u);
}

TEST_F(ActivityBuffersTest, FullBuffersRollOverToWorkerThreadEveryRecordOnce) {
  Use({.buffer_size = 3 * kApiRecordSize + 16});  // room for 3 records, then full
  for (uint32_t id = 1; id <= 10; ++id) AppendApi(buffers_, id);
  // 3 full buffers are handed over without a flush, on CUPTI's own thread.
  ASSERT_TRUE(WaitForReturnedBuffers(3));
  for (const auto& buffer : ReturnedBuffers()) {
    EXPECT_EQ(buffer.valid_size, 3 * kApiRecordSize);
    EXPECT_NE(buffer.thread, std::this_thread::get_id());
  }
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  EXPECT_EQ(ReturnedBuffers().size(), 4u);
  EXPECT_EQ(ReturnedCorrelationIds(), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(buffers_.TakeDroppedCount(), 0u);
  EXPECT_EQ(testing::RequestedBufferCount(), 4u);
}

TEST_F(ActivityBuffersTest, MaxNumRecordsLimitsRecordsPerBuffer) {
  Use({.buffer_size = 4096, .max_records = 2});
  for (uint32_t id = 1; id <= 5; ++id) AppendApi(buffers_, id);
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  const auto returned = ReturnedBuffers();
  ASSERT_EQ(returned.size(), 3u);
  size_t total = 0;
  for (const auto& buffer : returned) {
    EXPECT_LE(buffer.valid_size, 2 * kApiRecordSize);
    total += buffer.valid_size;
  }
  EXPECT_EQ(total, 5 * kApiRecordSize);
  std::vector<uint32_t> ids = ReturnedCorrelationIds();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2, 3, 4, 5}));
}

TEST_F(ActivityBuffersTest, NoBufferFromClientDropsAndCounts) {
  Use({.buffer_size = 0});
  for (uint32_t id = 1; id <= 3; ++id) AppendApi(buffers_, id);
  EXPECT_EQ(buffers_.TakeDroppedCount(), 3u);
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  EXPECT_TRUE(ReturnedRecords().empty());
}

TEST_F(ActivityBuffersTest, TooSmallBufferIsReturnedEmptyAndRecordDropped) {
  Use({.buffer_size = 16});
  AppendApi(buffers_, 1);
  EXPECT_EQ(buffers_.TakeDroppedCount(), 1u);
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  const auto returned = ReturnedBuffers();
  ASSERT_EQ(returned.size(), 1u);  // handed back so the client can free it
  EXPECT_EQ(returned[0].valid_size, 0u);
  EXPECT_EQ(testing::OutstandingBufferCount(), 0u);
}

TEST_F(ActivityBuffersTest, RecordsOfDifferentSizesArePackedBackToBack) {
  Use({.buffer_size = 4096});
  AppendApi(buffers_, 1);
  const auto correlation =
      MakeExternalCorrelationRecord(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 9, 2);
  buffers_.Append(&correlation, sizeof(correlation));
  AppendApi(buffers_, 3);
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  const auto returned = ReturnedBuffers();
  ASSERT_EQ(returned.size(), 1u);
  EXPECT_EQ(returned[0].valid_size, 40u + 24u + 40u);
  const auto records = ReturnedRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(testing::KindOf(records[1]), CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[2]).correlationId, 3u);
}

TEST_F(ActivityBuffersTest, ConcurrentAppendsDeliverEveryRecordExactlyOnce) {
  Use({.buffer_size = 10 * kApiRecordSize});
  constexpr uint32_t kThreads = 4;
  constexpr uint32_t kPerThread = 2000;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (uint32_t i = 0; i < kPerThread; ++i) AppendApi(buffers_, t * kPerThread + i + 1);
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(buffers_.FlushAll(), CUPTI_SUCCESS);
  const std::vector<uint32_t> ids = ReturnedCorrelationIds();
  EXPECT_EQ(ids.size(), kThreads * kPerThread);
  const std::set<uint32_t> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), kThreads * kPerThread);
  EXPECT_EQ(*unique.begin(), 1u);
  EXPECT_EQ(*unique.rbegin(), kThreads * kPerThread);
  EXPECT_EQ(buffers_.TakeDroppedCount(), 0u);
  EXPECT_EQ(testing::OutstandingBufferCount(), 0u);
}

TEST_F(ActivityBuffersTest, DestructionReturnsHeldBuffers) {
  testing::ResetFakeClient({.buffer_size = 4096});
  {
    ActivityBuffers buffers;
    ASSERT_EQ(buffers.RegisterCallbacks(&testing::RequestBuffer, &testing::CompleteBuffer),
              CUPTI_SUCCESS);
    AppendApi(buffers, 1);
  }
  EXPECT_EQ(testing::OutstandingBufferCount(), 0u);
  EXPECT_EQ(ReturnedCorrelationIds(), (std::vector<uint32_t>{1}));
}

}  // namespace
}  // namespace simcuda::cupti
