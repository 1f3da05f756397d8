// Tests for RecordSize and NextRecord (cuptiActivityGetNextRecord). Expected sizes and results
// are those observed from the real libcupti.so.13 (CUDA 13.0) iterating the same buffers.
#include "record_layout.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace simcuda::cupti {
namespace {

TEST(RecordLayoutTest, SizesMatchRealCupti) {
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_KERNEL), 216u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 216u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_MEMCPY), 96u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_MEMSET), 88u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), 56u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_RUNTIME), 40u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_DRIVER), 40u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), 24u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_INVALID), 0u);
  EXPECT_EQ(RecordSize(CUPTI_ACTIVITY_KIND_DEVICE), 0u);
}

class BufferBuilder {
 public:
  void Add(CUpti_ActivityKind kind, size_t size) {
    const size_t offset = bytes_.size();
    bytes_.resize(offset + size, 0);
    std::memcpy(bytes_.data() + offset, &kind, sizeof(kind));
    offsets_.push_back(offset);
  }
  uint8_t* data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  const std::vector<size_t>& offsets() const { return offsets_; }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<size_t> offsets_;
};

TEST(RecordLayoutTest, IteratesPackedRecordsOfMixedKinds) {
  BufferBuilder b;
  b.Add(CUPTI_ACTIVITY_KIND_RUNTIME, 40);
  b.Add(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 216);
  b.Add(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 24);
  b.Add(CUPTI_ACTIVITY_KIND_MEMCPY, 96);
  b.Add(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 56);
  b.Add(CUPTI_ACTIVITY_KIND_MEMSET, 88);
  CUpti_Activity* record = nullptr;
  for (size_t offset : b.offsets()) {
    ASSERT_EQ(NextRecord(b.data(), b.size(), &record), CUPTI_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uint8_t*>(record), b.data() + offset);
  }
  EXPECT_EQ(NextRecord(b.data(), b.size(), &record), CUPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(RecordLayoutTest, EmptyBufferHasNoRecord) {
  uint64_t storage[8] = {};
  CUpti_Activity* record = nullptr;
  EXPECT_EQ(NextRecord(reinterpret_cast<uint8_t*>(storage), 0, &record),
            CUPTI_ERROR_MAX_LIMIT_REACHED);
}

TEST(RecordLayoutTest, CorruptKindIsInvalidKind) {
  BufferBuilder b;
  b.Add(CUPTI_ACTIVITY_KIND_RUNTIME, 40);
  b.Add(static_cast<CUpti_ActivityKind>(200), 40);
  CUpti_Activity* record = nullptr;
  ASSERT_EQ(NextRecord(b.data(), b.size(), &record), CUPTI_SUCCESS);
  EXPECT_EQ(NextRecord(b.data(), b.size(), &record), CUPTI_ERROR_INVALID_KIND);
}

TEST(RecordLayoutTest, ZeroKindIsInvalidKind) {
  BufferBuilder b;
  b.Add(CUPTI_ACTIVITY_KIND_INVALID, 40);
  CUpti_Activity* record = nullptr;
  EXPECT_EQ(NextRecord(b.data(), b.size(), &record), CUPTI_ERROR_INVALID_KIND);
}

TEST(RecordLayoutTest, TruncatedRecordEndsIteration) {
  BufferBuilder b;
  b.Add(CUPTI_ACTIVITY_KIND_MEMCPY, 96);
  CUpti_Activity* record = nullptr;
  EXPECT_EQ(NextRecord(b.data(), 88, &record), CUPTI_ERROR_MAX_LIMIT_REACHED);
  EXPECT_EQ(record, nullptr);
}

TEST(RecordLayoutTest, NullArgumentsAreInvalidParameters) {
  BufferBuilder b;
  b.Add(CUPTI_ACTIVITY_KIND_RUNTIME, 40);
  CUpti_Activity* record = nullptr;
  EXPECT_EQ(NextRecord(nullptr, b.size(), &record), CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(NextRecord(b.data(), b.size(), nullptr), CUPTI_ERROR_INVALID_PARAMETER);
}

TEST(RecordLayoutTest, PreviousRecordOutsideBufferIsInvalidParameter) {
  BufferBuilder b;
  b.Add(CUPTI_ACTIVITY_KIND_RUNTIME, 40);
  BufferBuilder other;
  other.Add(CUPTI_ACTIVITY_KIND_RUNTIME, 40);
  auto* record = reinterpret_cast<CUpti_Activity*>(other.data());
  EXPECT_EQ(NextRecord(b.data(), b.size(), &record), CUPTI_ERROR_INVALID_PARAMETER);
}

}  // namespace
}  // namespace simcuda::cupti
