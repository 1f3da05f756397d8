// An EventSink decorator that keeps ProcessMaps current while the app runs: when a new stack holds
// a PC outside every known module (a library loaded since the last capture), it re-reads
// /proc/<pid>/maps before forwarding. Everything else is forwarded unchanged.
//
// Thread-safety: none; lives on the drain thread with the reader.
// Must never: re-read the maps for a stack whose PCs are all known, or drop or alter an event.
#ifndef BRRR_COLLECTOR_SYMBOLIZE_MAPS_TRACKING_SINK_H_
#define BRRR_COLLECTOR_SYMBOLIZE_MAPS_TRACKING_SINK_H_

#include <sys/types.h>

#include "collector/events.h"
#include "collector/symbolize/process_maps.h"

namespace brrr::symbolize {

class MapsTrackingSink : public EventSink {
 public:
  MapsTrackingSink(EventSink* inner, ProcessMaps* maps, pid_t pid)
      : inner_(inner), maps_(maps), pid_(pid) {}

  void OnHostCall(const HostCall& call) override { inner_->OnHostCall(call); }
  void OnDeviceOp(const DeviceOp& op) override { inner_->OnDeviceOp(op); }
  void OnApiActivity(const ApiActivity& api) override { inner_->OnApiActivity(api); }
  void OnSyncActivity(const SyncActivity& sync) override { inner_->OnSyncActivity(sync); }
  void OnStack(const Stack& stack) override;
  void OnNvtx(const NvtxEvent& event) override { inner_->OnNvtx(event); }
  void OnCountersRequested() override { inner_->OnCountersRequested(); }
  void OnCounterSample(const CounterSampleEvent& s) override { inner_->OnCounterSample(s); }
  void OnTracingWindow(const TracingWindowEvent& w) override { inner_->OnTracingWindow(w); }

 private:
  EventSink* inner_;
  ProcessMaps* maps_;
  pid_t pid_;
};

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_MAPS_TRACKING_SINK_H_
