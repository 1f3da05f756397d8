// Engine API: events as zero-length markers in a stream; their completion time is the marker's
// virtual time. Must never report elapsed time for an event that is not complete.
#include "clock.h"
#include "cupti_activity.h"
#include "engine_core.h"
#include "simcuda/engine.h"
#include "sync_report.h"

using simcuda::Engine;
using simcuda::Event;
using simcuda::GetEngine;
using simcuda::Op;

namespace {

Event* AsEvent(simcuda_event* event) { return reinterpret_cast<Event*>(event); }

}  // namespace

SIMCUDA_ENGINE_API simcuda_status simcuda_event_create(unsigned flags, simcuda_event** out) {
  constexpr unsigned kKnownFlags = 0x1 | 0x2 | 0x4;  // BlockingSync, DisableTiming, Interprocess
  if (out == nullptr || (flags & ~kKnownFlags) != 0) return SIMCUDA_INVALID_VALUE;
  *out = reinterpret_cast<simcuda_event*>(GetEngine().CreateEvent(flags));
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_event_destroy(simcuda_event* event) {
  return GetEngine().DestroyEvent(AsEvent(event)) ? SIMCUDA_SUCCESS
                                                  : SIMCUDA_INVALID_RESOURCE_HANDLE;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_event_record(simcuda_event* event, simcuda_stream* stream,
                                                       uint32_t correlation_id) {
  Engine& engine = GetEngine();
  if (!engine.ReadEvent(AsEvent(event), nullptr, nullptr, nullptr)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  auto marker = std::make_shared<Op>();
  marker->kind = simcuda::OpKind::kMarker;
  marker->correlation_id = correlation_id;
  if (!engine.Enqueue(reinterpret_cast<simcuda::Stream*>(stream), marker)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  return engine.SetEventMarker(AsEvent(event), marker) ? SIMCUDA_SUCCESS
                                                       : SIMCUDA_INVALID_RESOURCE_HANDLE;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_event_query(simcuda_event* event) {
  Engine& engine = GetEngine();
  std::shared_ptr<Op> marker;
  if (!engine.ReadEvent(AsEvent(event), nullptr, nullptr, &marker)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  return engine.IsDone(marker) ? SIMCUDA_SUCCESS : SIMCUDA_NOT_READY;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_event_synchronize(simcuda_event* event,
                                                            uint32_t correlation_id) {
  Engine& engine = GetEngine();
  const uint64_t start = simcuda::NowNs();
  std::shared_ptr<Op> marker;
  uint32_t id = 0;
  unsigned flags = 0;
  if (!engine.ReadEvent(AsEvent(event), &flags, &id, &marker)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  engine.Wait(marker, (flags & SIMCUDA_EVENT_BLOCKING_SYNC) != 0);
  simcuda::ReportSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, correlation_id,
                      marker != nullptr ? marker->stream_id : simcuda::kSyncInvalid, id, start,
                      simcuda::NowNs());
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_event_elapsed_ms(float* ms, simcuda_event* start,
                                                           simcuda_event* end) {
  Engine& engine = GetEngine();
  if (ms == nullptr) return SIMCUDA_INVALID_VALUE;
  unsigned start_flags = 0, end_flags = 0;
  std::shared_ptr<Op> start_marker, end_marker;
  if (!engine.ReadEvent(AsEvent(start), &start_flags, nullptr, &start_marker) ||
      !engine.ReadEvent(AsEvent(end), &end_flags, nullptr, &end_marker)) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  if (((start_flags | end_flags) & SIMCUDA_EVENT_DISABLE_TIMING) != 0) {
    return SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  if (start_marker == nullptr || end_marker == nullptr) return SIMCUDA_INVALID_RESOURCE_HANDLE;
  uint64_t unused, start_ns, end_ns;
  if (!engine.Times(start_marker, &unused, &start_ns) ||
      !engine.Times(end_marker, &unused, &end_ns)) {
    return SIMCUDA_NOT_READY;
  }
  *ms = static_cast<float>((static_cast<double>(end_ns) - static_cast<double>(start_ns)) / 1e6);
  return SIMCUDA_SUCCESS;
}
