// The paced drain loop. See drain_loop.h.
//
// Must never: busy-spin (every iteration waits at least min_interval unless stopping).
#include "collector/ingest/drain_loop.h"

#include <algorithm>

namespace brrr::ingest {

std::chrono::microseconds NextDrainInterval(const DrainResult& last,
                                            std::chrono::microseconds previous,
                                            const DrainPacing& pacing) {
  if (last.max_fill >= pacing.busy_fill) return pacing.min_interval;
  if (last.max_fill >= pacing.busy_fill / 4) return std::max(pacing.min_interval, previous / 2);
  return std::clamp(previous * 2, pacing.min_interval, pacing.max_interval);
}

void RunDrainLoop(SegmentReader& reader, EventSink& sink,
                  const std::function<bool(std::chrono::microseconds)>& wait_for_stop,
                  const DrainPacing& pacing,
                  const std::function<void(const DrainResult&)>& after_drain) {
  std::chrono::microseconds interval = pacing.min_interval;
  for (;;) {
    const DrainResult result = reader.Drain(sink);
    if (after_drain) after_drain(result);
    interval = NextDrainInterval(result, interval, pacing);
    if (wait_for_stop(interval)) return;
  }
}

void DrainThread::Start() {
  thread_ = std::thread([this] {
    RunDrainLoop(
        *reader_, *sink_,
        [this](std::chrono::microseconds interval) {
          std::unique_lock<std::mutex> lock(mu_);
          ++drains_;
          return cv_.wait_for(lock, interval, [this] { return stop_; });
        },
        pacing_,
        [this](const DrainResult&) {
          if (on_app_finished_ && !app_finished_seen_ && reader_->AppFinished()) {
            app_finished_seen_ = true;
            on_app_finished_();
          }
          if (after_each_) after_each_();
        });
  });
}

void DrainThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t DrainThread::drains() const {
  std::lock_guard<std::mutex> lock(mu_);
  return drains_;
}

}  // namespace brrr::ingest
