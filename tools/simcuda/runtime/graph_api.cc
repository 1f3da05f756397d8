// CUDA graph entry points built on stream capture: cudaStreamBeginCapture / EndCapture /
// IsCapturing (with _ptsz forms), cudaGraphInstantiate(WithFlags), cudaGraphLaunch(_ptsz),
// cudaGraphGetNodes, cudaGraphExecDestroy, cudaGraphDestroy. A graph launch queues every node in
// capture order on the launch stream under the launch call's correlation id, kernels carrying
// the executable's graph id and their node ids; it burns one launch's host CPU in all. Kernel,
// memcpy and memset calls on a capturing stream are recorded by launch.cc / copy.cc instead of
// running. Must never run captured work at capture time.
#include "cuda_api.h"
#include "graph_capture.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::GraphNode;
using simcuda::runtime::ToError;

simcuda::runtime::Graph* AsGraph(cudaGraph_t graph) {
  return reinterpret_cast<simcuda::runtime::Graph*>(graph);
}
simcuda::runtime::GraphExec* AsExec(cudaGraphExec_t exec) {
  return reinterpret_cast<simcuda::runtime::GraphExec*>(exec);
}

bool IsLegacyStream(cudaStream_t stream, bool per_thread_default) {
  return stream == cudaStreamLegacy || (stream == nullptr && !per_thread_default);
}

cudaError_t BeginCapture(uint32_t cbid, cudaStream_t stream, cudaStreamCaptureMode mode,
                         bool per_thread_default) {
  ApiCall call(cbid);
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return call.Return(cudaErrorInvalidValue);
  }
  if (IsLegacyStream(stream, per_thread_default)) {
    return call.Return(cudaErrorStreamCaptureUnsupported);
  }
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  if (!simcuda::runtime::BeginCapture(target)) return call.Return(cudaErrorIllegalState);
  return call.Return(cudaSuccess);
}

cudaError_t EndCapture(uint32_t cbid, cudaStream_t stream, cudaGraph_t* graph,
                       bool per_thread_default) {
  ApiCall call(cbid);
  if (graph == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  simcuda::runtime::Graph* captured = simcuda::runtime::EndCapture(target);
  if (captured == nullptr) return call.Return(cudaErrorIllegalState);
  *graph = reinterpret_cast<cudaGraph_t>(captured);
  return call.Return(cudaSuccess);
}

cudaError_t IsCapturing(uint32_t cbid, cudaStream_t stream, cudaStreamCaptureStatus* status,
                        bool per_thread_default) {
  ApiCall call(cbid);
  if (status == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  *status = simcuda::runtime::IsCapturing(target) ? cudaStreamCaptureStatusActive
                                                  : cudaStreamCaptureStatusNone;
  return call.Return(cudaSuccess);
}

cudaError_t Instantiate(uint32_t cbid, cudaGraphExec_t* exec, cudaGraph_t graph,
                        unsigned long long /*flags*/) {
  ApiCall call(cbid);
  if (exec == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda::runtime::GraphExec* created = simcuda::runtime::Instantiate(AsGraph(graph));
  if (created == nullptr) return call.Return(cudaErrorInvalidValue);
  *exec = reinterpret_cast<cudaGraphExec_t>(created);
  return call.Return(cudaSuccess);
}

simcuda_status RunNode(simcuda_stream* stream, const GraphNode& node, uint32_t graph_id,
                       uint64_t node_id, bool first_kernel, uint32_t correlation_id) {
  switch (node.kind) {
    case GraphNode::Kind::kKernel: {
      simcuda_launch_info info{};
      info.graph_id = graph_id;
      info.graph_node_id = node_id;
      info.skip_launch_overhead = first_kernel ? 0 : 1;
      return simcuda_launch_kernel_ex(stream, node.kernel, node.grid, node.block,
                                      node.shared_memory, correlation_id, &info);
    }
    case GraphNode::Kind::kMemcpy:
      return simcuda_memcpy(stream, node.dst, node.src, node.bytes, node.copy_kind, /*async=*/1,
                            correlation_id);
    case GraphNode::Kind::kMemset:
      return simcuda_memset(stream, node.dst, node.value, node.bytes, /*async=*/1, correlation_id);
  }
  return SIMCUDA_INVALID_VALUE;
}

cudaError_t Launch(uint32_t cbid, cudaGraphExec_t exec, cudaStream_t stream,
                   bool per_thread_default) {
  ApiCall call(cbid);
  simcuda::runtime::GraphExec graph;
  if (!simcuda::runtime::ReadGraphExec(AsExec(exec), &graph)) {
    return call.Return(cudaErrorInvalidValue);
  }
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  if (simcuda::runtime::IsCapturing(target)) {
    return call.Return(cudaErrorStreamCaptureUnsupported);  // child graphs: not simulated
  }
  bool first_kernel = true;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    const simcuda_status status =
        RunNode(target, node, graph.id, graph.node_ids[i], first_kernel, call.correlation_id());
    if (node.kind == GraphNode::Kind::kKernel) first_kernel = false;
    if (status != SIMCUDA_SUCCESS) return call.Return(ToError(status));
  }
  return call.Return(cudaSuccess);
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return BeginCapture(simcuda::runtime::kCbid_cudaStreamBeginCapture, stream, mode, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                       cudaStreamCaptureMode mode) {
  return BeginCapture(simcuda::runtime::kCbid_cudaStreamBeginCapture_ptsz, stream, mode, true);
}

SIMCUDA_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  return EndCapture(simcuda::runtime::kCbid_cudaStreamEndCapture, stream, graph, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* graph) {
  return EndCapture(simcuda::runtime::kCbid_cudaStreamEndCapture_ptsz, stream, graph, true);
}

SIMCUDA_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                 cudaStreamCaptureStatus* status) {
  return IsCapturing(simcuda::runtime::kCbid_cudaStreamIsCapturing, stream, status, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                      cudaStreamCaptureStatus* status) {
  return IsCapturing(simcuda::runtime::kCbid_cudaStreamIsCapturing_ptsz, stream, status, true);
}

SIMCUDA_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                unsigned long long flags) {
  return Instantiate(simcuda::runtime::kCbid_cudaGraphInstantiate, exec, graph, flags);
}

SIMCUDA_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                         unsigned long long flags) {
  return Instantiate(simcuda::runtime::kCbid_cudaGraphInstantiateWithFlags, exec, graph, flags);
}

SIMCUDA_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return Launch(simcuda::runtime::kCbid_cudaGraphLaunch, exec, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return Launch(simcuda::runtime::kCbid_cudaGraphLaunch_ptsz, exec, stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes,
                                             size_t* count) {
  ApiCall call(simcuda::runtime::kCbid_cudaGraphGetNodes);
  if (count == nullptr) return call.Return(cudaErrorInvalidValue);
  std::vector<const GraphNode*> found;
  if (!simcuda::runtime::GraphNodes(AsGraph(graph), &found)) {
    return call.Return(cudaErrorInvalidValue);
  }
  if (nodes != nullptr) {
    for (size_t i = 0; i < found.size() && i < *count; ++i) {
      nodes[i] = reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(found[i]));
    }
  }
  *count = found.size();
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  ApiCall call(simcuda::runtime::kCbid_cudaGraphExecDestroy);
  return call.Return(simcuda::runtime::DestroyGraphExec(AsExec(exec)) ? cudaSuccess
                                                                      : cudaErrorInvalidValue);
}

SIMCUDA_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  ApiCall call(simcuda::runtime::kCbid_cudaGraphDestroy);
  return call.Return(simcuda::runtime::DestroyGraph(AsGraph(graph)) ? cudaSuccess
                                                                    : cudaErrorInvalidValue);
}

// The calling thread's capture interaction mode, swapped (what PyTorch does around allocations).
// Stored only: the simulation never reports unsafe calls during capture.
SIMCUDA_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  simcuda::runtime::ApiCall call(simcuda::runtime::kCbid_cudaThreadExchangeStreamCaptureMode);
  static thread_local cudaStreamCaptureMode current = cudaStreamCaptureModeGlobal;
  if (mode == nullptr) return call.Return(cudaErrorInvalidValue);
  if (*mode != cudaStreamCaptureModeGlobal && *mode != cudaStreamCaptureModeThreadLocal &&
      *mode != cudaStreamCaptureModeRelaxed) {
    return call.Return(cudaErrorInvalidValue);
  }
  const cudaStreamCaptureMode previous = current;
  current = *mode;
  *mode = previous;
  return call.Return(cudaSuccess);
}
