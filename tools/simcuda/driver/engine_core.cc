// Stream bookkeeping, enqueueing with legacy-default-stream dependencies, waiting, and events.
// Every mutable field of streams, ops and events changes only under mu_. Must never block while
// holding mu_ except on done_cv_/work_cv (which release it).
#include "engine_core.h"

#include <sched.h>

#include "clock.h"

namespace simcuda {
namespace {

// The calling thread's per-thread default stream; retired when the thread exits so its worker
// drains and ends.
struct PerThreadStream {
  Stream* stream = nullptr;
  ~PerThreadStream() {
    if (stream != nullptr) GetEngine().RetireStream(stream);
  }
};
thread_local PerThreadStream t_per_thread_stream;

}  // namespace

Engine::Engine(config::SimConfig config) : config_(std::move(config)) {
  std::lock_guard lock(mu_);
  legacy_ = NewStreamLocked(/*blocking=*/true, /*legacy=*/true).get();
}

uint32_t Engine::NextCorrelationId() {
  uint32_t id = next_correlation_id_.fetch_add(1, std::memory_order_relaxed);
  while (id == 0) id = next_correlation_id_.fetch_add(1, std::memory_order_relaxed);
  return id;
}

std::shared_ptr<Stream> Engine::NewStreamLocked(bool blocking, bool legacy) {
  auto stream = std::make_shared<Stream>();
  stream->blocking = blocking;
  stream->legacy = legacy;
  stream->id = legacy ? 7 : next_stream_id_++;
  streams_.emplace(stream.get(), stream);
  std::thread([this, stream] { RunWorker(stream); }).detach();
  return stream;
}

bool Engine::LiveLocked(Stream* stream) const {
  if (stream == nullptr) return false;
  const auto it = streams_.find(stream);
  return it != streams_.end() && !it->second->destroyed;
}

Stream* Engine::Resolve(const void* handle, bool per_thread_default) {
  const bool per_thread =
      handle == SIMCUDA_STREAM_HANDLE_PER_THREAD || (handle == nullptr && per_thread_default);
  if (per_thread) {
    PerThreadStream& slot = t_per_thread_stream;
    std::lock_guard lock(mu_);
    if (!LiveLocked(slot.stream)) slot.stream = NewStreamLocked(/*blocking=*/true, false).get();
    return slot.stream;
  }
  if (handle == nullptr || handle == SIMCUDA_STREAM_HANDLE_LEGACY) return legacy_;
  auto* stream = static_cast<Stream*>(const_cast<void*>(handle));
  std::lock_guard lock(mu_);
  return LiveLocked(stream) ? stream : nullptr;
}

Stream* Engine::CreateStream(bool blocking, int priority) {
  std::lock_guard lock(mu_);
  Stream* stream = NewStreamLocked(blocking, /*legacy=*/false).get();
  stream->priority = priority;
  return stream;
}

bool Engine::DestroyStream(Stream* stream) {
  std::lock_guard lock(mu_);
  if (stream == legacy_ || !LiveLocked(stream)) return false;
  stream->destroyed = true;
  stream->work_cv.notify_one();
  return true;
}

void Engine::RetireStream(Stream* stream) {
  std::lock_guard lock(mu_);
  if (!LiveLocked(stream) || stream == legacy_) return;
  stream->destroyed = true;
  stream->work_cv.notify_one();
}

bool Engine::StreamId(Stream* stream, uint32_t* id) {
  std::lock_guard lock(mu_);
  if (!LiveLocked(stream)) return false;
  *id = stream->id;
  return true;
}

bool Engine::StreamInfo(Stream* stream, bool* blocking, int* priority, uint32_t* id) {
  std::lock_guard lock(mu_);
  if (!LiveLocked(stream)) return false;
  *blocking = stream->blocking;
  *priority = stream->priority;
  *id = stream->id;
  return true;
}

bool Engine::Enqueue(Stream* stream, const std::shared_ptr<Op>& op,
                     const std::shared_ptr<Op>& extra_dependency) {
  std::unique_lock lock(mu_);
  if (!LiveLocked(stream)) return false;
  // A full queue makes the host wait, as a real device's does (SimConfig::queue_depth).
  const uint64_t depth = config_.queue_depth;
  if (depth != 0 && stream->queue.size() >= depth) {
    done_cv_.wait(lock, [&] { return stream->queue.size() < depth || !LiveLocked(stream); });
    if (!LiveLocked(stream)) return false;
  }
  const auto depend_on = [&op](const std::shared_ptr<Op>& other) {
    if (other != nullptr && !other->done) op->deps.push_back(other);
  };
  if (stream->legacy) {
    // The legacy default stream waits for all earlier work of every blocking stream.
    for (const auto& [ptr, other] : streams_) {
      if (other->blocking && !other->legacy) depend_on(other->last);
    }
  } else if (stream->blocking) {
    depend_on(legacy_->last);  // ... and blocking streams wait for earlier legacy work.
  }
  depend_on(extra_dependency);
  op->enqueue_ns = NowNs();
  op->stream_id = stream->id;
  // Before the worker can see it, so before its completion is reported.
  ReportQueued(*op);
  stream->queue.push_back(op);
  stream->last = op;
  stream->work_cv.notify_one();
  return true;
}

void Engine::WaitDoneLocked(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Op>& op,
                            bool blocking) {
  const int mode = blocking ? SIMCUDA_SYNC_BLOCKING : sync_mode();
  if (mode == SIMCUDA_SYNC_BLOCKING) {
    done_cv_.wait(lock, [&op] { return op->done; });
    return;
  }
  // Spin and yield keep the waiting thread on its CPU, as CUDA's spin/yield waits do.
  while (!op->done) {
    lock.unlock();
    if (mode == SIMCUDA_SYNC_YIELD) {
      sched_yield();
    } else {
      for (int i = 0; i < 64; ++i) __builtin_ia32_pause();
    }
    lock.lock();
  }
}

void Engine::Wait(const std::shared_ptr<Op>& op, bool blocking) {
  if (op == nullptr) return;
  std::unique_lock lock(mu_);
  WaitDoneLocked(lock, op, blocking);
}

void Engine::WaitAll() {
  std::vector<std::shared_ptr<Op>> pending;
  std::unique_lock lock(mu_);
  for (const auto& [ptr, stream] : streams_) {
    if (stream->last != nullptr && !stream->last->done) pending.push_back(stream->last);
  }
  for (const auto& op : pending) WaitDoneLocked(lock, op);
}

bool Engine::LastOp(Stream* stream, std::shared_ptr<Op>* op) {
  std::lock_guard lock(mu_);
  if (!LiveLocked(stream)) return false;
  *op = stream->last;
  return true;
}

bool Engine::IsDone(const std::shared_ptr<Op>& op) {
  if (op == nullptr) return true;
  std::lock_guard lock(mu_);
  return op->done;
}

Event* Engine::CreateEvent(unsigned flags) {
  auto event = std::make_unique<Event>();
  event->flags = flags;
  Event* raw = event.get();
  std::lock_guard lock(mu_);
  event->id = next_event_id_++;
  events_.emplace(raw, std::move(event));
  return raw;
}

bool Engine::DestroyEvent(Event* event) {
  std::lock_guard lock(mu_);
  return events_.erase(event) != 0;
}

bool Engine::ReadEvent(Event* event, unsigned* flags, uint32_t* id, std::shared_ptr<Op>* marker) {
  std::lock_guard lock(mu_);
  if (events_.count(event) == 0) return false;
  if (flags != nullptr) *flags = event->flags;
  if (id != nullptr) *id = event->id;
  if (marker != nullptr) *marker = event->marker;
  return true;
}

bool Engine::SetEventMarker(Event* event, const std::shared_ptr<Op>& marker) {
  std::lock_guard lock(mu_);
  if (events_.count(event) == 0) return false;
  event->marker = marker;
  return true;
}

bool Engine::Times(const std::shared_ptr<Op>& op, uint64_t* start_ns, uint64_t* end_ns) {
  std::lock_guard lock(mu_);
  if (op == nullptr || !op->done) return false;
  *start_ns = op->start_ns;
  *end_ns = op->end_ns;
  return true;
}

}  // namespace simcuda
