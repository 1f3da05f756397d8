// Copies (1D and 2D) and memsets, including the per-thread-default-stream (_ptds/_ptsz) forms. The
// blocking rules live in the engine (simcuda_memcpy); this layer only picks the stream, or records
// a graph node when the stream is capturing. Must never touch the bytes itself: they move on the
// device thread. A 1D copy runs inside a nested driver copy call (api_call.h), as on a real GPU.
#include <cupti_driver_cbid.h>

#include "cuda_api.h"
#include "graph_capture.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToError;

// The driver function a real runtime copy of this kind goes through (cuMemcpyDtoHAsync_v2 for an
// async device-to-host copy, as seen on an H100 with CUDA 13.0).
uint32_t DriverCopyCbid(cudaMemcpyKind kind, bool async) {
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2
                   : CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
    case cudaMemcpyDeviceToHost:
      return async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2
                   : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2;
    case cudaMemcpyDeviceToDevice:
      return async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2
                   : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2;
    default:
      return async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync : CUPTI_DRIVER_TRACE_CBID_cuMemcpy;
  }
}

cudaError_t Copy(uint32_t cbid, void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                 cudaStream_t stream, bool async, bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  simcuda::runtime::GraphNode node;
  node.kind = simcuda::runtime::GraphNode::Kind::kMemcpy;
  node.dst = dst;
  node.src = src;
  node.bytes = count;
  node.copy_kind = static_cast<int>(kind);
  if (simcuda::runtime::CaptureNode(target, node)) return call.Return(cudaSuccess);
  // As the real runtime: the copy goes through a driver copy function (api_call.h).
  simcuda::runtime::NestedDriverCall driver(call, DriverCopyCbid(kind, async));
  const cudaError_t result = ToError(simcuda_memcpy(target, dst, src, count, static_cast<int>(kind),
                                                    async ? 1 : 0, call.correlation_id()));
  driver.End(static_cast<int32_t>(result));
  return call.Return(result);
}

cudaError_t Set(uint32_t cbid, void* dst, int value, size_t count, cudaStream_t stream, bool async,
                bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  simcuda::runtime::GraphNode node;
  node.kind = simcuda::runtime::GraphNode::Kind::kMemset;
  node.dst = dst;
  node.value = value;
  node.bytes = count;
  if (simcuda::runtime::CaptureNode(target, node)) return call.Return(cudaSuccess);
  return call.Return(
      ToError(simcuda_memset(target, dst, value, count, async ? 1 : 0, call.correlation_id())));
}

cudaError_t Copy2D(uint32_t cbid, void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                   size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream,
                   bool async, bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  if (simcuda::runtime::IsCapturing(target)) {
    return call.Return(cudaErrorStreamCaptureUnsupported);  // 2D graph nodes are not simulated
  }
  return call.Return(ToError(simcuda_memcpy_2d(target, dst, dst_pitch, src, src_pitch, width,
                                               height, static_cast<int>(kind), async ? 1 : 0,
                                               call.correlation_id())));
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, cudaMemcpyKind kind) {
  return Copy2D(simcuda::runtime::kCbid_cudaMemcpy2D, dst, dpitch, src, spitch, width, height,
                kind, nullptr, false, false);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src,
                                             size_t spitch, size_t width, size_t height,
                                             cudaMemcpyKind kind) {
  return Copy2D(simcuda::runtime::kCbid_cudaMemcpy2D_ptds, dst, dpitch, src, spitch, width,
                height, kind, nullptr, false, true);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                             size_t spitch, size_t width, size_t height,
                                             cudaMemcpyKind kind, cudaStream_t stream) {
  return Copy2D(simcuda::runtime::kCbid_cudaMemcpy2DAsync, dst, dpitch, src, spitch, width,
                height, kind, stream, true, false);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                                                  size_t spitch, size_t width, size_t height,
                                                  cudaMemcpyKind kind, cudaStream_t stream) {
  return Copy2D(simcuda::runtime::kCbid_cudaMemcpy2DAsync_ptsz, dst, dpitch, src, spitch, width,
                height, kind, stream, true, true);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpy(void* dst, const void* src, size_t count,
                                      cudaMemcpyKind kind) {
  return Copy(simcuda::runtime::kCbid_cudaMemcpy, dst, src, count, kind, nullptr, false, false);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                           cudaMemcpyKind kind) {
  return Copy(simcuda::runtime::kCbid_cudaMemcpy_ptds, dst, src, count, kind, nullptr, false, true);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                           cudaMemcpyKind kind, cudaStream_t stream) {
  return Copy(simcuda::runtime::kCbid_cudaMemcpyAsync, dst, src, count, kind, stream, true, false);
}

SIMCUDA_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                                cudaMemcpyKind kind, cudaStream_t stream) {
  return Copy(simcuda::runtime::kCbid_cudaMemcpyAsync_ptsz, dst, src, count, kind, stream, true,
              true);
}

SIMCUDA_EXPORT cudaError_t cudaMemset(void* dst, int value, size_t count) {
  return Set(simcuda::runtime::kCbid_cudaMemset, dst, value, count, nullptr, false, false);
}

SIMCUDA_EXPORT cudaError_t cudaMemset_ptds(void* dst, int value, size_t count) {
  return Set(simcuda::runtime::kCbid_cudaMemset_ptds, dst, value, count, nullptr, false, true);
}

SIMCUDA_EXPORT cudaError_t cudaMemsetAsync(void* dst, int value, size_t count,
                                           cudaStream_t stream) {
  return Set(simcuda::runtime::kCbid_cudaMemsetAsync, dst, value, count, stream, true, false);
}

SIMCUDA_EXPORT cudaError_t cudaMemsetAsync_ptsz(void* dst, int value, size_t count,
                                                cudaStream_t stream) {
  return Set(simcuda::runtime::kCbid_cudaMemsetAsync_ptsz, dst, value, count, stream, true, true);
}
