// Driver entry points for streams and events (with the _ptsz forms). Handles are the engine's
// stream/event pointers, the same ones the runtime hands out, so driver and runtime calls mix.
// Synchronizing calls wait in the engine and produce SYNCHRONIZATION records carrying this call's
// correlation id. Must never wait here.
#include "driver_call.h"

using simcuda::driver::DriverCall;
using simcuda::driver::ResolveStream;
using simcuda::driver::ToCuResult;

namespace {

simcuda_event* AsEvent(CUevent event) { return reinterpret_cast<simcuda_event*>(event); }

bool IsSpecialStream(CUstream stream) {
  return stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

CUresult StreamSynchronize(uint32_t cbid, CUstream stream, bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  simcuda_stream* target = ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(ToCuResult(simcuda_stream_synchronize(target, call.correlation_id())));
}

CUresult StreamQuery(uint32_t cbid, CUstream stream, bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  simcuda_stream* target = ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(ToCuResult(simcuda_stream_query(target)));
}

CUresult StreamWaitEvent(uint32_t cbid, CUstream stream, CUevent event, unsigned flags,
                         bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if ((flags & ~static_cast<unsigned>(CU_EVENT_WAIT_EXTERNAL)) != 0) {
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  simcuda_stream* target = ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(
      ToCuResult(simcuda_stream_wait_event(target, AsEvent(event), call.correlation_id())));
}

CUresult EventRecord(uint32_t cbid, CUevent event, CUstream stream, bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  simcuda_stream* target = ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(
      ToCuResult(simcuda_event_record(AsEvent(event), target, call.correlation_id())));
}

}  // namespace

SIMCUDA_DRIVER_EXPORT CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (stream == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  simcuda_stream* created = nullptr;
  result = ToCuResult(simcuda_stream_create(flags, 0, &created));
  if (result == CUDA_SUCCESS) *stream = reinterpret_cast<CUstream>(created);
  return call.Return(result);
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (IsSpecialStream(stream)) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(ToCuResult(simcuda_stream_destroy(reinterpret_cast<simcuda_stream*>(stream))));
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  return StreamSynchronize(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, stream, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream stream) {
  return StreamSynchronize(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, stream, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamQuery(CUstream stream) {
  return StreamQuery(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, stream, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamQuery_ptsz(CUstream stream) {
  return StreamQuery(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz, stream, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event,
                                                 unsigned int flags) {
  return StreamWaitEvent(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, stream, event, flags, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream stream, CUevent event,
                                                      unsigned int flags) {
  return StreamWaitEvent(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, stream, event, flags,
                         true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuEventCreate);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (event == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  simcuda_event* created = nullptr;
  result = ToCuResult(simcuda_event_create(flags, &created));
  if (result == CUDA_SUCCESS) *event = reinterpret_cast<CUevent>(created);
  return call.Return(result);
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  return EventRecord(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, event, stream, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventRecord_ptsz(CUevent event, CUstream stream) {
  return EventRecord(CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, event, stream, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventQuery(CUevent event) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuEventQuery);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(ToCuResult(simcuda_event_query(AsEvent(event))));
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventSynchronize(CUevent event) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(ToCuResult(simcuda_event_synchronize(AsEvent(event), call.correlation_id())));
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventElapsedTime_v2(float* milliseconds, CUevent start,
                                                     CUevent end) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuEventElapsedTime_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(
      ToCuResult(simcuda_event_elapsed_ms(milliseconds, AsEvent(start), AsEvent(end))));
}

SIMCUDA_DRIVER_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(ToCuResult(simcuda_event_destroy(AsEvent(event))));
}
