// Streams, events and synchronization entry points (with their _ptsz forms). Handles given to
// programs are the engine's stream/event pointers; the engine validates every one. Must never
// wait here: all waiting happens in the engine, on condition variables.
#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToError;

bool IsSpecialStream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

cudaError_t CreateStream(uint32_t cbid, cudaStream_t* stream, unsigned flags, int priority) {
  ApiCall call(cbid);
  if (stream == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_stream* created = nullptr;
  const simcuda_status status = simcuda_stream_create(flags, priority, &created);
  if (status == SIMCUDA_SUCCESS) *stream = reinterpret_cast<cudaStream_t>(created);
  return call.Return(ToError(status));
}

cudaError_t StreamSynchronize(uint32_t cbid, cudaStream_t stream, bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_stream_synchronize(target, call.correlation_id())));
}

cudaError_t StreamQuery(uint32_t cbid, cudaStream_t stream, bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_stream_query(target)));
}

cudaError_t StreamWaitEvent(uint32_t cbid, cudaStream_t stream, cudaEvent_t event, unsigned flags,
                            bool per_thread_default) {
  ApiCall call(cbid);
  if ((flags & ~static_cast<unsigned>(cudaEventWaitExternal)) != 0) {
    return call.Return(cudaErrorInvalidValue);
  }
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_stream_wait_event(
      target, reinterpret_cast<simcuda_event*>(event), call.correlation_id())));
}

cudaError_t EventRecord(uint32_t cbid, cudaEvent_t event, cudaStream_t stream,
                        bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_event_record(reinterpret_cast<simcuda_event*>(event), target,
                                                  call.correlation_id())));
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return CreateStream(simcuda::runtime::kCbid_cudaStreamCreate, stream, cudaStreamDefault, 0);
}

SIMCUDA_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return CreateStream(simcuda::runtime::kCbid_cudaStreamCreateWithFlags, stream, flags, 0);
}

SIMCUDA_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags,
                                                        int priority) {
  return CreateStream(simcuda::runtime::kCbid_cudaStreamCreateWithPriority, stream, flags,
                      priority);
}

SIMCUDA_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  ApiCall call(simcuda::runtime::kCbid_cudaStreamDestroy);
  if (IsSpecialStream(stream)) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_stream_destroy(reinterpret_cast<simcuda_stream*>(stream))));
}

SIMCUDA_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return StreamSynchronize(simcuda::runtime::kCbid_cudaStreamSynchronize, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return StreamSynchronize(simcuda::runtime::kCbid_cudaStreamSynchronize_ptsz, stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return StreamQuery(simcuda::runtime::kCbid_cudaStreamQuery, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  return StreamQuery(simcuda::runtime::kCbid_cudaStreamQuery_ptsz, stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                               unsigned int flags) {
  return StreamWaitEvent(simcuda::runtime::kCbid_cudaStreamWaitEvent, stream, event, flags, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                    unsigned int flags) {
  return StreamWaitEvent(simcuda::runtime::kCbid_cudaStreamWaitEvent_ptsz, stream, event, flags,
                         true);
}

SIMCUDA_EXPORT cudaError_t cudaEventCreate(cudaEvent_t* event) {
  ApiCall call(simcuda::runtime::kCbid_cudaEventCreate);
  if (event == nullptr) return call.Return(cudaErrorInvalidValue);
  return call.Return(
      ToError(simcuda_event_create(cudaEventDefault, reinterpret_cast<simcuda_event**>(event))));
}

SIMCUDA_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaEventCreateWithFlags);
  if (event == nullptr) return call.Return(cudaErrorInvalidValue);
  return call.Return(
      ToError(simcuda_event_create(flags, reinterpret_cast<simcuda_event**>(event))));
}

SIMCUDA_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return EventRecord(simcuda::runtime::kCbid_cudaEventRecord, event, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return EventRecord(simcuda::runtime::kCbid_cudaEventRecord_ptsz, event, stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                    unsigned int /*flags*/) {
  return EventRecord(simcuda::runtime::kCbid_cudaEventRecordWithFlags, event, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                         unsigned int /*flags*/) {
  return EventRecord(simcuda::runtime::kCbid_cudaEventRecordWithFlags_ptsz, event, stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  ApiCall call(simcuda::runtime::kCbid_cudaEventSynchronize);
  return call.Return(ToError(
      simcuda_event_synchronize(reinterpret_cast<simcuda_event*>(event), call.correlation_id())));
}

SIMCUDA_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
  ApiCall call(simcuda::runtime::kCbid_cudaEventQuery);
  return call.Return(ToError(simcuda_event_query(reinterpret_cast<simcuda_event*>(event))));
}

SIMCUDA_EXPORT cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  ApiCall call(simcuda::runtime::kCbid_cudaEventElapsedTime);
  return call.Return(ToError(simcuda_event_elapsed_ms(ms, reinterpret_cast<simcuda_event*>(start),
                                                      reinterpret_cast<simcuda_event*>(end))));
}

SIMCUDA_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) {
  ApiCall call(simcuda::runtime::kCbid_cudaEventDestroy);
  return call.Return(ToError(simcuda_event_destroy(reinterpret_cast<simcuda_event*>(event))));
}

SIMCUDA_EXPORT cudaError_t cudaDeviceSynchronize(void) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceSynchronize);
  return call.Return(ToError(simcuda_device_synchronize(call.correlation_id())));
}
