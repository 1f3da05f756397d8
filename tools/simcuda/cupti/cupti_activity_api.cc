// Exported CUPTI activity API (cupti_activity.h), each a thin shim over CuptiInstance and the
// helpers. Argument checks and result codes follow the real library; nothing here blocks except
// cuptiActivityFlushAll/cuptiActivityFlush/cuptiFinalize, which deliver buffers by contract.
#include <cupti_activity.h>
#include <cupti_callbacks.h>

#include "cupti_instance.h"
#include "export.h"
#include "external_correlation.h"
#include "record_layout.h"

using simcuda::cupti::ActivityRecorder;
using simcuda::cupti::CuptiInstance;

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  return CuptiInstance::Get().EnableKind(kind);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  return CuptiInstance::Get().DisableKind(kind);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid,
                                                                        uint8_t enable) {
  return CuptiInstance::Get().recorder().EnableApi(/*runtime=*/true, cbid, enable != 0);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid,
                                                                       uint8_t enable) {
  return CuptiInstance::Get().recorder().EnableApi(/*runtime=*/false, cbid, enable != 0);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                               CUpti_BuffersCallbackCompleteFunc funcBufferCompleted) {
  return CuptiInstance::Get().recorder().buffers().RegisterCallbacks(funcBufferRequested,
                                                                     funcBufferCompleted);
}

// Both flushes deliver every record of completed work so far; the forced one also hands back the
// records of work still queued or running, without timestamps, never to be delivered again, as
// real CUPTI does (ActivityRecorder::HandBackInFlight).
namespace {

CUptiResult Flush(uint32_t flag) {
  ActivityRecorder& recorder = CuptiInstance::Get().recorder();
  if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0 && recorder.buffers().HasCallbacks()) {
    recorder.HandBackInFlight();
  }
  return recorder.buffers().FlushAll();
}

}  // namespace

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  return Flush(flag);
}

// Deprecated in real CUPTI: context and stream are ignored there too.
SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext /*context*/,
                                                             uint32_t /*streamId*/, uint32_t flag) {
  return Flush(flag);
}

// As real CUPTI documents it: the worker's period; a periodic flush returns full buffers only
// (here those are handed over as soon as they fill), never a partly filled one.
SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time) {
  CuptiInstance::Get().recorder().buffers().SetFlushPeriodMs(time);
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer,
                                                                     size_t validBufferSizeBytes,
                                                                     CUpti_Activity** record) {
  return simcuda::cupti::NextRecord(buffer, validBufferSizeBytes, record);
}

// One global queue: context and stream are ignored.
SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext /*context*/,
                                                                            uint32_t /*streamId*/,
                                                                            size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *dropped = CuptiInstance::Get().recorder().buffers().TakeDroppedCount();
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp) {
  return CuptiInstance::Get().recorder().RegisterTimestampCallback(funcTimestamp);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = CuptiInstance::Get().recorder().clock().Now();
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI
cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  return simcuda::cupti::PushExternalCorrelationId(kind, id);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI
cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t* lastId) {
  return simcuda::cupti::PopExternalCorrelationId(kind, lastId);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiActivityEnableLatencyTimestamps(uint8_t enable) {
  CuptiInstance::Get().recorder().EnableLatencyTimestamps(enable != 0);
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiFinalize(void) {
  return CuptiInstance::Get().Finalize();
}
