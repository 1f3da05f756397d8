// Measures what each CUPTI activity kind and callback domain costs per kernel launch on the real
// driver (issue 26), without brrr: one process per mode, a launch-bound loop of empty kernels, the
// host time per launch (enqueue only, and with the final synchronize). acceptance.sh's `cost`
// section runs every mode interleaved and prints medians; brrr keeps only what its report needs.
//
//   cupti_cost MODE [--launches N]      prints
//   "MODE<TAB>ns_per_launch<TAB>ns_per_launch_synced<TAB>records" modes: none, kernel,
//   kernel+latency, memcpy+memset, runtime, driver, sync, cb-launch,
//          cb-driver-domain, cb-runtime-domain, brrr-set (what the shim enables today),
//          brrr-set-lat (and latency timestamps, as the shim did before), brrr-set-nodrv
//          (without the DRIVER kind, as BRRR_DRIVER_RECORDS=0),
//          brrr-set-nort (without the RUNTIME kind), brrr-set-nort-nodrv (nor DRIVER),
//          runtime-nolaunch, brrr-set-nolaunch (RUNTIME less the launch functions' records:
//          cuptiActivityEnableRuntimeApi, as BRRR_LAUNCH_RECORDS=0 does);
//          between sampled tracing's windows (brrr-set on for the warm-up, then):
//          brrr-set-off (kinds off, still subscribed), set-off-nosub (kinds off, never subscribed),
//          brrr-set-unsub (kinds off, unsubscribed), brrr-set-finalize (kinds off, unsubscribed,
//          cuptiFinalize; after the timed loop CUPTI is attached again and the kernel kind must
//          give a record for each of 1000 launches: "records" is that count)
//   cupti_cost latency     launch latency three ways on one run (2000 launches, each on an idle
//                          GPU, then 2000 back to back): kernel start minus the host's call
//                          (brrr's definition), minus CUPTI's queued and minus its submitted
//                          timestamps; p50/p90/p99 in ns. Timestamps on CLOCK_MONOTONIC, as brrr's.
//   cupti_cost latency-pattern   the same launches without CUPTI (to run under brrr and compare)
//   CUPTI_COST_CHUNKS=K   (any MODE that times the loop) the loop's time in K equal chunks on
//                          stderr, "chunk<TAB>i<TAB>start ms<TAB>ns per launch" (chunk_diag.sh)
//   CUPTI_COST_SPIN_NS=N  (any MODE that times the loop) its kernels (`Spin`) each run N ns on the
//                          device (%globaltimer) instead of nothing: with N above the launch time the
//                          device falls behind its host (detach_wait_check.sh)
//
// Must never: count its own setup in the timed loop (CUPTI is set up and a warm-up done first).
#include <cuda_runtime.h>
#include <cupti.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "spin.cuh"

__global__ void Empty() {}

namespace {

constexpr size_t kBufferBytes = 8u << 20;
unsigned long long g_records = 0;
CUpti_SubscriberHandle g_sub = nullptr;
unsigned long long g_callbacks = 0;  // API-enter callbacks seen

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++g_records;
  free(buffer);
}

void CUPTIAPI Callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  // About what brrr's callback does at minimum: read the clock on enter and exit.
  auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite == CUPTI_API_ENTER) {
    ++g_callbacks;
    *info->correlationData = static_cast<uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
  }
}

bool Check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  fprintf(stderr, "cupti_cost: %s failed: %s\n", what, text ? text : "?");
  return false;
}

std::vector<long long> g_starts, g_queued, g_submitted;  // latency mode: per kernel record

void CUPTIAPI CompletedLatency(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    auto* k = reinterpret_cast<CUpti_ActivityKernel9*>(record);
    g_starts.push_back(static_cast<long long>(k->start));
    g_queued.push_back(k->queued == CUPTI_TIMESTAMP_UNKNOWN ? -1 : static_cast<long long>(k->queued));
    g_submitted.push_back(k->submitted == CUPTI_TIMESTAMP_UNKNOWN ? -1
                                                                   : static_cast<long long>(k->submitted));
  }
  free(buffer);
}

uint64_t CUPTIAPI MonotonicNow() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

void Percentiles(const char* what, std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return (void)printf("%s\tno samples\n", what);
  auto at = [&](double p) { return v[static_cast<size_t>(p * (v.size() - 1))]; };
  printf("%s\tn=%zu\tp50=%lld\tp90=%lld\tp99=%lld\n", what, v.size(), at(0.5), at(0.9), at(0.99));
}

// Launches 2000 kernels one at a time on an idle GPU, then 2000 back to back; returns the host
// time (CLOCK_MONOTONIC ns) just before each launch call.
std::vector<long long> LaunchPattern() {
  std::vector<long long> enter;
  for (int i = 0; i < 2000; ++i) {
    enter.push_back(static_cast<long long>(MonotonicNow()));
    Empty<<<1, 1>>>();
    cudaDeviceSynchronize();
  }
  for (int i = 0; i < 2000; ++i) {
    enter.push_back(static_cast<long long>(MonotonicNow()));
    Empty<<<1, 1>>>();
  }
  cudaDeviceSynchronize();
  return enter;
}

int Latency(bool with_cupti) {
  if (with_cupti) {
    if (!Check(cuptiActivityRegisterTimestampCallback(MonotonicNow), "timestamp callback") ||
        !Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps") ||
        !Check(cuptiActivityRegisterCallbacks(Requested, CompletedLatency), "register buffers") ||
        !Check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable")) {
      return 1;
    }
  }
  cudaFree(nullptr);
  for (int i = 0; i < 100; ++i) Empty<<<1, 1>>>();
  cudaDeviceSynchronize();
  if (with_cupti) {
    cuptiActivityFlushAll(1);
    g_starts.clear(), g_queued.clear(), g_submitted.clear();
  }
  const std::vector<long long> enter = LaunchPattern();
  if (!with_cupti) return printf("latency-pattern\t%zu launches\n", enter.size()), 0;
  cuptiActivityFlushAll(1);
  if (g_starts.size() != enter.size()) {
    printf("latency\t%zu kernel records for %zu launches: not matched\n", g_starts.size(), enter.size());
    return 1;
  }
  // One stream, in order: the i-th record is the i-th launch.
  std::vector<size_t> order(g_starts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [](size_t a, size_t b) { return g_starts[a] < g_starts[b]; });
  for (int part = 0; part < 2; ++part) {
    std::vector<long long> from_call, from_queued, from_submitted;
    for (size_t i = part * 2000; i < (part + 1) * 2000u; ++i) {
      const size_t r = order[i];
      from_call.push_back(g_starts[r] - enter[i]);
      if (g_queued[r] >= 0) from_queued.push_back(g_starts[r] - g_queued[r]);
      if (g_submitted[r] >= 0) from_submitted.push_back(g_starts[r] - g_submitted[r]);
    }
    const char* p = part == 0 ? "idle GPU" : "back to back";
    printf("latency %s\n", p);
    Percentiles("  start - host call (brrr)", from_call);
    Percentiles("  start - CUPTI queued", from_queued);
    Percentiles("  start - CUPTI submitted", from_submitted);
  }
  return 0;
}

bool SubscribeAgain() {
  return Check(cuptiSubscribe(&g_sub, Callback, nullptr), "cuptiSubscribe again") &&
         Check(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API,
                                   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
               "cb again");
}
bool Enable(CUpti_ActivityKind kind) { return Check(cuptiActivityEnable(kind), "cuptiActivityEnable"); }
// No RUNTIME record for the launch functions (after the kind is enabled, which would undo it).
bool DropLaunchRecords() {
  for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000}) {
    if (!Check(cuptiActivityEnableRuntimeApi(id, 0), "cuptiActivityEnableRuntimeApi")) return false;
  }
  return true;
}

bool Setup(const std::string& mode) {
  if (mode == "none") return true;
  bool ok = Check(cuptiActivityRegisterCallbacks(Requested, Completed), "register buffers");
  CUpti_SubscriberHandle& sub = g_sub;
  auto subscribe = [&] { return Check(cuptiSubscribe(&sub, Callback, nullptr), "cuptiSubscribe"); };
  if (mode == "kernel") return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (mode == "kernel+latency") {
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) &&
           Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps");
  }
  if (mode == "memcpy+memset") return ok && Enable(CUPTI_ACTIVITY_KIND_MEMCPY) && Enable(CUPTI_ACTIVITY_KIND_MEMSET);
  if (mode == "runtime") return ok && Enable(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (mode == "driver") return ok && Enable(CUPTI_ACTIVITY_KIND_DRIVER);
  if (mode == "sync") return ok && Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (mode == "cb-launch") {
    return subscribe() &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), "cb") &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), "cb");
  }
  if (mode == "cb-driver-domain") return subscribe() && Check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API), "domain");
  if (mode == "cb-runtime-domain") return subscribe() && Check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), "domain");
  // The same, switched on for the warm-up and off before the timed launches: what CUPTI still
  // costs between sampled tracing's windows (-off), and without latency timestamps (-off-nolat).
  if (mode == "set-off-nosub") {
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) &&
           Enable(CUPTI_ACTIVITY_KIND_MEMCPY) && Enable(CUPTI_ACTIVITY_KIND_MEMSET) &&
           Enable(CUPTI_ACTIVITY_KIND_RUNTIME) && Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) &&
           Enable(CUPTI_ACTIVITY_KIND_DRIVER) &&
           Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps");
  }
  if (mode == "brrr-set-off" || mode == "brrr-set-off-nolat" || mode == "kernel-off" ||
      mode == "brrr-set-unsub" || mode == "brrr-set-finalize") {
    if (mode == "kernel-off") return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) && Enable(CUPTI_ACTIVITY_KIND_MEMCPY) &&
           Enable(CUPTI_ACTIVITY_KIND_MEMSET) && Enable(CUPTI_ACTIVITY_KIND_RUNTIME) &&
           Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) && Enable(CUPTI_ACTIVITY_KIND_DRIVER) &&
           (mode == "brrr-set-off-nolat" ||
            Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps")) &&
           subscribe() &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), "cb");
  }
  if (mode == "brrr-set-nort" || mode == "brrr-set-nort-nodrv") {  // without RUNTIME (DRIVER)
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) &&
           Enable(CUPTI_ACTIVITY_KIND_MEMCPY) && Enable(CUPTI_ACTIVITY_KIND_MEMSET) &&
           Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) &&
           (mode == "brrr-set-nort-nodrv" || Enable(CUPTI_ACTIVITY_KIND_DRIVER)) &&
           Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps") && subscribe() &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
                                     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
                 "cb") &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
                                     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx),
                 "cb");
  }
  if (mode == "runtime-nolaunch") {  // RUNTIME, less the launch functions' records
    return ok && Enable(CUPTI_ACTIVITY_KIND_RUNTIME) && DropLaunchRecords();
  }
  if (mode == "brrr-set-nolaunch") {  // what the shim enables with BRRR_LAUNCH_RECORDS=0
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) &&
           Enable(CUPTI_ACTIVITY_KIND_MEMCPY) && Enable(CUPTI_ACTIVITY_KIND_MEMSET) &&
           Enable(CUPTI_ACTIVITY_KIND_RUNTIME) && Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) &&
           Enable(CUPTI_ACTIVITY_KIND_DRIVER) &&
           Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps") && subscribe() &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
                                     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
                 "cb") &&
           DropLaunchRecords();
  }
  // What the shim enables (brrr-set: no latency timestamps since they went unused), with them
  // (brrr-set-lat, as it was), and without the DRIVER kind (brrr-set-nodrv: BRRR_DRIVER_RECORDS=0).
  if (mode == "brrr-set" || mode == "brrr-set-lat" || mode == "brrr-set-nodrv") {
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) && Enable(CUPTI_ACTIVITY_KIND_MEMCPY) &&
           Enable(CUPTI_ACTIVITY_KIND_MEMSET) && Enable(CUPTI_ACTIVITY_KIND_RUNTIME) &&
           Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) &&
           (mode == "brrr-set-nodrv" || Enable(CUPTI_ACTIVITY_KIND_DRIVER)) &&
           (mode != "brrr-set-lat" ||
            Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps")) &&
           subscribe() &&
           Check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), "cb");
  }
  fprintf(stderr, "cupti_cost: unknown mode %s\n", mode.c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: cupti_cost MODE [--launches N]\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "latency" || mode == "latency-pattern") return Latency(mode == "latency");
  long launches = 200000;
  if (argc == 4 && strcmp(argv[2], "--launches") == 0) launches = strtol(argv[3], nullptr, 10);
  if (launches <= 0) return 2;
  if (!Setup(mode)) return 1;
  if (cudaFree(nullptr) != cudaSuccess) return 1;
  for (int i = 0; i < 1000; ++i) Empty<<<1, 1>>>();  // warm-up: module load, first launches
  cudaDeviceSynchronize();
  const bool finalize = mode == "brrr-set-finalize";
  if (mode.find("-off") != std::string::npos || mode == "brrr-set-unsub" || finalize) {
    for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                 CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                 CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_DRIVER}) {
      cuptiActivityDisable(k);
    }
    cuptiActivityFlushAll(1);
    g_records = 0;
  }
  if ((mode == "brrr-set-unsub" || finalize) && !Check(cuptiUnsubscribe(g_sub), "cuptiUnsubscribe"))
    return 1;
  if (finalize && !Check(cuptiFinalize(), "cuptiFinalize")) return 1;
  // CUPTI_COST_CHUNKS=K: the loop's time in K equal chunks on stderr ("chunk<TAB>i<TAB>start ms
  // from the loop's start<TAB>ns per launch"), to see when in a run launches were slow.
  const char* chunks_env = getenv("CUPTI_COST_CHUNKS");
  const long chunks = chunks_env != nullptr ? std::max(1L, strtol(chunks_env, nullptr, 10)) : 1;
  std::vector<std::chrono::steady_clock::time_point> marks;
  marks.reserve(static_cast<size_t>(chunks) + 1);
  const char* spin_env = getenv("CUPTI_COST_SPIN_NS");
  const unsigned long long spin_ns = spin_env != nullptr ? strtoull(spin_env, nullptr, 10) : 0;
  const auto t0 = std::chrono::steady_clock::now();
  marks.push_back(t0);
  for (long c = 0; c < chunks; ++c) {
    const long end = launches * (c + 1) / chunks;
    for (long i = launches * c / chunks; i < end; ++i) {
      if (spin_ns > 0) {
        Spin<<<1, 1>>>(spin_ns);
      } else {
        Empty<<<1, 1>>>();
      }
    }
    if (chunks > 1) marks.push_back(std::chrono::steady_clock::now());
  }
  const auto t1 = std::chrono::steady_clock::now();
  for (long c = 0; chunks > 1 && c < chunks; ++c) {
    const double n = static_cast<double>(launches * (c + 1) / chunks - launches * c / chunks);
    fprintf(stderr, "chunk\t%ld\t%.1f\t%.1f\n", c,
            std::chrono::duration<double, std::milli>(marks[c] - t0).count(),
            std::chrono::duration<double, std::nano>(marks[c + 1] - marks[c]).count() / n);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  const auto t2 = std::chrono::steady_clock::now();
  if (mode != "none") cuptiActivityFlushAll(1);
  if (finalize) {  // attached again: records must flow as before
    g_records = 0;
    if (!Check(cuptiActivityRegisterCallbacks(Requested, Completed), "register buffers again") ||
        !Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) || !SubscribeAgain()) {
      return 1;
    }
    g_callbacks = 0;
    for (int i = 0; i < 1000; ++i) Empty<<<1, 1>>>();
    cudaDeviceSynchronize();
    cuptiActivityFlushAll(1);
    if (g_callbacks < 1000)
      fprintf(stderr, "cupti_cost: %llu callbacks after attaching again\n", g_callbacks);
  }
  const double enqueue = std::chrono::duration<double, std::nano>(t1 - t0).count() / launches;
  const double synced = std::chrono::duration<double, std::nano>(t2 - t0).count() / launches;
  printf("%s\t%.1f\t%.1f\t%llu\n", mode.c_str(), enqueue, synced, g_records);
  return 0;
}
