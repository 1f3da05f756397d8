// The one registered ActivitySink (activity_sink.h) and safe delivery to it from any thread.
// Delivery holds a shared lock, so unregistering (or process exit) waits for deliveries in flight
// and no event reaches a sink after it was replaced. Must never call into the engine while a sink
// runs, and never deliver after StopForExit.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_SINK_DISPATCH_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_SINK_DISPATCH_H_

#include <shared_mutex>

#include "simcuda/activity_sink.h"

namespace simcuda {

class SinkDispatch {
 public:
  // Calls f(sink) under the shared lock when a sink is registered.
  template <typename F>
  void Deliver(F&& f) {
    std::shared_lock lock(mu_);
    if (sink_ != nullptr) f(*sink_);
  }
  bool HasSink() {
    std::shared_lock lock(mu_);
    return sink_ != nullptr;
  }
  void Set(ActivitySink* sink);
  // Drops the sink for good (process exit): later Set calls are ignored.
  void StopForExit();

 private:
  std::shared_mutex mu_;
  ActivitySink* sink_ = nullptr;
  bool stopped_ = false;
};

// The process-wide dispatch; never destroyed (device threads may still run at exit).
SinkDispatch& Sinks();

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_SINK_DISPATCH_H_
