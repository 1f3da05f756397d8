// Engine API: streams, device-wide synchronization and the sync mode. Waiting follows the engine's
// sync mode (condition variable, spin or yield).
#include "clock.h"
#include "cupti_activity.h"
#include "engine_core.h"
#include "simcuda/engine.h"
#include "sync_report.h"

using simcuda::Engine;
using simcuda::GetEngine;
using simcuda::Op;
using simcuda::Stream;

namespace {

Stream* AsStream(simcuda_stream* stream) { return reinterpret_cast<Stream*>(stream); }

}  // namespace

SIMCUDA_ENGINE_API simcuda_stream* simcuda_stream_resolve(const void* handle,
                                                          int per_thread_default) {
  return reinterpret_cast<simcuda_stream*>(GetEngine().Resolve(handle, per_thread_default != 0));
}

SIMCUDA_ENGINE_API simcuda_status simcuda_stream_create(unsigned flags, int priority,
                                                        simcuda_stream** out) {
  if (out == nullptr || (flags & ~SIMCUDA_STREAM_NON_BLOCKING) != 0) return SIMCUDA_INVALID_VALUE;
  const bool blocking = (flags & SIMCUDA_STREAM_NON_BLOCKING) == 0;
  // CUDA clamps a priority to [greatest, least] = [-5, 0].
  const int clamped = priority < SIMCUDA_GREATEST_STREAM_PRIORITY ? SIMCUDA_GREATEST_STREAM_PRIORITY
                      : priority > 0                              ? 0
                                                                  : priority;
  *out = reinterpret_cast<simcuda_stream*>(GetEngine().CreateStream(blocking, clamped));
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_stream_info(simcuda_stream* stream, unsigned* flags,
                                                      int* priority, unsigned long long* id) {
  bool blocking = true;
  int p = 0;
  uint32_t stream_id = 0;
  if (!GetEngine().StreamInfo(AsStream(stream), &blocking, &p, &stream_id)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  if (flags != nullptr) *flags = blocking ? 0u : unsigned{SIMCUDA_STREAM_NON_BLOCKING};
  if (priority != nullptr) *priority = p;
  if (id != nullptr) *id = stream_id;
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_stream_destroy(simcuda_stream* stream) {
  return GetEngine().DestroyStream(AsStream(stream)) ? SIMCUDA_SUCCESS
                                                     : SIMCUDA_INVALID_RESOURCE_HANDLE;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_stream_synchronize(simcuda_stream* stream,
                                                             uint32_t correlation_id) {
  Engine& engine = GetEngine();
  const uint64_t start = simcuda::NowNs();
  std::shared_ptr<Op> last;
  uint32_t id = 0;
  if (!engine.LastOp(AsStream(stream), &last) || !engine.StreamId(AsStream(stream), &id)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  engine.Wait(last);
  simcuda::ReportSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, correlation_id, id,
                      simcuda::kSyncInvalid, start, simcuda::NowNs());
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_stream_query(simcuda_stream* stream) {
  Engine& engine = GetEngine();
  std::shared_ptr<Op> last;
  if (!engine.LastOp(AsStream(stream), &last)) return SIMCUDA_INVALID_RESOURCE_HANDLE;
  return engine.IsDone(last) ? SIMCUDA_SUCCESS : SIMCUDA_NOT_READY;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_stream_wait_event(simcuda_stream* stream,
                                                            simcuda_event* event,
                                                            uint32_t correlation_id) {
  Engine& engine = GetEngine();
  const uint64_t start = simcuda::NowNs();
  std::shared_ptr<Op> recorded;
  uint32_t event_id = 0;
  if (!engine.ReadEvent(reinterpret_cast<simcuda::Event*>(event), nullptr, &event_id, &recorded)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  // A zero-length marker that starts after the event's work: later ops of the stream follow it.
  auto marker = std::make_shared<Op>();
  marker->kind = simcuda::OpKind::kMarker;
  marker->correlation_id = correlation_id;
  if (!engine.Enqueue(AsStream(stream), marker, recorded)) return SIMCUDA_INVALID_RESOURCE_HANDLE;
  simcuda::ReportSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, correlation_id,
                      marker->stream_id, event_id, start, simcuda::NowNs());
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_device_synchronize(uint32_t correlation_id) {
  Engine& engine = GetEngine();
  const uint64_t start = simcuda::NowNs();
  engine.WaitAll();
  simcuda::ReportSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, correlation_id,
                      simcuda::kSyncInvalid, simcuda::kSyncInvalid, start, simcuda::NowNs());
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API void simcuda_set_sync_mode(int mode) {
  if (mode == SIMCUDA_SYNC_BLOCKING || mode == SIMCUDA_SYNC_SPIN || mode == SIMCUDA_SYNC_YIELD) {
    GetEngine().set_sync_mode(mode);
  }
}

SIMCUDA_ENGINE_API int simcuda_sync_mode(void) { return GetEngine().sync_mode(); }
