// Tests for SubscriberSlot: one subscriber at a time, unsubscribe frees the slot, stale handles,
// a foreign tool holding the slot.
#include "subscriber_slot.h"

#include <gtest/gtest.h>

#include <string>

namespace simcuda::cupti {
namespace {

TEST(SubscriberSlotTest, SecondSubscriberIsRefusedUntilTheFirstLeaves) {
  SubscriberSlot slot;
  CUpti_SubscriberHandle first = nullptr;
  CUpti_SubscriberHandle second = nullptr;
  ASSERT_EQ(slot.Subscribe(&first, nullptr, nullptr, "brrr", nullptr, 0), CUPTI_SUCCESS);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(slot.IsActive(first));

  char old_name[64] = {};
  EXPECT_EQ(slot.Subscribe(&second, nullptr, nullptr, "other", old_name, sizeof(old_name)),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(std::string(old_name), "CUPTI for brrr");
  EXPECT_EQ(second, nullptr);

  ASSERT_EQ(slot.Unsubscribe(first), CUPTI_SUCCESS);
  EXPECT_FALSE(slot.IsActive(first));
  ASSERT_EQ(slot.Subscribe(&second, nullptr, nullptr, nullptr, nullptr, 0), CUPTI_SUCCESS);
  EXPECT_NE(second, first);  // a stale handle never names the new subscriber
  EXPECT_EQ(slot.Unsubscribe(first), CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_TRUE(slot.IsActive(second));
}

TEST(SubscriberSlotTest, InvalidArguments) {
  SubscriberSlot slot;
  EXPECT_EQ(slot.Subscribe(nullptr, nullptr, nullptr, nullptr, nullptr, 0),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(slot.Unsubscribe(nullptr), CUPTI_ERROR_INVALID_PARAMETER);
}

TEST(SubscriberSlotTest, OldNameIsTruncatedToTheGivenSize) {
  SubscriberSlot slot;
  CUpti_SubscriberHandle first = nullptr;
  CUpti_SubscriberHandle second = nullptr;
  ASSERT_EQ(slot.Subscribe(&first, nullptr, nullptr, "long-name", nullptr, 0), CUPTI_SUCCESS);
  char old_name[6];
  EXPECT_EQ(slot.Subscribe(&second, nullptr, nullptr, nullptr, old_name, sizeof(old_name)),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(std::string(old_name), "CUPTI");
}

TEST(SubscriberSlotTest, ForeignToolHoldsTheSlotForGood) {
  SubscriberSlot slot;
  slot.OccupyByForeignTool("Nsight Systems");
  CUpti_SubscriberHandle handle = nullptr;
  char old_name[64] = {};
  EXPECT_EQ(slot.Subscribe(&handle, nullptr, nullptr, "brrr", old_name, sizeof(old_name)),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(std::string(old_name), "CUPTI for Nsight Systems");
  slot.Release();
  EXPECT_EQ(slot.Subscribe(&handle, nullptr, nullptr, "brrr", nullptr, 0),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
}

TEST(SubscriberSlotTest, ReleaseFreesAnOrdinarySubscriber) {
  SubscriberSlot slot;
  CUpti_SubscriberHandle handle = nullptr;
  ASSERT_EQ(slot.Subscribe(&handle, nullptr, nullptr, nullptr, nullptr, 0), CUPTI_SUCCESS);
  slot.Release();
  EXPECT_FALSE(slot.IsActive(handle));
  EXPECT_EQ(slot.Subscribe(&handle, nullptr, nullptr, nullptr, nullptr, 0), CUPTI_SUCCESS);
}

}  // namespace
}  // namespace simcuda::cupti
