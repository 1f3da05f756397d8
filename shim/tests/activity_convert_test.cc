// Tests of CUPTI record -> DeviceRecord conversion with hand-made records of the real structs.
#include "shim/activity_convert.h"

#include <gtest/gtest.h>

#include <cstring>

namespace brrr::shim {
namespace {

TEST(ActivityConvertTest, Kernel) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 2500;
  k.queued = 400;
  k.submitted = 700;
  k.correlationId = 77;
  k.streamId = 13;
  k.deviceId = 1;
  k.name = "_Z6kernelPf";
  ring::DeviceRecord out;
  const char* name = nullptr;
  ASSERT_TRUE(ConvertActivity(reinterpret_cast<CUpti_Activity*>(&k), &out, &name));
  EXPECT_EQ(out.kind, static_cast<uint8_t>(ring::DeviceKind::kKernel));
  EXPECT_EQ(out.start, 1000u);
  EXPECT_EQ(out.end, 2500u);
  EXPECT_EQ(out.queued, 400u);
  EXPECT_EQ(out.submitted, 700u);
  EXPECT_EQ(out.correlation_id, 77u);
  EXPECT_EQ(out.stream_id, 13u);
  EXPECT_EQ(out.device_id, 1u);
  EXPECT_STREQ(name, "_Z6kernelPf");
}

TEST(ActivityConvertTest, MemcpyKeepsKinds) {
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.bytes = 4096;
  m.start = 5;
  m.end = 9;
  m.correlationId = 3;
  ring::DeviceRecord out;
  const char* name = "x";
  ASSERT_TRUE(ConvertActivity(reinterpret_cast<CUpti_Activity*>(&m), &out, &name));
  EXPECT_EQ(name, nullptr);
  EXPECT_EQ(out.kind, static_cast<uint8_t>(ring::DeviceKind::kMemcpy));
  EXPECT_EQ(out.bytes, 4096u);
  EXPECT_EQ(out.copy_kind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
  EXPECT_EQ(out.src_kind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  EXPECT_EQ(out.dst_kind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
  EXPECT_EQ(out.correlation_id, 3u);
}

TEST(ActivityConvertTest, RuntimeAndDriverApi) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof(a));
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.start = 10;
  a.end = 20;
  a.threadId = 4242;
  a.correlationId = 9;
  a.returnValue = 2;
  ring::DeviceRecord out;
  const char* name = nullptr;
  ASSERT_TRUE(ConvertActivity(reinterpret_cast<CUpti_Activity*>(&a), &out, &name));
  EXPECT_EQ(out.kind, static_cast<uint8_t>(ring::DeviceKind::kRuntimeApi));
  EXPECT_EQ(out.cbid, 211u);
  EXPECT_EQ(out.thread_id, 4242u);
  EXPECT_EQ(out.result, 2);
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  ASSERT_TRUE(ConvertActivity(reinterpret_cast<CUpti_Activity*>(&a), &out, &name));
  EXPECT_EQ(out.kind, static_cast<uint8_t>(ring::DeviceKind::kDriverApi));
}

TEST(ActivityConvertTest, SynchronizationAndMemset) {
  CUpti_ActivitySynchronization2 s;
  std::memset(&s, 0, sizeof(s));
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = 1;
  s.end = 2;
  s.correlationId = 5;
  s.streamId = 7;
  ring::DeviceRecord out;
  const char* name = nullptr;
  ASSERT_TRUE(ConvertActivity(reinterpret_cast<CUpti_Activity*>(&s), &out, &name));
  EXPECT_EQ(out.kind, static_cast<uint8_t>(ring::DeviceKind::kSynchronization));
  EXPECT_EQ(out.cbid,
            static_cast<uint32_t>(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE));
  EXPECT_EQ(out.stream_id, 7u);

  CUpti_ActivityMemset4 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.bytes = 64;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  ASSERT_TRUE(ConvertActivity(reinterpret_cast<CUpti_Activity*>(&m), &out, &name));
  EXPECT_EQ(out.kind, static_cast<uint8_t>(ring::DeviceKind::kMemset));
  EXPECT_EQ(out.bytes, 64u);
  EXPECT_EQ(out.dst_kind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
}

TEST(ActivityConvertTest, UnknownKindRejected) {
  CUpti_Activity a;
  a.kind = CUPTI_ACTIVITY_KIND_MARKER;
  ring::DeviceRecord out;
  const char* name = nullptr;
  EXPECT_FALSE(ConvertActivity(&a, &out, &name));
}

}  // namespace
}  // namespace brrr::shim
