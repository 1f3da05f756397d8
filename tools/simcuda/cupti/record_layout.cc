// Record sizes per kind and the buffer iterator. Reads only; never trusts a kind it does not know.
#include "record_layout.h"

#include <cstring>

namespace simcuda::cupti {

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    default:
      return 0;
  }
}

CUptiResult NextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t offset = 0;
  if (*record != nullptr) {
    const auto previous = reinterpret_cast<uintptr_t>(*record);
    const auto begin = reinterpret_cast<uintptr_t>(buffer);
    if (previous < begin || previous - begin >= valid_size) return CUPTI_ERROR_INVALID_PARAMETER;
    CUpti_ActivityKind previous_kind;
    std::memcpy(&previous_kind, buffer + (previous - begin), sizeof(previous_kind));
    const size_t previous_size = RecordSize(previous_kind);
    if (previous_size == 0) return CUPTI_ERROR_INVALID_KIND;
    offset = static_cast<size_t>(previous - begin) + previous_size;
  }
  if (offset >= valid_size || valid_size - offset < sizeof(CUpti_ActivityKind)) {
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  }
  CUpti_ActivityKind kind;
  std::memcpy(&kind, buffer + offset, sizeof(kind));
  const size_t size = RecordSize(kind);
  if (size == 0) return CUPTI_ERROR_INVALID_KIND;
  if (valid_size - offset < size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  return CUPTI_SUCCESS;
}

}  // namespace simcuda::cupti
