// The device model's state: configuration, registries, streams with their worker threads, events,
// and the one mutex + condition variable that order enqueueing and completion. The extern "C"
// engine API (include/simcuda/engine.h) is a thin layer over this class.
// Thread-safe. Never destroyed (see GetEngine): device threads may run until the process is gone.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_ENGINE_CORE_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_ENGINE_CORE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kernel_registry.h"
#include "memory_registry.h"
#include "nccl_group.h"
#include "op.h"
#include "sim_config.h"

namespace simcuda {

struct Event {
  unsigned flags = 0;
  uint32_t id = 0;
  std::shared_ptr<Op> marker;  // last recorded; guarded by Engine::mu_
};

class Engine {
 public:
  explicit Engine(config::SimConfig config);

  const config::SimConfig& config() const { return config_; }
  KernelRegistry& kernels() { return kernels_; }
  MemoryRegistry& memory() { return memory_; }
  uint32_t NextCorrelationId();
  std::atomic<uint64_t>& device_bytes_in_use() { return device_bytes_in_use_; }

  // Streams. Pointers are validated under the lock before use; nullptr/false when invalid.
  Stream* Resolve(const void* handle, bool per_thread_default);
  Stream* CreateStream(bool blocking, int priority = 0);
  bool DestroyStream(Stream* stream);
  // Marks the calling thread's per-thread default stream destroyed (thread exit).
  void RetireStream(Stream* stream);
  bool StreamId(Stream* stream, uint32_t* id);
  // Flags (blocking), priority and id of a live stream; false for an invalid one.
  bool StreamInfo(Stream* stream, bool* blocking, int* priority, uint32_t* id);

  // Queues `op` on `stream` (sets enqueue time, stream id and legacy-stream dependencies; `extra`
  // is one more dependency, may be null). Returns false for an invalid stream.
  bool Enqueue(Stream* stream, const std::shared_ptr<Op>& op,
               const std::shared_ptr<Op>& extra_dependency = nullptr);
  // Blocks until `op` (may be null) is done, the way sync_mode() says: blocking sleeps on a
  // condition variable; spin polls without yielding the CPU; yield polls with sched_yield.
  // `blocking` forces the condition-variable wait (an event created with cudaEventBlockingSync).
  void Wait(const std::shared_ptr<Op>& op, bool blocking = false);
  // Blocks until every op enqueued so far on every stream is done.
  void WaitAll();
  // The stream's last op; false for an invalid stream.
  bool LastOp(Stream* stream, std::shared_ptr<Op>* op);
  bool IsDone(const std::shared_ptr<Op>& op);

  // Events.
  Event* CreateEvent(unsigned flags);
  bool DestroyEvent(Event* event);
  // Copies what the caller needs from a live event under the lock.
  bool ReadEvent(Event* event, unsigned* flags, uint32_t* id, std::shared_ptr<Op>* marker);
  bool SetEventMarker(Event* event, const std::shared_ptr<Op>& marker);
  // Reads a completed op's times; false when not done.
  bool Times(const std::shared_ptr<Op>& op, uint64_t* start_ns, uint64_t* end_ns);

  // How host threads wait for device work: a SIMCUDA_SYNC_* value (engine.h).
  int sync_mode() const { return sync_mode_.load(std::memory_order_relaxed); }
  void set_sync_mode(int mode) { sync_mode_.store(mode, std::memory_order_relaxed); }

  // Process exit has begun: device threads stop touching host memory (the program's buffers may
  // already be gone) but keep completing ops, so nothing waiting hangs.
  void BeginExit();
  bool Exiting() const { return exiting_.load(std::memory_order_acquire); }

 private:
  std::shared_ptr<Stream> NewStreamLocked(bool blocking, bool legacy);
  bool LiveLocked(Stream* stream) const;
  void RunWorker(std::shared_ptr<Stream> stream);
  // Runs the op's effect (copy, memset, free) on the device thread.
  void Execute(const Op& op);
  void ReportCompletion(const Op& op, uint64_t start_ns, uint64_t end_ns);
  // Tells the sink that device work was queued (ActivitySink::On*Queued), under the engine's lock.
  void ReportQueued(const Op& op);
  // A collective kernel that started at `start_ns` (nccl_group.h): waits for the group's other
  // ranks and returns its end (the last rank's start + its duration). Ends the process with a
  // message when the group cannot be joined or a rank never comes.
  uint64_t AwaitCollective(const Op& op, uint64_t start_ns);
  // Waits (lock held on entry and exit) until `op` is done, in the current sync mode.
  void WaitDoneLocked(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Op>& op,
                      bool blocking = false);

  const config::SimConfig config_;
  KernelRegistry kernels_;
  MemoryRegistry memory_;
  std::atomic<uint32_t> next_correlation_id_{1};
  std::atomic<uint64_t> device_bytes_in_use_{0};
  std::atomic<bool> exiting_{false};
  std::atomic<int> sync_mode_{0};
  // Collectives: the group, joined at the first collective kernel; the next collective's number.
  std::once_flag nccl_once_;
  std::atomic<NcclGroup*> nccl_{nullptr};  // never destroyed (device threads may wait in it)
  std::atomic<uint64_t> nccl_next_index_{0};

  std::mutex mu_;
  std::condition_variable done_cv_;  // notified whenever an op completes
  std::unordered_map<Stream*, std::shared_ptr<Stream>> streams_;  // with a running worker
  Stream* legacy_ = nullptr;
  uint32_t next_stream_id_ = 13;
  std::unordered_map<Event*, std::unique_ptr<Event>> events_;
  uint32_t next_event_id_ = 1;
};

// The engine, created on first use from the environment. On a malformed BRRR_SIM_* value prints
// "simcuda: <message>" and exits with status 2.
Engine& GetEngine();
// Whether GetEngine has created the engine (never creates it).
bool EngineStarted();

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_ENGINE_CORE_H_
