// Which correlation id joins a runtime call to its kernel or copy on the real driver (issue 20):
// is the correlation id that a *driver* API callback sees inside a runtime call (cudaLaunchKernel
// -> cuLaunchKernel*) the id of the kernel record, with or without the RUNTIME and DRIVER
// activity kinds enabled? If it is, a hooked runtime call can carry its device work's id (taken by
// the driver callback brrr already subscribes to), and the collector joins by id instead of by
// time. Also: do the runtime callback's id and the activity records' ids agree with it?
//
//   correlation_probe KINDS CALLBACKS [--ops N]
//     KINDS      kernel (CONCURRENT_KERNEL + MEMCPY only), +runtime, +driver, +runtime+driver
//     CALLBACKS  driver (the whole driver domain) or driver+runtime (both domains)
//   Runs N ops on one stream (default 2000): kernel launches, and a 4-byte cudaMemcpyAsync D2H
//   every 10th op. Prints one "probe" line of counts, then the driver callback ids seen per op.
//
// Must never: guess an op's device record: device records are matched to ops by start time on the
// one stream (both are in issue order; equal starts by id), and a count mismatch is printed, not
// papered over.
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

__global__ void Empty() {}

namespace {

constexpr size_t kBufferBytes = 8u << 20;

struct SeenCallback {
  int op;
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  uint32_t correlation;
};
struct DeviceWork {
  unsigned long long start;
  uint32_t correlation;
};
struct ApiRecord {
  bool runtime;
  CUpti_CallbackId cbid;
  uint32_t correlation;
};

int g_op = -1;  // the op being issued; -1 outside the measured ops
std::vector<SeenCallback> g_callbacks;
std::vector<DeviceWork> g_device;
std::vector<ApiRecord> g_api;

bool Check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  fprintf(stderr, "correlation_probe: %s failed: %s\n", what, text ? text : "?");
  return false;
}

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
      g_device.push_back({k->start, k->correlationId});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
      g_device.push_back({m->start, m->correlationId});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
               record->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      auto* a = reinterpret_cast<CUpti_ActivityAPI*>(record);
      g_api.push_back({record->kind == CUPTI_ACTIVITY_KIND_RUNTIME, a->cbid, a->correlationId});
    }
  }
  free(buffer);
}

void CUPTIAPI Callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const void* data) {
  auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (g_op < 0 || info->callbackSite != CUPTI_API_ENTER) return;
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  if (g_callbacks.size() < g_callbacks.capacity()) {
    g_callbacks.push_back({g_op, domain, cbid, info->correlationId});
  }
}

const char* NameOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return "?";
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: correlation_probe KINDS CALLBACKS [--ops N]\n");
    return 2;
  }
  const std::string kinds = argv[1], callbacks = argv[2];
  int ops = 2000;
  if (argc == 5 && strcmp(argv[3], "--ops") == 0) ops = atoi(argv[4]);
  if (ops <= 0 || ops > 1000000) return 2;
  g_callbacks.reserve(static_cast<size_t>(ops) * 16);

  bool ok = Check(cuptiActivityRegisterCallbacks(Requested, Completed), "register buffers") &&
            Check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "kernel kind") &&
            Check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "memcpy kind");
  if (kinds.find("runtime") != std::string::npos)
    ok = ok && Check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "runtime kind");
  if (kinds.find("driver") != std::string::npos)
    ok = ok && Check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "driver kind");
  CUpti_SubscriberHandle sub = nullptr;
  ok = ok && Check(cuptiSubscribe(&sub, Callback, nullptr), "subscribe") &&
       Check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API), "driver domain");
  if (callbacks.find("runtime") != std::string::npos)
    ok = ok && Check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), "runtime domain");
  if (!ok) return 1;

  int* dev = nullptr;
  int* host = nullptr;
  cudaStream_t stream = nullptr;
  if (cudaMalloc(&dev, 4) != cudaSuccess || cudaMallocHost(&host, 4) != cudaSuccess ||
      cudaStreamCreate(&stream) != cudaSuccess) {
    fprintf(stderr, "correlation_probe: CUDA set-up failed\n");
    return 1;
  }
  for (int i = 0; i < 100; ++i) Empty<<<1, 1, 0, stream>>>();  // warm-up, not counted
  cudaStreamSynchronize(stream);
  cuptiActivityFlushAll(1);
  g_device.clear();
  g_api.clear();

  for (int i = 0; i < ops; ++i) {
    g_op = i;
    if (i % 10 == 9) {
      cudaMemcpyAsync(host, dev, 4, cudaMemcpyDeviceToHost, stream);
    } else {
      Empty<<<1, 1, 0, stream>>>();
    }
    g_op = -1;
  }
  cudaStreamSynchronize(stream);
  cuptiActivityFlushAll(1);

  // Per op: the first driver callback that is a launch or a copy, and the runtime callback.
  std::vector<std::vector<SeenCallback>> per_op(ops);
  for (const SeenCallback& c : g_callbacks) per_op[c.op].push_back(c);
  // Issue order on the one stream: by start; equal starts (a simulated device) by id, which CUPTI
  // hands out in call order.
  std::sort(g_device.begin(), g_device.end(), [](const DeviceWork& a, const DeviceWork& b) {
    return a.start != b.start ? a.start < b.start : a.correlation < b.correlation;
  });
  std::map<uint32_t, std::vector<ApiRecord>> api_by_id;
  for (const ApiRecord& a : g_api) api_by_id[a.correlation].push_back(a);

  int device_is_a_driver_cb = 0, device_is_last_driver_cb = 0, device_is_runtime_cb = 0;
  int driver_cbs_share_runtime_id = 0, ops_with_runtime_cb = 0, ops_with_driver_cb = 0;
  int device_has_runtime_record = 0, device_has_driver_record = 0;
  int driver_ids_all_same = 0;
  std::map<std::string, int> driver_sequences;  // the driver calls one op makes, by name
  const bool matched = g_device.size() == static_cast<size_t>(ops);
  for (int i = 0; i < ops; ++i) {
    std::string sequence;
    uint32_t runtime_id = 0, last_driver_id = 0;
    bool any_driver = false, same = true, device_in_driver = false;
    const uint32_t device_id = matched ? g_device[i].correlation : 0;
    for (const SeenCallback& c : per_op[i]) {
      if (c.domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (runtime_id == 0) runtime_id = c.correlation;
        continue;
      }
      sequence += std::string(sequence.empty() ? "" : ",") + NameOf(c.domain, c.cbid);
      if (any_driver && c.correlation != last_driver_id) same = false;
      any_driver = true;
      last_driver_id = c.correlation;
      if (matched && c.correlation == device_id) device_in_driver = true;
    }
    ++driver_sequences[(i % 10 == 9 ? "copy: " : "launch: ") + sequence];
    ops_with_runtime_cb += runtime_id != 0;
    ops_with_driver_cb += any_driver;
    driver_ids_all_same += any_driver && same;
    if (runtime_id != 0 && any_driver && same && last_driver_id == runtime_id)
      ++driver_cbs_share_runtime_id;
    if (!matched) continue;
    device_is_a_driver_cb += device_in_driver;
    device_is_last_driver_cb += any_driver && device_id == last_driver_id;
    device_is_runtime_cb += runtime_id != 0 && device_id == runtime_id;
    auto it = api_by_id.find(device_id);
    if (it != api_by_id.end()) {
      for (const ApiRecord& a : it->second) {
        device_has_runtime_record += a.runtime;
        device_has_driver_record += !a.runtime;
      }
    }
  }
  printf("probe kinds=%s callbacks=%s ops=%d device_records=%zu%s api_records=%zu\n", kinds.c_str(),
         callbacks.c_str(), ops, g_device.size(), matched ? "" : " (NOT one per op: no matching)",
         g_api.size());
  printf(
      "  ops with a driver callback %d, with a runtime callback %d; driver callbacks of an op"
      " share one id %d; and it is the runtime callback's id %d\n",
      ops_with_driver_cb, ops_with_runtime_cb, driver_ids_all_same, driver_cbs_share_runtime_id);
  printf(
      "  device record's id = one of its op's driver callback ids %d, = the last one %d,"
      " = its runtime callback's id %d\n",
      device_is_a_driver_cb, device_is_last_driver_cb, device_is_runtime_cb);
  printf("  device record's id has a RUNTIME record %d, a DRIVER record %d\n",
         device_has_runtime_record, device_has_driver_record);
  for (const auto& [sequence, count] : driver_sequences)
    printf("  driver calls per op: %d x [%s]\n", count, sequence.c_str());
  return 0;
}
