// E2E workload: each kind of host stall planted in its own function, called a known number of
// times, after device work that makes it block. Built with frame pointers so that brrr's stacks
// name the planting function. The counts are the test's expectations (see e2e_test.cc).
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define NOINLINE __attribute__((noinline))

__global__ void work(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

namespace {
float* g_dev = nullptr;
volatile int g_planted = 0;

// Runs after each planted call so that the call is not a tail call: the planting function keeps
// its frame and appears on the stack (as it would in most real code).
void KeepFrame() { g_planted = g_planted + 1; }
std::vector<float> g_pageable(1 << 16, 1.0f);

void QueueWork() { work<<<1, 32>>>(g_dev); }

NOINLINE void plant_d2h_copy() {
  QueueWork();
  float v;
  cudaMemcpy(&v, g_dev, sizeof(v), cudaMemcpyDeviceToHost);
  KeepFrame();
}
NOINLINE void plant_pageable_async_copy() {
  QueueWork();
  cudaMemcpyAsync(g_pageable.data(), g_dev, 4096, cudaMemcpyDeviceToHost, 0);
  KeepFrame();
}
NOINLINE void plant_free() {
  float* scratch = nullptr;
  cudaMalloc(&scratch, 4096);
  QueueWork();
  cudaFree(scratch);
  KeepFrame();
}
NOINLINE void plant_stream_sync(cudaStream_t s) {
  work<<<1, 32, 0, s>>>(g_dev);
  cudaStreamSynchronize(s);
  KeepFrame();
}
NOINLINE void plant_device_sync() {
  QueueWork();
  cudaDeviceSynchronize();
  KeepFrame();
}
NOINLINE void plant_event_sync(cudaEvent_t e) {
  QueueWork();
  cudaEventRecord(e, 0);
  cudaEventSynchronize(e);
  KeepFrame();
}
NOINLINE void plant_query_poll(cudaStream_t s) {
  work<<<1, 32, 0, s>>>(g_dev);
  while (cudaStreamQuery(s) == cudaErrorNotReady) {
  }
  KeepFrame();
}
}  // namespace

int main() {
  if (cudaMalloc(&g_dev, 1 << 16) != cudaSuccess) return 3;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e;
  cudaEventCreate(&e);
  for (int i = 0; i < 3; ++i) plant_d2h_copy();
  for (int i = 0; i < 4; ++i) plant_pageable_async_copy();
  for (int i = 0; i < 5; ++i) plant_free();
  for (int i = 0; i < 6; ++i) plant_stream_sync(s);
  for (int i = 0; i < 7; ++i) plant_device_sync();
  for (int i = 0; i < 8; ++i) plant_event_sync(e);
  for (int i = 0; i < 2; ++i) plant_query_poll(s);
  cudaEventDestroy(e);
  cudaStreamDestroy(s);
  cudaFree(g_dev);
  std::printf("planted\n");
  return 0;
}
