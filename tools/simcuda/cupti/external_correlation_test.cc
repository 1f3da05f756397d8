// Tests for the external correlation stacks: LIFO per kind, independent per thread, errors.
#include "external_correlation.h"

#include <gtest/gtest.h>

#include <thread>

namespace simcuda::cupti {
namespace {

TEST(ExternalCorrelationTest, PopOnEmptyStackIsQueueEmpty) {
  uint64_t id = 7;
  EXPECT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id),
            CUPTI_ERROR_QUEUE_EMPTY);
  EXPECT_EQ(id, 7u);
}

TEST(ExternalCorrelationTest, InvalidKindsAreRejected) {
  uint64_t id = 0;
  EXPECT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_INVALID, 1),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_SIZE, 1),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(PushExternalCorrelationId(static_cast<CUpti_ExternalCorrelationKind>(-3), 1),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_SIZE, &id),
            CUPTI_ERROR_INVALID_PARAMETER);
}

TEST(ExternalCorrelationTest, StackIsLastInFirstOutPerKind) {
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1), CUPTI_SUCCESS);
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 2), CUPTI_SUCCESS);
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 30), CUPTI_SUCCESS);

  ExternalCorrelationTops tops = CurrentExternalCorrelationTops();
  ASSERT_EQ(tops.count, 2u);
  EXPECT_EQ(tops.entries[0].kind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  EXPECT_EQ(tops.entries[0].id, 2u);
  EXPECT_EQ(tops.entries[1].kind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
  EXPECT_EQ(tops.entries[1].id, 30u);

  uint64_t id = 0;
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id), CUPTI_SUCCESS);
  EXPECT_EQ(id, 2u);
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr),
            CUPTI_SUCCESS);
  EXPECT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id),
            CUPTI_ERROR_QUEUE_EMPTY);
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id), CUPTI_SUCCESS);
  EXPECT_EQ(id, 30u);
  EXPECT_EQ(CurrentExternalCorrelationTops().count, 0u);
}

TEST(ExternalCorrelationTest, StacksArePerThread) {
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, 5), CUPTI_SUCCESS);
  std::thread other([] {
    EXPECT_EQ(CurrentExternalCorrelationTops().count, 0u);
    uint64_t id = 0;
    EXPECT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, &id),
              CUPTI_ERROR_QUEUE_EMPTY);
    EXPECT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, 6), CUPTI_SUCCESS);
  });
  other.join();
  uint64_t id = 0;
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, &id), CUPTI_SUCCESS);
  EXPECT_EQ(id, 5u);
}

}  // namespace
}  // namespace simcuda::cupti
