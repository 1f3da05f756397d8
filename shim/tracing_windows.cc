// See tracing_windows.h. Off the hot path: the control thread, start-up and exit only.
#include "shim/tracing_windows.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>

#include "shim/clock.h"
#include "shim/cupti_session.h"
#include "shim/detach_grace.h"

namespace brrr::shim {
namespace {

struct TracingState {
  uint32_t permille = 1000;
  uint32_t budget_permille = 0;
  uint64_t seed = 0;
  uint64_t window_ns = 50'000'000;
  bool scheduled = false;          // StartTracingWindows ran (sampling only)
  bool activity_on = true;         // CUPTI's kinds are enabled (as CuptiSetupOnce leaves them)
  bool finished = false;           // CloseTracingWindowAtExit ran
  uint64_t open_since = 0;         // start of the window being traced now (0 = none)
  ring::SegmentHeader* header = nullptr;
  WindowSchedule schedule;
  DetachGrace grace{50'000'000};  // the wait before a detach after activity goes off
};

constinit TracingState g_state;  // no dynamic initialization: see DetachGrace's constructors
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;

struct Lock {
  Lock() {
    while (g_lock.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  ~Lock() { g_lock.clear(std::memory_order_release); }
};

bool Sampling() { return g_state.permille < 1000; }

void WriteWindowRecord(uint64_t start, uint64_t end, uint64_t detach_at = 0) {
  ring::DeviceRecord r{};
  r.kind = static_cast<uint8_t>(ring::DeviceKind::kTracingWindow);
  r.start = start;
  r.end = end;
  r.queued = detach_at;
  (void)AppendOwnDeviceRecord(r);  // a full ring loses it; the header's totals still count it
}

void OpenWindow(uint64_t now) {
  g_state.open_since = now;
  if (g_state.header != nullptr) {
    g_state.header->device_window_open_ns.store(now, std::memory_order_relaxed);
    WriteWindowRecord(now, 0);
  }
}

// `detach_at`: when CUPTI is to be detached after it (ring::kWindowKeptAttached: it stays attached
// where it used to detach; 0: no detach asked).
void CloseWindow(uint64_t now, uint64_t detach_at = 0) {
  const uint64_t since = g_state.open_since;
  g_state.open_since = 0;
  if (g_state.header == nullptr || since == 0) return;
  const uint64_t end = now > since ? now : since;
  WriteWindowRecord(since, end,
                    detach_at > end || detach_at == ring::kWindowKeptAttached ? detach_at : 0);
  ring::SegmentHeader* h = g_state.header;
  h->device_traced_ns.fetch_add(end - since, std::memory_order_relaxed);
  h->device_windows.fetch_add(1, std::memory_order_relaxed);
  h->device_window_open_ns.store(0, std::memory_order_relaxed);
}

// A share the collector asked for (1..999), applied from now on: a new schedule whose first
// period starts now (a window open now closes unless the new schedule is inside one).
void ApplyWantedShare(uint64_t now_ns) {
  ring::SegmentHeader* h = g_state.header;
  if (h == nullptr) return;
  const uint32_t wanted = h->device_sample_wanted_permille.load(std::memory_order_relaxed);
  if (wanted == 0 || wanted >= 1000 || wanted == g_state.permille) return;
  g_state.permille = wanted;
  g_state.seed = g_state.seed * 0x9E3779B97F4A7C15ull + now_ns;
  g_state.schedule = WindowSchedule(wanted, g_state.window_ns, g_state.seed, now_ns);
  h->device_sample_permille.store(wanted, std::memory_order_relaxed);
}

}  // namespace

void ConfigureDeviceTracing(uint32_t permille, uint32_t window_ms, uint32_t budget_permille,
                            bool adaptive_detach_wait) {
  Lock lock;
  g_state.budget_permille = budget_permille <= 1000 ? budget_permille : 0;
  g_state.permille = permille == 0 || permille > 1000 ? 1000 : permille;
  g_state.window_ns = uint64_t{window_ms == 0 ? 1 : window_ms} * 1'000'000;
  g_state.grace = DetachGrace(g_state.window_ns, adaptive_detach_wait);
}

void StartTracingWindows(ring::SegmentHeader* header, uint64_t now_ns) {
  Lock lock;
  header->device_sample_permille.store(g_state.permille, std::memory_order_relaxed);
  header->device_window_ms = static_cast<uint32_t>(g_state.window_ns / 1'000'000);
  header->device_budget_permille = g_state.budget_permille;
  if (!Sampling() || g_state.scheduled) return;
  g_state.header = header;
  g_state.seed = now_ns ^ (static_cast<uint64_t>(getpid()) << 32);
  // Short first windows give a short run several; under a budget each window's fixed cost (the
  // attach, the first launch's) weighs more in a short one, and the budget steers the share.
  g_state.schedule = WindowSchedule(g_state.permille, g_state.window_ns, g_state.seed, now_ns,
                                    /*ramp=*/g_state.budget_permille == 0);
  g_state.scheduled = true;
  header->device_sampling_start_ns = now_ns;
}

uint64_t UpdateDeviceTracing(bool paused, uint64_t now_ns) {
  Lock lock;
  if (g_state.finished) return UINT64_MAX;
  bool want = !paused;
  uint64_t next = UINT64_MAX;
  if (Sampling()) {
    if (!g_state.scheduled) {
      want = false;  // no segment yet: nothing traced before the first window
    } else {
      ApplyWantedShare(now_ns);
      while (now_ns >= g_state.schedule.current().end_ns) g_state.schedule.Advance();
      const WindowSchedule::Window w = g_state.schedule.current();
      const bool inside = now_ns >= w.start_ns;
      next = inside ? w.end_ns : w.start_ns;
      // A tool of the app's own took CUPTI (cupti_coexistence.cc): nothing is traced any more.
      want = want && inside && CuptiCurrentStatus().active;
    }
  }
  if (want == g_state.activity_on) return next;
  if (want) {
    CuptiSetActivity(true);
    g_state.activity_on = true;
    if (Sampling()) {
      const uint64_t opened = MonotonicNs();
      OpenWindow(opened);  // launches from now on have their records
      // As long as asked from here: the attach (detached between windows) can take a good part of
      // a window.
      g_state.schedule.OpenedAt(opened);
      next = g_state.schedule.current().end_ns;
    }
  } else {
    const uint64_t now = MonotonicNs();
    // A detach waits so that the window's queued work finishes and is recorded first, as long as
    // the flushes before the last detaches found it needed; 0: CUPTI stays attached (the device
    // runs behind its host). Both: detach_grace.h.
    const uint64_t detach_at = g_state.grace.detaches() ? now + g_state.grace.ns() : 0;
    if (Sampling() && g_state.open_since != 0) {
      const uint64_t said = detach_at != 0 ? detach_at : ring::kWindowKeptAttached;
      CloseWindow(now, CuptiDetachesWhenOff() ? said : 0);
    }
    CuptiSetActivity(false, detach_at);
    g_state.activity_on = false;
  }
  return next;
}

void NoteDetachFlush(uint64_t untimed) {
  Lock lock;
  g_state.grace.OnFlushBeforeDetach(untimed);
}

void NoteDetachTook(uint64_t ns) {
  Lock lock;
  g_state.grace.OnDetachTook(ns);
}

void CloseTracingWindowAtExit() {
  Lock lock;
  if (g_state.finished) return;
  g_state.finished = true;
  if (Sampling() && g_state.open_since != 0) CloseWindow(MonotonicNs());
}

}  // namespace brrr::shim
