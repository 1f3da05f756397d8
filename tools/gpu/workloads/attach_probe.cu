// What each step of attaching and detaching CUPTI costs on the real driver, with and without device
// work queued (issue 26): on a device-bound loop detached between 50 ms windows, an H100 spent
// 31 ms per attach and 22 ms per detach, about as long as the device's queue (1,600 kernels of
// 20 us): does a step wait for the queued work? For each step, one line:
//
//   step <name> backlog_ms <B> took_us <T> left_ms <L> next_launch_us <N> next_100_us <H>
//
// B: the device work queued just before the step (kernels that spin 100 us each); T: the step's
// time; L: how long a cudaDeviceSynchronize right after it took, that is what was still queued
// (L near B - T: the step did not wait; L near 0 with T near B: it waited for the queue). With
// nothing queued, N and H: what the app's next empty launch and the 100 after it took (a cost a
// step leaves to the app's next calls), and L then what the synchronize after them took.
// The steps, in brrr's order (shim/cupti_session.cc): cuptiSubscribe, the timestamp callback,
// cuptiActivityRegisterCallbacks, cuptiActivityEnable of each kind brrr enables, the driver API
// callbacks, the kinds disabled, a forced flush with work queued (plus how many records it gave
// back without timestamps, and how many of that work came back later: none expected), and
// cuptiFinalize; then the whole attach again after the finalize, and brrr's detach (the kinds off,
// a forced flush, cuptiFinalize) after another attach.
//
//   attach_probe [BACKLOG_MS (default 30)]
//   attach_probe queue: how deep the device's queue is (no CUPTI): launches of kernels that spin
//   200 us, with an 8-byte and with a 4 KiB argument, until one waits (over 100 us); prints
//   `queue arg_bytes <B> first_waiting_launch <N>` (N: the launches the queue held before it).
//
//   attach_probe concurrent: do the app's launches wait while another thread attaches or detaches
//   CUPTI, as brrr's control thread does (the cost estimate counts an attach in full, as if they
//   did)? The main thread launches kernels of 0 us (a launch-bound loop), then of 20 us (a
//   device-bound one, its queue full), while a second thread attaches (the whole attach), waits
//   100 ms, turns the kinds off, flushes and finalizes, twice; then as many launches alone. One
//   line per loop and one per step:
//
//   concurrent kernel_us <K> cupti <0|1> launches <L> loop_ms <W> launch_p50_us <M>
//   concurrent kernel_us <K> step <attach|detach> took_ms <T> launches_during <N>
//       longest_launch_ms <X> blocked_ms <B>
//
//   W: the loop's wall (W with CUPTI less W alone: what the steps cost the app, device idle
//   included); N: the launches that began and ended inside the step (0 with X near T: the app
//   waited for it); B: the time the launches overlapping the step took beyond the median.
//
// Must never: leave work queued between steps (each starts from an idle device).
#include <cuda_runtime.h>
#include <cupti.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include "spin.cuh"


struct Big {
  unsigned long long ns;
  char pad[4088];
};

__global__ void SpinBig(Big b) { SpinFor(b.ns); }

namespace {

constexpr unsigned long long kSpinNs = 100'000;
long long g_timed = 0, g_untimed = 0;  // kernel records handed back
CUpti_SubscriberHandle g_sub = nullptr;

uint64_t NowNs() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(t.tv_nsec);
}

uint64_t CUPTIAPI Timestamp() { return NowNs(); }

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    auto* k = reinterpret_cast<CUpti_ActivityKernel9*>(record);
    (k->start == 0 || k->end == 0 ? g_untimed : g_timed)++;
  }
  free(buffer);
}

void CUPTIAPI OnApi(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void Queue(int backlog_ms) {
  for (long i = 0; i < backlog_ms * 1'000'000ll / static_cast<long long>(kSpinNs); ++i) {
    Spin<<<1, 1>>>(kSpinNs);
  }
}

// Runs `step` with `backlog_ms` of work queued before it; prints its line.
template <typename Step>
void Time(const char* name, int backlog_ms, Step step) {
  cudaDeviceSynchronize();
  Queue(backlog_ms);
  const uint64_t t0 = NowNs();
  const CUptiResult r = step();
  const uint64_t t1 = NowNs();
  // What the app's next calls pay: one empty launch, then 100 more (on an idle device).
  uint64_t next_ns = 0, next100_ns = 0;
  if (backlog_ms == 0) {
    Spin<<<1, 1>>>(0);
    next_ns = NowNs() - t1;
    const uint64_t t = NowNs();
    for (int i = 0; i < 100; ++i) Spin<<<1, 1>>>(0);
    next100_ns = NowNs() - t;
  }
  const uint64_t t1s = NowNs();
  cudaDeviceSynchronize();
  const uint64_t t2 = NowNs();
  const char* text = "ok";
  if (r != CUPTI_SUCCESS) cuptiGetResultString(r, &text);
  printf("step %-28s backlog_ms %3d took_us %9.1f left_ms %6.2f next_launch_us %7.1f "
         "next_100_us %7.1f  %s\n",
         name, backlog_ms, (t1 - t0) / 1e3, (t2 - t1s) / 1e6, next_ns / 1e3, next100_ns / 1e3,
         text);
}

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_DRIVER};
const char* const kKindNames[] = {"enable kernel",  "enable memcpy",       "enable memset",
                                  "enable runtime", "enable sync",         "enable driver"};

CUptiResult EnableAll() {
  for (CUpti_ActivityKind k : kKinds) {
    if (const CUptiResult r = cuptiActivityEnable(k); r != CUPTI_SUCCESS) return r;
  }
  return CUPTI_SUCCESS;
}

CUptiResult DisableAll() {
  for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
  return CUPTI_SUCCESS;
}

// The whole attach, as brrr's shim does it (without the runtime callbacks).
CUptiResult Attach() {
  CUptiResult r = cuptiSubscribe(&g_sub, reinterpret_cast<CUpti_CallbackFunc>(OnApi), nullptr);
  if (r == CUPTI_SUCCESS) r = cuptiActivityRegisterTimestampCallback(Timestamp);
  if (r == CUPTI_SUCCESS) r = cuptiActivityRegisterCallbacks(Requested, Completed);
  if (r == CUPTI_SUCCESS) r = EnableAll();
  if (r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
  return r;
}

// The `concurrent` mode, one loop of kernels of `kernel_ns`: with `launches` 0, while another
// thread attaches and detaches CUPTI twice (launching until it is done, then 20 ms more);
// otherwise `launches` of them alone. Prints the lines described at the top; returns the launches.
long ConcurrentLoop(long launches, unsigned long long kernel_ns) {
  struct Span {
    uint64_t begin, end;
  };
  const bool cupti = launches == 0;
  std::vector<Span> calls;
  calls.reserve(cupti ? 4'000'000 : static_cast<size_t>(launches));
  std::vector<std::pair<const char*, Span>> steps;
  std::atomic<bool> started{false}, done{!cupti};
  cudaDeviceSynchronize();
  std::thread control;
  if (cupti) {
    control = std::thread([&] {
      while (!started.load()) std::this_thread::yield();
      for (int round = 0; round < 2; ++round) {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        const uint64_t a0 = NowNs();
        Attach();
        steps.push_back({"attach", {a0, NowNs()}});
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const uint64_t d0 = NowNs();
        DisableAll();
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        cuptiFinalize();
        steps.push_back({"detach", {d0, NowNs()}});
      }
      done.store(true);
    });
  }
  const uint64_t t0 = NowNs();
  uint64_t done_at = 0;
  started.store(true);
  while (cupti ? calls.size() < calls.capacity() && (done_at == 0 || NowNs() - done_at < 20'000'000)
               : calls.size() < static_cast<size_t>(launches)) {
    if (done_at == 0 && done.load()) done_at = NowNs();
    const uint64_t b = NowNs();
    Spin<<<1, 1>>>(kernel_ns);
    calls.push_back({b, NowNs()});
  }
  cudaDeviceSynchronize();
  const uint64_t wall = NowNs() - t0;
  if (control.joinable()) control.join();
  std::vector<uint64_t> took;
  took.reserve(calls.size());
  for (const Span& c : calls) took.push_back(c.end - c.begin);
  std::nth_element(took.begin(), took.begin() + took.size() / 2, took.end());
  const uint64_t median = took[took.size() / 2];
  printf("concurrent kernel_us %llu cupti %d launches %zu loop_ms %.1f launch_p50_us %.2f\n",
         kernel_ns / 1000, cupti ? 1 : 0, calls.size(), wall / 1e6, median / 1e3);
  for (const auto& [name, s] : steps) {
    long inside = 0;
    uint64_t longest = 0, blocked = 0;
    for (const Span& c : calls) {
      if (c.end <= s.begin || c.begin >= s.end) continue;  // no overlap
      if (c.begin >= s.begin && c.end <= s.end) ++inside;
      longest = std::max(longest, c.end - c.begin);
      if (c.end - c.begin > median) blocked += c.end - c.begin - median;
    }
    printf("concurrent kernel_us %llu step %s took_ms %.2f launches_during %ld longest_launch_ms "
           "%.2f blocked_ms %.2f\n",
           kernel_ns / 1000, name, (s.end - s.begin) / 1e6, inside, longest / 1e6,
           blocked / 1e6);
  }
  return static_cast<long>(calls.size());
}

}  // namespace

// The index of the first launch that waited over 100 us for room (-1: none of `max`).
template <typename Launch>
long FirstWaitingLaunch(long max, Launch launch) {
  cudaDeviceSynchronize();
  long first = -1;
  for (long i = 0; i < max && first < 0; ++i) {
    const uint64_t t0 = NowNs();
    launch();
    if (NowNs() - t0 > 100'000) first = i;
  }
  cudaDeviceSynchronize();
  return first;
}

int main(int argc, char** argv) {
  cudaFree(nullptr);  // the context
  if (argc > 1 && std::string_view(argv[1]) == "queue") {
    Big big{};
    big.ns = 200'000;
    for (int round = 0; round < 2; ++round) {
      printf("queue arg_bytes 8 first_waiting_launch %ld\n",
             FirstWaitingLaunch(20000, [] { Spin<<<1, 1>>>(200'000); }));
      printf("queue arg_bytes %zu first_waiting_launch %ld\n", sizeof(Big),
             FirstWaitingLaunch(20000, [&big] { SpinBig<<<1, 1>>>(big); }));
    }
    return 0;
  }
  if (argc > 1 && std::string_view(argv[1]) == "concurrent") {
    for (unsigned long long kernel_ns : {0ull, 20'000ull}) {
      ConcurrentLoop(ConcurrentLoop(0, kernel_ns), kernel_ns);  // the same launches alone after
    }
    return 0;
  }
  const int backlog = argc > 1 ? atoi(argv[1]) : 30;
  Spin<<<1, 1>>>(1000);
  cudaDeviceSynchronize();
  for (int b : {0, backlog}) {
    Time("subscribe", b, [] {
      return cuptiSubscribe(&g_sub, reinterpret_cast<CUpti_CallbackFunc>(OnApi), nullptr);
    });
    Time("timestamp callback", b, [] { return cuptiActivityRegisterTimestampCallback(Timestamp); });
    Time("register buffers", b, [] { return cuptiActivityRegisterCallbacks(Requested, Completed); });
    for (size_t i = 0; i < sizeof(kKinds) / sizeof(kKinds[0]); ++i) {
      Time(kKindNames[i], b, [i] { return cuptiActivityEnable(kKinds[i]); });
    }
    Time("driver callbacks", b,
         [] { return cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API); });
    Time("kinds off", b, [] { return DisableAll(); });
    Time("kinds on again", b, [] { return EnableAll(); });
    // Work queued while the kernel kind is on, then a forced flush: what comes back untimed?
    cudaDeviceSynchronize();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // the earlier steps' records
    g_timed = g_untimed = 0;
    Time("forced flush", b, [] { return cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); });
    const long long timed_at_flush = g_timed, untimed_at_flush = g_untimed;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    printf("flush backlog_ms %3d queued %lld: at the flush %lld timed %lld untimed; later %lld timed "
           "%lld untimed\n",
           b, b * 1'000'000ll / static_cast<long long>(kSpinNs), timed_at_flush, untimed_at_flush,
           g_timed - timed_at_flush, g_untimed - untimed_at_flush);
    Time("finalize", b, [] { return cuptiFinalize(); });
    Time("whole attach after finalize", b, [] { return Attach(); });
    Time("kinds off, finalize", b, [] {
      DisableAll();
      return cuptiFinalize();
    });
    // brrr's own order at a detach: the kinds off at the window's close, a forced flush (the
    // control thread), then cuptiFinalize (at an app thread's next callback). A forced flush alone
    // left the next launch 0.8-0.9 ms (H200): is that still paid after the finalize?
    Attach();
    Time("kinds off, flush, finalize", b, [] {
      DisableAll();
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      return cuptiFinalize();
    });
  }
  return 0;
}
