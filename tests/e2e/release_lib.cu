// A vendor-style library built as release code (-O2, no frame pointers; see CMakeLists.txt): its
// read-back blocks on queued device work from two frames down, as a hidden sync inside a library
// does. The e2e test expects its frames, then the caller's, then main in the stall's stack.
#include <cuda_runtime.h>

#define NOINLINE __attribute__((noinline))
#define EXPORT __attribute__((visibility("default")))

namespace {
volatile int g_after = 0;
}

NOINLINE float copy_back(const float* device_value) {
  float v = 0;
  cudaMemcpy(&v, device_value, sizeof(v), cudaMemcpyDeviceToHost);  // MARK: lib-copy
  g_after = g_after + 1;  // not a tail call: this frame stays on the stack
  return v;
}

EXPORT NOINLINE float fetch_scalar(const float* device_value) {
  const float v = copy_back(device_value);  // MARK: lib-fetch
  g_after = g_after + 1;
  return v;
}
