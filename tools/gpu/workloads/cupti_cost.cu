// Measures what each CUPTI activity kind and callback domain costs per kernel launch on the real
// driver (issue 26), without brrr: one process per mode, a launch-bound loop of empty kernels, the
// host time per launch (enqueue only, and with the final synchronize). acceptance.sh's `cost`
// section runs every mode interleaved and prints medians; brrr keeps only what its report needs.
//
//   cupti_cost MODE [--launches N]      prints "MODE<TAB>ns_per_launch<TAB>ns_per_launch_synced<TAB>records"
//   modes: none, kernel, kernel+latency, memcpy+memset, runtime, driver, sync, cb-launch,
//          cb-driver-domain, cb-runtime-domain, brrr-set (what the shim enables today)
//
// Must never: count its own setup in the timed loop (CUPTI is set up and a warm-up done first).
#include <cuda_runtime.h>
#include <cupti.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void Empty() {}

namespace {

constexpr size_t kBufferBytes = 8u << 20;
unsigned long long g_records = 0;

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

bool Enable(CUpti_ActivityKind kind) { return Check(cuptiActivityEnable(kind), "cuptiActivityEnable"); }

bool Setup(const std::string& mode) {
  if (mode == "none") return true;
  bool ok = Check(cuptiActivityRegisterCallbacks(Requested, Completed), "register buffers");
  CUpti_SubscriberHandle sub = nullptr;
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
  if (mode == "brrr-set") {
    return ok && Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) && Enable(CUPTI_ACTIVITY_KIND_MEMCPY) &&
           Enable(CUPTI_ACTIVITY_KIND_MEMSET) && Enable(CUPTI_ACTIVITY_KIND_RUNTIME) &&
           Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) && Enable(CUPTI_ACTIVITY_KIND_DRIVER) &&
           Check(cuptiActivityEnableLatencyTimestamps(1), "latency timestamps") && subscribe() &&
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
  long launches = 200000;
  if (argc == 4 && strcmp(argv[2], "--launches") == 0) launches = strtol(argv[3], nullptr, 10);
  if (launches <= 0) return 2;
  if (!Setup(mode)) return 1;
  if (cudaFree(nullptr) != cudaSuccess) return 1;
  for (int i = 0; i < 1000; ++i) Empty<<<1, 1>>>();  // warm-up: module load, first launches
  cudaDeviceSynchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < launches; ++i) Empty<<<1, 1>>>();
  const auto t1 = std::chrono::steady_clock::now();
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  const auto t2 = std::chrono::steady_clock::now();
  if (mode != "none") cuptiActivityFlushAll(1);
  const double enqueue = std::chrono::duration<double, std::nano>(t1 - t0).count() / launches;
  const double synced = std::chrono::duration<double, std::nano>(t2 - t0).count() / launches;
  printf("%s\t%.1f\t%.1f\t%llu\n", mode.c_str(), enqueue, synced, g_records);
  return 0;
}
