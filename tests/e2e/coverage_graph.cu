// E2E workload for coverage: a CUDA graph of three kernel nodes (graph_a, graph_b, graph_c),
// captured from a stream and replayed `replays` times. Runtime calls: cudaStreamCreateWithFlags,
// cudaStreamBeginCapture, 3 kernel launches (captured, not run), cudaStreamEndCapture,
// cudaGraphInstantiate, `replays` cudaGraphLaunch, cudaStreamSynchronize, cudaGraphExecDestroy,
// cudaGraphDestroy, cudaStreamDestroy. The device runs 3 * replays kernels.
// Usage: coverage_graph [replays]
// Must never: run kernels outside the graph (the test counts them exactly).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void graph_a(float* x) {
  if (x) x[0] = 1.0f;
}
__global__ void graph_b(float* x) {
  if (x) x[1] = 2.0f;
}
__global__ void graph_c(float* x) {
  if (x) x[2] = 3.0f;
}

int main(int argc, char** argv) {
  const int replays = argc > 1 ? std::atoi(argv[1]) : 40;
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return 3;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess) return 4;
  graph_a<<<1, 32, 0, stream>>>(nullptr);
  graph_b<<<2, 64, 0, stream>>>(nullptr);
  graph_c<<<3, 128, 0, stream>>>(nullptr);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess) return 5;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 6;
  for (int i = 0; i < replays; ++i) {
    if (cudaGraphLaunch(exec, stream) != cudaSuccess) return 7;
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess) return 8;
  if (cudaGraphExecDestroy(exec) != cudaSuccess || cudaGraphDestroy(graph) != cudaSuccess ||
      cudaStreamDestroy(stream) != cudaSuccess) {
    return 9;
  }
  std::printf("replayed %d\n", replays);
  return 0;
}
