// See pm_sampler.h. Everything here runs on the sampler's own thread (or, for StopPmSampler, on
// the exit path, which only sets a flag and waits boundedly).
//
// The call sequence follows cupti_pmsampling.h and cupti_profiler_host.h (CUDA 13) and NVIDIA's
// PM sampling documentation; tests exercise it against a fake library (tests/e2e/fake_pm_sampling).
// SEEN ON A GPU (H200, driver 580, CUDA 13.0, 2026-11-26, tools/gpu/acceptance.sh --only
// counters): (1) cuptiPmSamplingEnable succeeds from this thread, which makes no context current;
// the whole sequence runs; (2) SetConfig refuses multi-pass metric sets (the ncu breakdown
// sm__throughput needs 19 passes: CUPTI_ERROR_NOT_SUPPORTED), hence the sets of
// pm_metric_plans.h, tried in order; the first one configures on GH100; (3) the counter-data
// image is reused after cuptiPmSamplingCounterDataImageInitialize (8,480 samples over 2,500
// steps, decoded 100 ms at a time); (4)+(5) the sample timestamps are ns on the clock of CUPTI's
// timestamp callback (CLOCK_MONOTONIC, the kernels' clock): the collector's alignment picked it
// and joined 8,643 samples to kernels. Each sample is still streamed with its raw timestamps
// (DeviceKind::kCounterSample) beside a clock pair read at start (cuptiGetTimestamp,
// CLOCK_REALTIME, CLOCK_MONOTONIC), and the collector picks the alignment under which the samples
// fall inside the run (collector/counters/sample_clock.h), for drivers that differ.
//
// Must never: call an entry point that was not found, touch CUPTI once StopPmSampler has begun
// waiting and timed out, or write a sample slot beyond kMaxCounterSamples.
#include "shim/pm_sampler.h"


#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atomic>

#include "shim/clock.h"
#include "shim/cupti_session.h"
#include "shim/pm_metric_plans.h"

namespace brrr::shim {
namespace {

constexpr uint64_t kIntervalNs = 1'000'000;   // one sample per ms of GPU time
constexpr uint32_t kDecodeMs = 100;           // decode the hardware buffer this often
constexpr uint32_t kMaxDecodedSamples = 512;  // counter-data image capacity (> 100 per decode)
constexpr size_t kHardwareBufferBytes = 32u << 20;
constexpr uint32_t kStopWaitMs = 500;
// How often the thread looks at its flags: 50 wake-ups a second (5 ms cost about 9 ms of CPU per
// second of run, tools/bench/counters_cost.py); the exit waits at most this much more.
constexpr uint32_t kPollMs = 20;

struct Api {
  CUptiResult (*profiler_initialize)(CUpti_Profiler_Initialize_Params*);
  CUptiResult (*enable)(CUpti_PmSampling_Enable_Params*);
  CUptiResult (*disable)(CUpti_PmSampling_Disable_Params*);
  CUptiResult (*set_config)(CUpti_PmSampling_SetConfig_Params*);
  CUptiResult (*start)(CUpti_PmSampling_Start_Params*);
  CUptiResult (*stop)(CUpti_PmSampling_Stop_Params*);
  CUptiResult (*decode)(CUpti_PmSampling_DecodeData_Params*);
  CUptiResult (*availability)(CUpti_PmSampling_GetCounterAvailability_Params*);
  CUptiResult (*data_size)(CUpti_PmSampling_GetCounterDataSize_Params*);
  CUptiResult (*data_init)(CUpti_PmSampling_CounterDataImage_Initialize_Params*);
  CUptiResult (*data_info)(CUpti_PmSampling_GetCounterDataInfo_Params*);
  CUptiResult (*sample_info)(CUpti_PmSampling_CounterData_GetSampleInfo_Params*);
  CUptiResult (*chip_name)(CUpti_Device_GetChipName_Params*);
  CUptiResult (*host_init)(CUpti_Profiler_Host_Initialize_Params*);
  CUptiResult (*host_deinit)(CUpti_Profiler_Host_Deinitialize_Params*);
  CUptiResult (*add_metrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params*);
  CUptiResult (*config_size)(CUpti_Profiler_Host_GetConfigImageSize_Params*);
  CUptiResult (*config_image)(CUpti_Profiler_Host_GetConfigImage_Params*);
  CUptiResult (*evaluate)(CUpti_Profiler_Host_EvaluateToGpuValues_Params*);
  CUptiResult (*get_timestamp)(uint64_t*);  // optional: nullptr when the library has none
};

std::atomic<bool> g_started{false};
std::atomic<bool> g_context_ready{false};
std::atomic<bool> g_stop{false};
std::atomic<bool> g_thread_done{false};
ring::SegmentHeader* g_header = nullptr;
// The sampler thread's own copy of the table (merged in place, then published).
ring::CounterSampleSlot g_table[ring::kMaxCounterSamples];
uint32_t g_count = 0;
uint64_t g_sample_number = 0;  // PM samples decoded so far (the streamed records' `bytes`)

void SleepMs(uint32_t ms) {
  timespec t{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  nanosleep(&t, nullptr);
}

template <typename F>
bool Find(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  return *out != nullptr;
}

const char* g_test_library = nullptr;  // BRRR_PM_SAMPLING_LIBRARY (tests only)

bool LoadApi(Api* api) {
  void* lib = nullptr;
  if (g_test_library != nullptr) {
    lib = dlopen(g_test_library, RTLD_NOW | RTLD_LOCAL);  // tests only: a fake PM sampling library
  } else {
    for (const char* name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
  }
  if (lib == nullptr) return false;
  Find(lib, "cuptiGetTimestamp", &api->get_timestamp);  // optional
  return Find(lib, "cuptiProfilerInitialize", &api->profiler_initialize) &&
         Find(lib, "cuptiPmSamplingEnable", &api->enable) &&
         Find(lib, "cuptiPmSamplingDisable", &api->disable) &&
         Find(lib, "cuptiPmSamplingSetConfig", &api->set_config) &&
         Find(lib, "cuptiPmSamplingStart", &api->start) &&
         Find(lib, "cuptiPmSamplingStop", &api->stop) &&
         Find(lib, "cuptiPmSamplingDecodeData", &api->decode) &&
         Find(lib, "cuptiPmSamplingGetCounterAvailability", &api->availability) &&
         Find(lib, "cuptiPmSamplingGetCounterDataSize", &api->data_size) &&
         Find(lib, "cuptiPmSamplingCounterDataImageInitialize", &api->data_init) &&
         Find(lib, "cuptiPmSamplingGetCounterDataInfo", &api->data_info) &&
         Find(lib, "cuptiPmSamplingCounterDataGetSampleInfo", &api->sample_info) &&
         Find(lib, "cuptiDeviceGetChipName", &api->chip_name) &&
         Find(lib, "cuptiProfilerHostInitialize", &api->host_init) &&
         Find(lib, "cuptiProfilerHostDeinitialize", &api->host_deinit) &&
         Find(lib, "cuptiProfilerHostConfigAddMetrics", &api->add_metrics) &&
         Find(lib, "cuptiProfilerHostGetConfigImageSize", &api->config_size) &&
         Find(lib, "cuptiProfilerHostGetConfigImage", &api->config_image) &&
         Find(lib, "cuptiProfilerHostEvaluateToGpuValues", &api->evaluate);
}

// A metric value as a float without undefined behaviour: out of float's range is clamped (the
// collector checks the range); NaN stays NaN (the collector skips it).
float ToFloat(double v) {
  if (!(v == v)) return static_cast<float>(v);
  if (v > 1e30) return 1e30f;
  if (v < -1e30) return -1e30f;
  return static_cast<float>(v);
}

// A metric value in milli-percent for a streamed sample; kCounterValueUnknown when NaN, negative
// or past kMaxCounterMilliPct.
uint32_t ToMilliPct(double v) {
  if (!(v >= 0) || v * 1000 > ring::kMaxCounterMilliPct) return ring::kCounterValueUnknown;
  return static_cast<uint32_t>(v * 1000 + 0.5);
}

// The clock pair of R9: CLOCK_MONOTONIC read on both sides of the other two, their midpoint kept.
void PublishClockPair(const Api& api) {
  const uint64_t before = MonotonicNs();
  timespec real{};
  clock_gettime(CLOCK_REALTIME, &real);
  uint64_t cupti = 0;
  if (api.get_timestamp == nullptr || api.get_timestamp(&cupti) != CUPTI_SUCCESS) cupti = 0;
  const uint64_t after = MonotonicNs();
  g_header->counters_clock_cupti_ns = cupti;
  g_header->counters_clock_realtime_ns =
      static_cast<uint64_t>(real.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(real.tv_nsec);
  g_header->counters_clock_mono_ns = before + (after - before) / 2;
}

// Streams one sample at its own resolution (ring_format.h DeviceKind::kCounterSample).
void Stream(uint64_t start, uint64_t end, const CombinedFigures& f) {
  ring::DeviceRecord r{};
  r.kind = static_cast<uint8_t>(ring::DeviceKind::kCounterSample);
  r.start = start;
  r.end = end;
  r.bytes = g_sample_number++;
  r.correlation_id = ToMilliPct(f.sm);
  r.stream_id = ToMilliPct(f.dram);
  r.thread_id = ToMilliPct(f.active);
  r.device_id = 0;
  if (AppendOwnDeviceRecord(r)) {
    g_header->counters_samples_streamed.fetch_add(1, std::memory_order_relaxed);
  } else {
    g_header->counters_samples_dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

void Fail(ring::CountersCall call, CUptiResult r) {
  g_header->counters_result.store(static_cast<int32_t>(r), std::memory_order_relaxed);
  g_header->counters_failed_call.store(call, std::memory_order_relaxed);
  g_header->counters_state.store(ring::kCountersFailed, std::memory_order_release);
}

// Merges adjacent pairs, time-weighted: the same busy-weighted means over the same time in half
// as many slots.
void HalveTable() {
  uint32_t out = 0;
  for (uint32_t i = 0; i + 1 < g_count; i += 2, ++out) {
    const ring::CounterSampleSlot& a = g_table[i];
    const ring::CounterSampleSlot& b = g_table[i + 1];
    const double da = a.end_ns > a.start_ns ? static_cast<double>(a.end_ns - a.start_ns) : 0;
    const double db = b.end_ns > b.start_ns ? static_cast<double>(b.end_ns - b.start_ns) : 0;
    const double d = da + db > 0 ? da + db : 1;
    ring::CounterSampleSlot m;
    m.start_ns = a.start_ns;
    m.end_ns = b.end_ns;
    m.sm_pct = static_cast<float>((a.sm_pct * da + b.sm_pct * db) / d);
    m.dram_pct = static_cast<float>((a.dram_pct * da + b.dram_pct * db) / d);
    m.active_pct = static_cast<float>((a.active_pct * da + b.active_pct * db) / d);
    m.merged = a.merged + b.merged;
    g_table[out] = m;
  }
  if (g_count % 2 == 1) g_table[out++] = g_table[g_count - 1];
  g_count = out;
}

void Append(const ring::CounterSampleSlot& s) {
  if (g_count == ring::kMaxCounterSamples) {
    HalveTable();
    g_header->counters_sample_count.store(0, std::memory_order_release);
    for (uint32_t i = 0; i < g_count; ++i) g_header->counter_samples[i] = g_table[i];
  }
  g_table[g_count] = s;
  g_header->counter_samples[g_count] = s;
  ++g_count;
  g_header->counters_sample_count.store(g_count, std::memory_order_release);
}

struct Session {
  const Api* api;
  CUpti_PmSampling_Object* object = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  uint8_t* availability = nullptr;
  uint8_t* config = nullptr;
  uint8_t* data = nullptr;
  size_t data_size = 0;
  const MetricPlan* plan = nullptr;  // the metric set configured
  bool started = false;
};

void EndHost(Session& s) {
  if (s.host == nullptr) return;
  CUpti_Profiler_Host_Deinitialize_Params hd{};
  hd.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  hd.pHostObject = s.host;
  s.api->host_deinit(&hd);
  s.host = nullptr;
}

// Configures PM sampling with `plan`: a host object of its own, the plan's metrics, the config
// image, SetConfig. On failure everything it made is undone and *call / *result say what failed.
bool TryPlan(Session& s, const char* chip, const MetricPlan& plan, ring::CountersCall* call,
             CUptiResult* result) {
  const Api& api = *s.api;
  const auto fail = [&](ring::CountersCall c, CUptiResult r) {
    *call = c;
    *result = r;
    EndHost(s);
    free(s.config);
    s.config = nullptr;
    return false;
  };
  CUpti_Profiler_Host_Initialize_Params hi{};
  hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  hi.pChipName = chip;
  hi.pCounterAvailabilityImage = s.availability;
  if (CUptiResult r = api.host_init(&hi); r != CUPTI_SUCCESS) {
    return fail(ring::kCallHostInitialize, r);
  }
  s.host = hi.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params am{};
  am.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  am.pHostObject = s.host;
  am.ppMetricNames = const_cast<const char**>(plan.names);
  am.numMetrics = plan.count;
  if (CUptiResult r = api.add_metrics(&am); r != CUPTI_SUCCESS) return fail(ring::kCallConfig, r);
  CUpti_Profiler_Host_GetConfigImageSize_Params cs{};
  cs.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  cs.pHostObject = s.host;
  if (CUptiResult r = api.config_size(&cs); r != CUPTI_SUCCESS) return fail(ring::kCallConfig, r);
  s.config = static_cast<uint8_t*>(calloc(1, cs.configImageSize + 1));
  if (s.config == nullptr) return fail(ring::kCallConfig, CUPTI_ERROR_OUT_OF_MEMORY);
  CUpti_Profiler_Host_GetConfigImage_Params ci{};
  ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  ci.pHostObject = s.host;
  ci.configImageSize = cs.configImageSize;
  ci.pConfigImage = s.config;
  if (CUptiResult r = api.config_image(&ci); r != CUPTI_SUCCESS) return fail(ring::kCallConfig, r);
  CUpti_PmSampling_SetConfig_Params sc{};
  sc.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE;
  sc.pPmSamplingObject = s.object;
  sc.configSize = cs.configImageSize;
  sc.pConfig = s.config;
  sc.hardwareBufferSize = kHardwareBufferBytes;
  sc.samplingInterval = kIntervalNs;
  sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  if (CUptiResult r = api.set_config(&sc); r != CUPTI_SUCCESS) return fail(ring::kCallSetConfig, r);
  return true;
}

// Decodes what the hardware buffer holds and appends every completed sample. False on failure.
bool DecodeOnce(Session& s) {
  const Api& api = *s.api;
  CUpti_PmSampling_DecodeData_Params dp{};
  dp.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE;
  dp.pPmSamplingObject = s.object;
  dp.pCounterDataImage = s.data;
  dp.counterDataImageSize = s.data_size;
  if (CUptiResult r = api.decode(&dp); r != CUPTI_SUCCESS) return Fail(ring::kCallDecode, r), false;
  CUpti_PmSampling_GetCounterDataInfo_Params ip{};
  ip.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE;
  ip.pCounterDataImage = s.data;
  ip.counterDataImageSize = s.data_size;
  if (CUptiResult r = api.data_info(&ip); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallDecode, r), false;
  }
  const size_t n =
      ip.numCompletedSamples < kMaxDecodedSamples ? ip.numCompletedSamples : kMaxDecodedSamples;
  for (size_t i = 0; i < n; ++i) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params sp{};
    sp.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE;
    sp.pPmSamplingObject = s.object;
    sp.pCounterDataImage = s.data;
    sp.counterDataImageSize = s.data_size;
    sp.sampleIndex = i;
    if (CUptiResult r = api.sample_info(&sp); r != CUPTI_SUCCESS) {
      return Fail(ring::kCallDecode, r), false;
    }
    double values[kMaxPlanMetrics] = {};
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ep{};
    ep.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    ep.pHostObject = s.host;
    ep.pCounterDataImage = s.data;
    ep.counterDataImageSize = s.data_size;
    ep.rangeIndex = i;
    ep.ppMetricNames = const_cast<const char**>(s.plan->names);
    ep.numMetrics = s.plan->count;
    ep.pMetricValues = values;
    if (CUptiResult r = api.evaluate(&ep); r != CUPTI_SUCCESS) {
      return Fail(ring::kCallDecode, r), false;
    }
    ring::CounterSampleSlot slot{};
    slot.start_ns = sp.startTimestamp;
    slot.end_ns = sp.endTimestamp;
    const CombinedFigures f = CombineFigures(*s.plan, values);
    slot.sm_pct = ToFloat(f.sm);
    slot.dram_pct = ToFloat(f.dram);
    slot.active_pct = ToFloat(f.active);
    slot.merged = 1;
    Append(slot);
    Stream(sp.startTimestamp, sp.endTimestamp, f);
  }
  // The image's samples are consumed: initialize it again for the next decode.
  CUpti_PmSampling_CounterDataImage_Initialize_Params init{};
  init.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  init.pPmSamplingObject = s.object;
  init.counterDataSize = s.data_size;
  init.pCounterData = s.data;
  if (CUptiResult r = api.data_init(&init); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallCounterData, r), false;
  }
  return true;
}

// Enable, configure and start; false (state published) on failure.
bool Begin(Session& s) {
  const Api& api = *s.api;
  CUpti_Profiler_Initialize_Params pi{};
  pi.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
  if (CUptiResult r = api.profiler_initialize(&pi); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallProfilerInitialize, r), false;
  }
  CUpti_PmSampling_Enable_Params en{};
  en.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE;
  en.deviceIndex = 0;
  if (CUptiResult r = api.enable(&en); r != CUPTI_SUCCESS) return Fail(ring::kCallEnable, r), false;
  s.object = en.pPmSamplingObject;
  CUpti_Device_GetChipName_Params cn{};
  cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  cn.deviceIndex = 0;
  if (CUptiResult r = api.chip_name(&cn); r != CUPTI_SUCCESS || cn.pChipName == nullptr) {
    return Fail(ring::kCallChipName, r), false;
  }
  CUpti_PmSampling_GetCounterAvailability_Params av{};
  av.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE;
  av.deviceIndex = 0;
  if (CUptiResult r = api.availability(&av); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallCounterAvailability, r), false;
  }
  s.availability = static_cast<uint8_t*>(calloc(1, av.counterAvailabilityImageSize + 1));
  if (s.availability == nullptr) return Fail(ring::kCallCounterAvailability, CUPTI_ERROR_OUT_OF_MEMORY), false;
  av.pCounterAvailabilityImage = s.availability;
  if (CUptiResult r = api.availability(&av); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallCounterAvailability, r), false;
  }
  // The first metric set the chip can sample in one pass (pm_metric_plans.h).
  ring::CountersCall failed_call = ring::kCallConfig;
  CUptiResult failed = CUPTI_ERROR_NOT_SUPPORTED;
  for (uint32_t i = 0; i < kMetricPlanCount && s.plan == nullptr; ++i) {
    if (TryPlan(s, cn.pChipName, kMetricPlans[i], &failed_call, &failed)) {
      s.plan = &kMetricPlans[i];
      g_header->counters_metric_plan.store(i + 1, std::memory_order_relaxed);
    }
  }
  if (s.plan == nullptr) return Fail(failed_call, failed), false;
  CUpti_PmSampling_GetCounterDataSize_Params ds{};
  ds.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE;
  ds.pPmSamplingObject = s.object;
  ds.pMetricNames = const_cast<const char**>(s.plan->names);
  ds.numMetrics = s.plan->count;
  ds.maxSamples = kMaxDecodedSamples;
  if (CUptiResult r = api.data_size(&ds); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallCounterData, r), false;
  }
  s.data_size = ds.counterDataSize;
  s.data = static_cast<uint8_t*>(calloc(1, s.data_size + 1));
  CUpti_PmSampling_CounterDataImage_Initialize_Params init{};
  init.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  init.pPmSamplingObject = s.object;
  init.counterDataSize = s.data_size;
  init.pCounterData = s.data;
  if (s.data == nullptr) {
    return Fail(ring::kCallCounterData, CUPTI_ERROR_OUT_OF_MEMORY), false;
  }
  if (CUptiResult r = api.data_init(&init); r != CUPTI_SUCCESS) {
    return Fail(ring::kCallCounterData, r), false;
  }
  CUpti_PmSampling_Start_Params st{};
  st.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE;
  st.pPmSamplingObject = s.object;
  if (CUptiResult r = api.start(&st); r != CUPTI_SUCCESS) return Fail(ring::kCallStart, r), false;
  s.started = true;
  PublishClockPair(api);  // before kCountersSampling is released and before the first sample (R9)
  g_header->counters_state.store(ring::kCountersSampling, std::memory_order_release);
  return true;
}

// Stop and disable whatever Begin got to; frees the images.
void End(Session& s) {
  const Api& api = *s.api;
  if (s.started) {
    CUpti_PmSampling_Stop_Params sp{};
    sp.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE;
    sp.pPmSamplingObject = s.object;
    api.stop(&sp);
  }
  EndHost(s);
  if (s.object != nullptr) {
    CUpti_PmSampling_Disable_Params dp{};
    dp.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE;
    dp.pPmSamplingObject = s.object;
    api.disable(&dp);
  }
  free(s.availability);
  free(s.config);
  free(s.data);
}

void* SamplerLoop(void*) {
  static Api api;  // zero-initialized; filled once
  while (!g_context_ready.load(std::memory_order_acquire)) {
    if (g_stop.load(std::memory_order_acquire)) {
      g_thread_done.store(true, std::memory_order_release);
      return nullptr;
    }
    SleepMs(kPollMs);
  }
  if (!LoadApi(&api)) {
    g_header->counters_state.store(ring::kCountersNoLibrary, std::memory_order_release);
    g_thread_done.store(true, std::memory_order_release);
    return nullptr;
  }
  Session s;
  s.api = &api;
  if (Begin(s)) {
    while (!g_stop.load(std::memory_order_acquire)) {
      for (uint32_t waited = 0; waited < kDecodeMs && !g_stop.load(std::memory_order_acquire);
           waited += kPollMs) {
        SleepMs(kPollMs);
      }
      if (!DecodeOnce(s)) break;
    }
    if (g_header->counters_state.load(std::memory_order_acquire) == ring::kCountersSampling) {
      g_header->counters_state.store(ring::kCountersDone, std::memory_order_release);
    }
  }
  End(s);
  g_thread_done.store(true, std::memory_order_release);
  return nullptr;
}

}  // namespace

void StartPmSampler(ring::SegmentHeader* header, const char* test_library) {
  if (header == nullptr) return;
  if (g_started.exchange(true, std::memory_order_acq_rel)) return;
  g_test_library = test_library;
  g_header = header;
  header->counters_state.store(ring::kCountersWaiting, std::memory_order_release);
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);  // the new thread inherits: it takes no signal
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t thread;
  if (pthread_create(&thread, &attr, &SamplerLoop, nullptr) != 0) {
    g_thread_done.store(true, std::memory_order_release);
    header->counters_result.store(0, std::memory_order_relaxed);
    header->counters_failed_call.store(0, std::memory_order_relaxed);
    header->counters_state.store(ring::kCountersFailed, std::memory_order_release);
  }
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void PmSamplerContextReady() { g_context_ready.store(true, std::memory_order_release); }

void StopPmSampler() {
  if (!g_started.load(std::memory_order_acquire)) return;
  g_stop.store(true, std::memory_order_release);
  for (uint32_t waited = 0; waited < kStopWaitMs && !g_thread_done.load(std::memory_order_acquire);
       waited += 5) {
    SleepMs(5);
  }
}

}  // namespace brrr::shim
