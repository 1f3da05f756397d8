// A stream's device thread: runs its ops in order in virtual device time, really performs copies
// and memsets, reports each completed op to the activity sink, then marks it done and wakes
// waiters. Must never hold the engine mutex while sleeping, copying or calling the sink.
#include <sys/prctl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "clock.h"
#include "cupti_activity.h"
#include "engine_core.h"
#include "host_allocator.h"
#include "sink_dispatch.h"

namespace simcuda {
namespace {

constexpr uint32_t kDeviceId = 0;
constexpr uint32_t kContextId = 1;
// A kernel's way from the driver's queue to the SMs, as measured on an H200 (driver 580, CUDA
// 13.0; tools/gpu/workloads/cupti_cost.cu latency, empty kernels on an idle GPU): CUPTI's queued
// timestamp to the kernel's start p50 3.86 us (p99 4.27), its submitted timestamp to the start
// p50 543 ns (p99 577). A kernel never starts sooner after its launch; on a busy stream it starts
// when the previous op ends, as before.
constexpr uint64_t kKernelQueuedToStartNs = 3'860;
constexpr uint64_t kKernelSubmittedToStartNs = 543;

}  // namespace

void Engine::RunWorker(std::shared_ptr<Stream> stream) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // wake at the virtual end, not 50 us later
  std::unique_lock lock(mu_);
  for (;;) {
    stream->work_cv.wait(lock, [&] { return !stream->queue.empty() || stream->destroyed; });
    if (stream->queue.empty()) break;  // destroyed and drained
    const std::shared_ptr<Op> op = stream->queue.front();
    done_cv_.wait(lock, [&] {
      return std::all_of(op->deps.begin(), op->deps.end(), [](const auto& d) { return d->done; });
    });
    const uint64_t earliest =
        op->enqueue_ns + (op->kind == OpKind::kKernel ? kKernelQueuedToStartNs : 0);
    uint64_t start = std::max(earliest, stream->prev_end_ns);
    for (const auto& dep : op->deps) start = std::max(start, dep->end_ns);
    uint64_t end = start + op->duration_ns;
    lock.unlock();

    if (op->kind == OpKind::kHostFunc) {
      // Host work runs when the stream gets there and takes as long as it takes.
      SleepUntil(start);
      if (!exiting_.load(std::memory_order_acquire)) op->host_fn(op->host_arg);
      end = std::max(end, NowNs());
    } else if (!exiting_.load(std::memory_order_acquire)) {
      if (op->kind == OpKind::kKernel && op->kernel != nullptr && op->kernel->collective &&
          !config_.nccl_group.empty()) {
        end = AwaitCollective(*op, start);
      }
      Execute(*op);
    }
    SleepUntil(end);
    ReportCompletion(*op, start, end);

    lock.lock();
    op->start_ns = start;
    op->end_ns = end;
    op->done = true;
    op->deps.clear();
    stream->prev_end_ns = end;
    stream->queue.pop_front();
    done_cv_.notify_all();
  }
  streams_.erase(stream.get());
}

uint64_t Engine::AwaitCollective(const Op& op, uint64_t start_ns) {
  SleepUntil(start_ns);  // it arrives when its stream gets there
  std::call_once(nccl_once_, [this] {
    std::string error;
    std::unique_ptr<NcclGroup> group = NcclGroup::Join(
        config_.nccl_group, config_.nccl_size, config_.nccl_rank, config_.nccl_timeout_ns, &error);
    if (group == nullptr) {
      std::fprintf(stderr, "simcuda: cannot join collective group '%s' of %u ranks: %s\n",
                   config_.nccl_group.c_str(), config_.nccl_size, error.c_str());
      std::fflush(stderr);
      std::_Exit(3);
    }
    nccl_.store(group.release(), std::memory_order_release);
  });
  NcclGroup* group = nccl_.load(std::memory_order_acquire);
  const uint64_t index = nccl_next_index_.fetch_add(1, std::memory_order_relaxed);
  std::string missing;
  const std::optional<uint64_t> last = group->Arrive(index, start_ns, &missing);
  if (!last.has_value()) {
    // Real NCCL would hang here (until a watchdog, e.g. PyTorch's, aborts the process).
    std::fprintf(stderr,
                 "simcuda: collective %llu of group '%s' (rank %u of %u): rank(s) %s never "
                 "arrived within %llu ms; giving up\n",
                 static_cast<unsigned long long>(index), config_.nccl_group.c_str(), group->rank(),
                 group->size(), missing.c_str(),
                 static_cast<unsigned long long>(config_.nccl_timeout_ns / 1'000'000));
    std::fflush(stderr);
    group->Leave();
    std::_Exit(3);
  }
  return std::max(start_ns, *last) + op.duration_ns;
}

void Engine::Execute(const Op& op) {
  switch (op.kind) {
    case OpKind::kMemcpy:
      if (op.height == 0) {
        std::memmove(op.dst, op.src, op.bytes);
      } else {
        const size_t width = op.bytes / op.height;
        for (size_t row = 0; row < op.height; ++row) {
          std::memmove(static_cast<char*>(op.dst) + row * op.dst_pitch,
                       static_cast<const char*>(op.src) + row * op.src_pitch, width);
        }
      }
      break;
    case OpKind::kMemset:
      std::memset(op.dst, op.value, op.bytes);
      break;
    case OpKind::kFree:
      FreeBytes(op.dst, op.bytes);
      device_bytes_in_use_.fetch_sub(op.bytes, std::memory_order_relaxed);
      break;
    case OpKind::kKernel:  // kernels run no code
    case OpKind::kMarker:
    case OpKind::kHostFunc:  // run by RunWorker
      break;
  }
}

namespace {

// The events of an op (times 0 while it is only queued). work_id: the op's address, unique while it
// is queued or running. WorkEventOf fills what every kind of work carries.
template <typename Event>
Event WorkEventOf(const Op& op, uint64_t start_ns, uint64_t end_ns) {
  Event e{};
  e.work_id = reinterpret_cast<uintptr_t>(&op);
  e.correlation_id = op.correlation_id;
  e.device_id = kDeviceId;
  e.context_id = kContextId;
  e.stream_id = op.stream_id;
  e.queued_ns = op.enqueue_ns;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  return e;
}

KernelEvent KernelEventOf(const Op& op, uint64_t start_ns, uint64_t end_ns) {
  KernelEvent e = WorkEventOf<KernelEvent>(op, start_ns, end_ns);
  e.name = op.kernel->mangled_name.c_str();
  e.grid_x = static_cast<int32_t>(op.grid.x);
  e.grid_y = static_cast<int32_t>(op.grid.y);
  e.grid_z = static_cast<int32_t>(op.grid.z);
  e.block_x = static_cast<int32_t>(op.block.x);
  e.block_y = static_cast<int32_t>(op.block.y);
  e.block_z = static_cast<int32_t>(op.block.z);
  e.dynamic_shared_memory = static_cast<int32_t>(op.dynamic_shared_memory);
  e.submitted_ns =
      start_ns == 0
          ? 0
          : std::max(op.enqueue_ns, start_ns - std::min(start_ns, kKernelSubmittedToStartNs));
  e.graph_id = op.graph_id;
  e.graph_node_id = op.graph_node_id;
  e.cooperative = op.cooperative;
  return e;
}

MemcpyEvent MemcpyEventOf(const Op& op, uint64_t start_ns, uint64_t end_ns) {
  MemcpyEvent e = WorkEventOf<MemcpyEvent>(op, start_ns, end_ns);
  e.copy_kind = op.copy_kind;
  e.src_kind = op.src_kind;
  e.dst_kind = op.dst_kind;
  e.is_async = op.is_async;
  e.bytes = op.bytes;
  return e;
}

MemsetEvent MemsetEventOf(const Op& op, uint64_t start_ns, uint64_t end_ns) {
  MemsetEvent e = WorkEventOf<MemsetEvent>(op, start_ns, end_ns);
  e.value = static_cast<uint32_t>(op.value);
  e.memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  e.is_async = op.is_async;
  e.bytes = op.bytes;
  return e;
}

}  // namespace

void Engine::ReportQueued(const Op& op) {
  switch (op.kind) {
    case OpKind::kKernel: {
      const KernelEvent e = KernelEventOf(op, 0, 0);
      Sinks().Deliver([&e](ActivitySink& sink) { sink.OnKernelQueued(e); });
      break;
    }
    case OpKind::kMemcpy: {
      const MemcpyEvent e = MemcpyEventOf(op, 0, 0);
      Sinks().Deliver([&e](ActivitySink& sink) { sink.OnMemcpyQueued(e); });
      break;
    }
    case OpKind::kMemset: {
      const MemsetEvent e = MemsetEventOf(op, 0, 0);
      Sinks().Deliver([&e](ActivitySink& sink) { sink.OnMemsetQueued(e); });
      break;
    }
    case OpKind::kMarker:
    case OpKind::kFree:
    case OpKind::kHostFunc:
      break;
  }
}

void Engine::ReportCompletion(const Op& op, uint64_t start_ns, uint64_t end_ns) {
  switch (op.kind) {
    case OpKind::kKernel: {
      const KernelEvent e = KernelEventOf(op, start_ns, end_ns);
      Sinks().Deliver([&e](ActivitySink& sink) { sink.OnKernel(e); });
      break;
    }
    case OpKind::kMemcpy: {
      const MemcpyEvent e = MemcpyEventOf(op, start_ns, end_ns);
      Sinks().Deliver([&e](ActivitySink& sink) { sink.OnMemcpy(e); });
      break;
    }
    case OpKind::kMemset: {
      const MemsetEvent e = MemsetEventOf(op, start_ns, end_ns);
      Sinks().Deliver([&e](ActivitySink& sink) { sink.OnMemset(e); });
      break;
    }
    case OpKind::kMarker:
    case OpKind::kFree:
    case OpKind::kHostFunc:
      break;
  }
}

}  // namespace simcuda
