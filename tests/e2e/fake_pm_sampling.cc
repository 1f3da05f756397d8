// A fake CUPTI PM sampling library for tests only (loaded by the shim through
// BRRR_PM_SAMPLING_LIBRARY): the PM sampling, profiler-host and chip-name entry points the shim
// uses, with canned behaviour chosen by BRRR_FAKE_PM_MODE:
//   ok (default)   as an H200 did (2026-11-26): sm__throughput needs several passes (SetConfig:
//                  CUPTI_ERROR_NOT_SUPPORTED); the realtime SM metrics, gpu__dram_throughput,
//                  gpu__time_active and the dramc__ metrics fit one. Every decode yields two 1 ms samples: SM 80 % (issue 80,
//                  tensor 40), DRAM 10 % (read 6 + write 4), SM active 100 %; then SM 25 % (issue
//                  10, tensor 25), DRAM 15 % (9 + 6), active 50 %. Over the busy time: SM 70 %,
//                  DRAM 16.7 %, with whichever metric set the shim configured.
//   no_realtime    the chip knows no realtime metric (ConfigAddMetrics:
//                  CUPTI_ERROR_INVALID_METRIC_NAME) and samples the breakdowns in one pass
//   multi_pass     every metric set needs several passes (SetConfig: CUPTI_ERROR_NOT_SUPPORTED)
//   not_permitted  cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
//   busy           cuptiPmSamplingEnable: CUPTI_ERROR_HARDWARE_BUSY
//   not_supported  cuptiProfilerInitialize: CUPTI_ERROR_NOT_SUPPORTED
//   many           as ok, but 200 samples per decode (A, B, A, B, ...): the shim's 64-slot table
//                  fills and is merged, which must not change the throughput over busy time
//   decode_fails   cuptiPmSamplingDecodeData: CUPTI_ERROR_UNKNOWN
//   timed          samples on CLOCK_REALTIME that tile real time from cuptiPmSamplingStart to each
//                  decode, 1 ms each (at most 250 per decode; the rest come at the next), every
//                  one SM 30 %, DRAM 10 %, GPU active 50 %: over the active time SM 60 %, DRAM
//                  20 %, so every kernel that ran while sampling gets exactly those figures. The
//                  other modes stamp samples from 1 s on a clock of their own (no host clock).
// It counts its calls in BRRR_FAKE_PM_LOG (a file, appended at Disable) so that a test can check
// that what was enabled was disabled.
//
// Must never: be loaded outside tests, or hand back a pointer the caller could not use.
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int g_object_storage = 0, g_host_storage = 0;
bool g_multi_pass = false;  // the host object's metrics need several passes
std::atomic<int> g_decodes{0}, g_starts{0}, g_stops{0};
std::atomic<unsigned long long> g_next_ns{1'000'000'000ull};
unsigned long long g_batch_start = 0;  // the current image's first sample's start
unsigned long long g_timed_next = 0;   // timed: the next sample's start (CLOCK_REALTIME ns)

unsigned long long RealtimeNs() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<unsigned long long>(t.tv_sec) * 1'000'000'000ull +
         static_cast<unsigned long long>(t.tv_nsec);
}

bool Mode(const char* m) {
  const char* v = std::getenv("BRRR_FAKE_PM_MODE");
  return std::strcmp(v != nullptr ? v : "ok", m) == 0;
}

CUpti_PmSampling_Object* Object() {
  return reinterpret_cast<CUpti_PmSampling_Object*>(&g_object_storage);
}

}  // namespace

extern "C" {

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
  return Mode("not_supported") ? CUPTI_ERROR_NOT_SUPPORTED : CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params* p) {
  if (Mode("not_permitted")) return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  if (Mode("busy")) return CUPTI_ERROR_HARDWARE_BUSY;
  p->pPmSamplingObject = Object();
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params* p) {
  if (p->pPmSamplingObject != Object()) return CUPTI_ERROR_INVALID_PARAMETER;
  if (const char* log = std::getenv("BRRR_FAKE_PM_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "starts=%d stops=%d decodes=%d disabled=1\n", g_starts.load(), g_stops.load(),
                   g_decodes.load());
      std::fclose(f);
    }
  }
  return CUPTI_SUCCESS;
}
CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingGetCounterAvailability(
    CUpti_PmSampling_GetCounterAvailability_Params* p) {
  if (p->pCounterAvailabilityImage == nullptr) p->counterAvailabilityImageSize = 64;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
  if (p->profilerType != CUPTI_PROFILER_TYPE_PM_SAMPLING || p->pChipName == nullptr ||
      std::strcmp(p->pChipName, "GH100") != 0 || p->pCounterAvailabilityImage == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  p->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object*>(&g_host_storage);
  g_multi_pass = false;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params*) {
  return CUPTI_SUCCESS;
}
CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  if (p->ppMetricNames == nullptr || p->numMetrics == 0 || p->numMetrics > 5) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  for (size_t i = 0; i < p->numMetrics; ++i) {
    const char* m = p->ppMetricNames[i];
    const bool realtime = std::strstr(m, "realtime") != nullptr || std::strncmp(m, "dramc__", 7) == 0 ||
                          std::strncmp(m, "sm__cycles_active", 17) == 0;
    const bool breakdown = std::strncmp(m, "sm__throughput", 14) == 0 ||
                           std::strncmp(m, "gpu__dram_throughput", 20) == 0 ||
                           std::strncmp(m, "gpu__time_active", 16) == 0;
    if (!realtime && !breakdown) return CUPTI_ERROR_INVALID_METRIC_NAME;
    if (realtime && Mode("no_realtime")) return CUPTI_ERROR_INVALID_METRIC_NAME;
    const bool multi = std::strncmp(m, "sm__throughput", 14) == 0;
    if (Mode("multi_pass") || (multi && !Mode("no_realtime"))) g_multi_pass = true;
  }
  return CUPTI_SUCCESS;
}
CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  p->configImageSize = 128;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
  if (p->pConfigImage == nullptr || p->configImageSize < 128) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pConfigImage, g_multi_pass ? 0x22 : 0xC0, 128);
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params* p) {
  if (p->pPmSamplingObject != Object() || p->pConfig == nullptr || p->configSize != 128 ||
      p->samplingInterval == 0) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return p->pConfig[0] == 0x22 ? CUPTI_ERROR_NOT_SUPPORTED : CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params* p) {
  p->counterDataSize = 4096;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingCounterDataImageInitialize(
    CUpti_PmSampling_CounterDataImage_Initialize_Params* p) {
  if (p->pCounterData == nullptr || p->counterDataSize != 4096)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->pCounterData[0] = 0;  // no sample decoded into it yet
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingStart(CUpti_PmSampling_Start_Params*) {
  ++g_starts;
  g_timed_next = RealtimeNs();
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params*) {
  ++g_stops;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params* p) {
  if (Mode("decode_fails")) return CUPTI_ERROR_UNKNOWN;
  if (p->pCounterDataImage == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  ++g_decodes;
  unsigned n = Mode("many") ? 200 : 2;
  if (Mode("timed")) {
    const unsigned long long now = RealtimeNs();
    const unsigned long long whole = now > g_timed_next ? (now - g_timed_next) / 1'000'000ull : 0;
    n = whole < 250 ? static_cast<unsigned>(whole) : 250;
    g_batch_start = g_timed_next;
    g_timed_next += n * 1'000'000ull;
  } else {
    g_batch_start = g_next_ns.fetch_add(n * 1'000'000ull);
  }
  p->pCounterDataImage[0] = static_cast<uint8_t>(n);  // completed samples
  p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params* p) {
  const size_t n = p->pCounterDataImage != nullptr ? p->pCounterDataImage[0] : 0;
  p->numTotalSamples = n;
  p->numPopulatedSamples = n;
  p->numCompletedSamples = n;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiPmSamplingCounterDataGetSampleInfo(
    CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) {
  if (p->sampleIndex >= p->pCounterDataImage[0]) return CUPTI_ERROR_INVALID_PARAMETER;
  p->startTimestamp = g_batch_start + p->sampleIndex * 1'000'000ull;
  p->endTimestamp = p->startTimestamp + 1'000'000ull;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiProfilerHostEvaluateToGpuValues(
    CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  if (p->rangeIndex >= p->pCounterDataImage[0]) return CUPTI_ERROR_INVALID_PARAMETER;
  const bool timed = Mode("timed");
  const bool first = p->rangeIndex % 2 == 0;
  for (size_t i = 0; i < p->numMetrics; ++i) {
    const char* m = p->ppMetricNames[i];
    double v = 0;
    if (std::strncmp(m, "sm__throughput", 14) == 0)
      v = timed ? 30 : first ? 80 : 25;
    else if (std::strncmp(m, "sm__inst_executed_realtime", 26) == 0)
      v = timed ? 30 : first ? 80 : 10;
    else if (std::strncmp(m, "sm__pipe_tensor_cycles_active_realtime", 38) == 0)
      v = timed ? 20 : first ? 40 : 25;
    else if (std::strstr(m, "dram_throughput") != nullptr)
      v = timed ? 10 : first ? 10 : 15;
    else if (std::strncmp(m, "dramc__read_throughput", 22) == 0)
      v = timed ? 6 : first ? 6 : 9;
    else if (std::strncmp(m, "dramc__write_throughput", 23) == 0)
      v = timed ? 4 : first ? 4 : 6;
    else if (std::strncmp(m, "gpu__time_active", 16) == 0 || std::strncmp(m, "sm__cycles_active", 17) == 0)
      v = timed ? 50 : first ? 100 : 50;
    else
      return CUPTI_ERROR_INVALID_METRIC_NAME;
    p->pMetricValues[i] = v;
  }
  return CUPTI_SUCCESS;
}

}  // extern "C"
