// See control_thread.h. Everything here is off the hot path: one thread, waking every
// kControlPollMs.
#include "shim/control_thread.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>

#include "shim/capture_gate.h"
#include "shim/clock.h"
#include "shim/collector_launcher.h"
#include "shim/cupti_session.h"
#include "shim/tracing_windows.h"

namespace brrr::shim {
namespace {

std::atomic<bool> g_started{false};
std::atomic<bool> g_stopping{false};
ring::SegmentHeader* g_header = nullptr;
uint32_t g_flush_ms = 0;
uint64_t g_paused_at_ns = 0;  // control thread (or initialization) only
// A pause closes the gate, then turns CUPTI off at once: a call still in flight is then not
// recorded (PausedDuringCall), while CUPTI still delivers the device work launched before (it
// decides at launch). A resume turns CUPTI on, then opens the gate; a call begun while paused and
// ending after that is not counted either: its CUPTI API record (start in the pause) is dropped
// (CallBeganWhilePaused). So a recorded call never lacks its kernel; a kernel may lack its call.
std::atomic<uint64_t> g_pause_began_ns{0};  // the latest pause (MonotonicNs, CUPTI's clock)
std::atomic<uint64_t> g_pause_ended_ns{0};  // its resume; below began while still paused
// The collector watched (plain preload mode): its pid (0: none, or found gone), the segment's name
// and the app's pid for the recovery command.
std::atomic<int> g_collector_pid{0};
const char* g_collector_shm = nullptr;
uint32_t g_collector_app_pid = 0;

void CheckCollector() {
  const int pid = g_collector_pid.load(std::memory_order_acquire);
  if (pid <= 0 || !CollectorGone(pid)) return;
  if (g_collector_pid.exchange(0, std::memory_order_acq_rel) == pid) {
    WarnCollectorGone(g_collector_shm, g_collector_app_pid);
  }
}

void* ControlLoop(void*) {
  uint64_t last_flush_ns = MonotonicNs();
  const uint64_t flush_ns = uint64_t{g_flush_ms} * 1'000'000;
  uint64_t next_window_change = UINT64_MAX;  // sampled device tracing (tracing_windows.h)
  while (!g_stopping.load(std::memory_order_acquire)) {
    uint64_t sleep_ns = uint64_t{ring::kControlPollMs} * 1'000'000;
    if (next_window_change != UINT64_MAX) {
      const uint64_t before = MonotonicNs();
      const uint64_t until = next_window_change > before ? next_window_change - before : 0;
      if (until < sleep_ns) sleep_ns = until;
    }
    timespec tick{static_cast<time_t>(sleep_ns / 1'000'000'000),
                  static_cast<long>(sleep_ns % 1'000'000'000)};
    nanosleep(&tick, nullptr);
    if (g_stopping.load(std::memory_order_acquire)) break;
    ApplyPauseRequest(g_header);
    next_window_change = UpdateDeviceTracing(GatePaused(), MonotonicNs());
    // A detach of CUPTI asked for when tracing went off (cupti_session.h): flushed here, and the
    // wait before the next one adapts to what that flush found still queued.
    DetachFlush flush;
    next_window_change = std::min(next_window_change, CuptiPrepareDetach(MonotonicNs(), &flush));
    if (flush.done) NoteDetachFlush(flush.untimed);
    if (const uint64_t took = CuptiTakeLastDetachNs(); took != 0) NoteDetachTook(took);
    CheckCollector();
    const uint64_t now = MonotonicNs();
    if (flush_ns != 0 && now - last_flush_ns >= flush_ns) {
      last_flush_ns = now;
      if (CuptiFlushPeriodic()) {
        g_header->periodic_flushes.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
  return nullptr;
}

}  // namespace

void WatchCollector(int pid, const char* shm_name, uint32_t app_pid) {
  g_collector_shm = shm_name;
  g_collector_app_pid = app_pid;
  g_collector_pid.store(pid, std::memory_order_release);
}

int WatchedCollector() { return g_collector_pid.load(std::memory_order_acquire); }

void ApplyPauseRequest(ring::SegmentHeader* header) {
  if (header == nullptr) return;
  const bool want = header->control_pause.load(std::memory_order_acquire) != 0;
  if (want == GatePaused()) return;
  if (want) {
    GatePause();  // hooks forward from their next call; one in flight is not recorded
    g_paused_at_ns = MonotonicNs();
    g_pause_began_ns.store(g_paused_at_ns, std::memory_order_release);
    UpdateDeviceTracing(/*paused=*/true, g_paused_at_ns);
  } else {
    UpdateDeviceTracing(/*paused=*/false, MonotonicNs());  // before the gate opens
    const uint64_t now = MonotonicNs();
    g_pause_ended_ns.store(now, std::memory_order_release);
    GateResume();
    if (g_paused_at_ns != 0) {
      header->paused_ns.fetch_add(now - g_paused_at_ns, std::memory_order_relaxed);
    }
    g_paused_at_ns = 0;
  }
  header->paused.store(want ? 1 : 0, std::memory_order_release);
}

bool CallBeganWhilePaused(uint64_t start_ns) {
  const uint64_t began = g_pause_began_ns.load(std::memory_order_acquire);
  if (began == 0 || start_ns < began) return false;
  const uint64_t ended = g_pause_ended_ns.load(std::memory_order_acquire);
  return ended < began || start_ns < ended;
}

void StartControlThread(ring::SegmentHeader* header, uint32_t flush_ms) {
  if (g_started.exchange(true, std::memory_order_acq_rel)) return;
  g_header = header;
  g_flush_ms = flush_ms;
  header->flush_period_ms.store(flush_ms, std::memory_order_relaxed);
  if (GatePaused()) {  // BRRR_START=paused: paused since initialization
    g_paused_at_ns = MonotonicNs();
    g_pause_began_ns.store(1, std::memory_order_release);  // every call so far began paused
    header->control_pause.store(1, std::memory_order_relaxed);
    header->paused.store(1, std::memory_order_release);
  }
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);  // the new thread inherits: it takes no signal
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256 * 1024);  // CUPTI buffer callbacks run on it
  pthread_t thread;
  if (pthread_create(&thread, &attr, &ControlLoop, nullptr) == 0) {
    pthread_setname_np(thread, "brrr-control");  // findable in /proc (tools/bench/flush_bench.sh)
  }
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void StopControlThread() { g_stopping.store(true, std::memory_order_release); }

}  // namespace brrr::shim
