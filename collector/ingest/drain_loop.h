// Drains a segment into an EventSink repeatedly, pacing itself: every `min_interval` while rings
// fill up, backing off to `max_interval` while they stay nearly empty. The final drain after the
// app is gone is the caller's (so it happens after the app's last write, not before).
//
// Thread-safety: DrainThread's Start/Stop from one controlling thread; the reader and sink are used
// only by the drain thread between Start and Stop.
// Must never: sleep longer than max_interval between drains, or keep draining after Stop returns.
#ifndef BRRR_COLLECTOR_INGEST_DRAIN_LOOP_H_
#define BRRR_COLLECTOR_INGEST_DRAIN_LOOP_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "collector/events.h"
#include "collector/ingest/segment_reader.h"

namespace brrr::ingest {

struct DrainPacing {
  std::chrono::microseconds min_interval{1000};
  std::chrono::microseconds max_interval{10000};
  double busy_fill = 0.125;  // a ring this full (fraction of capacity) means "hurry"
};

// The pause before the next drain, given what the last one found and the previous pause.
std::chrono::microseconds NextDrainInterval(const DrainResult& last,
                                            std::chrono::microseconds previous,
                                            const DrainPacing& pacing);

// Drains until `wait_for_stop(interval)` returns true. That function waits up to `interval` and
// returns true when draining should stop (stop requested, app gone, ...). `after_drain`, if set,
// runs after each drain on the same thread.
void RunDrainLoop(SegmentReader& reader, EventSink& sink,
                  const std::function<bool(std::chrono::microseconds)>& wait_for_stop,
                  const DrainPacing& pacing = {},
                  const std::function<void(const DrainResult&)>& after_drain = nullptr);

// RunDrainLoop on its own thread, stopped promptly by Stop().
class DrainThread {
 public:
  // `on_app_finished`, if set, runs once on the drain thread, after the first drain that found
  // the app's `finished` flag set (R5) - while the app may still be alive.
  DrainThread(SegmentReader* reader, EventSink* sink, DrainPacing pacing = {},
              std::function<void()> on_app_finished = nullptr)
      : reader_(reader),
        sink_(sink),
        pacing_(pacing),
        on_app_finished_(std::move(on_app_finished)) {}
  ~DrainThread() { Stop(); }
  DrainThread(const DrainThread&) = delete;
  DrainThread& operator=(const DrainThread&) = delete;

  // `after_each`, if set, runs on the drain thread after every drain (live snapshots). Before
  // Start.
  void SetAfterEachDrain(std::function<void()> after_each) { after_each_ = std::move(after_each); }

  void Start();
  // Requests the stop and joins. Idempotent.
  void Stop();
  // Number of drains done so far (for tests and diagnostics).
  uint64_t drains() const;

 private:
  SegmentReader* reader_;
  EventSink* sink_;
  DrainPacing pacing_;
  std::function<void()> on_app_finished_;
  std::function<void()> after_each_;
  bool app_finished_seen_ = false;  // drain thread only
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  uint64_t drains_ = 0;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_DRAIN_LOOP_H_
