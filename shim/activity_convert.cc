// CUPTI activity -> ring::DeviceRecord (see activity_convert.h). Runs on CUPTI's buffer thread.
//
// Must never: touch global state or call CUPTI.
#include "shim/activity_convert.h"

#include <cstring>

namespace brrr::shim {

bool ConvertActivity(const CUpti_Activity* record, ring::DeviceRecord* out,
                     const char** kernel_name) {
  *out = ring::DeviceRecord{};
  *kernel_name = nullptr;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      out->kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
      out->start = k->start;
      out->end = k->end;
      out->queued = k->queued == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->queued;
      out->submitted = k->submitted == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->submitted;
      out->correlation_id = k->correlationId;
      out->stream_id = k->streamId;
      out->device_id = k->deviceId;
      *kernel_name = k->name;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      out->kind = static_cast<uint8_t>(ring::DeviceKind::kMemcpy);
      out->start = m->start;
      out->end = m->end;
      out->bytes = m->bytes;
      out->correlation_id = m->correlationId;
      out->stream_id = m->streamId;
      out->device_id = m->deviceId;
      out->copy_kind = m->copyKind;
      out->src_kind = m->srcKind;
      out->dst_kind = m->dstKind;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      out->kind = static_cast<uint8_t>(ring::DeviceKind::kMemset);
      out->start = m->start;
      out->end = m->end;
      out->bytes = m->bytes;
      out->correlation_id = m->correlationId;
      out->stream_id = m->streamId;
      out->device_id = m->deviceId;
      out->dst_kind = static_cast<uint8_t>(m->memoryKind);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      out->kind = static_cast<uint8_t>(ring::DeviceKind::kSynchronization);
      out->start = s->start;
      out->end = s->end;
      out->correlation_id = s->correlationId;
      out->stream_id = s->streamId;
      out->cbid = static_cast<uint32_t>(s->type);
      out->result = static_cast<int32_t>(s->returnValue);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      out->kind = static_cast<uint8_t>(record->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                           ? ring::DeviceKind::kRuntimeApi
                                           : ring::DeviceKind::kDriverApi);
      out->start = a->start;
      out->end = a->end;
      out->correlation_id = a->correlationId;
      out->thread_id = a->threadId;
      out->cbid = a->cbid;
      out->result = static_cast<int32_t>(a->returnValue);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace brrr::shim
