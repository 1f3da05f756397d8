// Registration of the activity sink (simcuda_set_activity_sink from activity_sink.h). Must never
// destroy the dispatch object: device threads may deliver until the process is gone.
#include "sink_dispatch.h"

#include <mutex>

namespace simcuda {

void SinkDispatch::Set(ActivitySink* sink) {
  std::unique_lock lock(mu_);
  if (!stopped_) sink_ = sink;
}

void SinkDispatch::StopForExit() {
  std::unique_lock lock(mu_);
  sink_ = nullptr;
  stopped_ = true;
}

SinkDispatch& Sinks() {
  static SinkDispatch* const dispatch = new SinkDispatch();
  return *dispatch;
}

}  // namespace simcuda

extern "C" __attribute__((visibility("default"))) void simcuda_set_activity_sink(
    simcuda::ActivitySink* sink) {
  simcuda::Sinks().Set(sink);
}
