// One piece of queued device work (kernel, copy, memset, event marker, stream-ordered free, host
// function) and a
// stream that runs such ops in order. Plain data: the Engine's mutex guards every mutable field.
// Must never own the memory it copies or sets.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_OP_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_OP_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "kernel_registry.h"
#include "simcuda/engine.h"

namespace simcuda {

enum class OpKind : uint8_t { kKernel, kMemcpy, kMemset, kMarker, kFree, kHostFunc };

struct Op {
  OpKind kind = OpKind::kMarker;
  uint32_t correlation_id = 0;
  uint64_t duration_ns = 0;
  // Set by Engine::Enqueue.
  uint64_t enqueue_ns = 0;
  uint32_t stream_id = 0;
  std::vector<std::shared_ptr<Op>> deps;  // cleared once the op is done

  // kKernel
  const Kernel* kernel = nullptr;
  simcuda_dim3 grid{}, block{};
  uint32_t dynamic_shared_memory = 0;
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
  bool cooperative = false;
  // kMemcpy, kMemset, kFree
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  int value = 0;
  uint8_t copy_kind = 0, src_kind = 0, dst_kind = 0;  // CUPTI enum values
  bool is_async = false;
  // kMemcpy of a 2D region (cudaMemcpy2D): `height` rows of `bytes / height` bytes; 0 = 1D.
  size_t height = 0, dst_pitch = 0, src_pitch = 0;
  // kHostFunc (cudaLaunchHostFunc / cudaStreamAddCallback): run on the stream's device thread.
  void (*host_fn)(void*) = nullptr;
  void* host_arg = nullptr;

  // Completion, guarded by Engine::mu_.
  bool done = false;
  uint64_t start_ns = 0, end_ns = 0;
};

struct Stream {
  uint32_t id = 0;
  bool blocking = true;  // synchronizes with the legacy default stream
  bool legacy = false;   // the legacy default stream itself
  int priority = 0;      // as created (clamped to the device's range); never changes scheduling
  // Guarded by Engine::mu_.
  std::deque<std::shared_ptr<Op>> queue;  // not yet complete; front is executing
  std::shared_ptr<Op> last;               // last op enqueued (may be complete)
  uint64_t prev_end_ns = 0;               // virtual end of the last completed op
  bool destroyed = false;                 // no new work; the worker exits once drained
  std::condition_variable work_cv;        // waits on Engine::mu_
};

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_OP_H_
