// Which metrics (alone, and as brrr's sets) can this GPU sample with CUPTI PM sampling in one pass?
// (issue 26: the metric names of shim/pm_metric_plans.h on a real chip.) For each metric name given
// on the command line (a comma-separated list is one set), prints the result of
// ConfigAddMetrics and of SetConfig.
//
//   pm_metrics_probe NAME[,NAME...] ...
//
// Must never: leave PM sampling enabled (it is disabled before exit).
#include <cuda_runtime.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* Text(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s != nullptr ? s : "?";
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = s.find(',', at);
    out.push_back(s.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  cudaFree(nullptr);  // a context
  CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUptiResult r = cuptiProfilerInitialize(&pi);
  if (r != CUPTI_SUCCESS) return printf("cuptiProfilerInitialize: %s\n", Text(r)), 1;
  CUpti_PmSampling_Enable_Params en{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
  en.deviceIndex = 0;
  if ((r = cuptiPmSamplingEnable(&en)) != CUPTI_SUCCESS) return printf("enable: %s\n", Text(r)), 1;
  CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  cn.deviceIndex = 0;
  cuptiDeviceGetChipName(&cn);
  CUpti_PmSampling_GetCounterAvailability_Params av{
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
  av.deviceIndex = 0;
  cuptiPmSamplingGetCounterAvailability(&av);
  std::vector<uint8_t> availability(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = availability.data();
  cuptiPmSamplingGetCounterAvailability(&av);
  printf("chip %s\n", cn.pChipName ? cn.pChipName : "?");
  for (int a = 1; a < argc; ++a) {
    const std::vector<std::string> names = Split(argv[a]);
    std::vector<const char*> ptrs;
    for (const std::string& n : names) ptrs.push_back(n.c_str());
    CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = cn.pChipName;
    hi.pCounterAvailabilityImage = availability.data();
    if ((r = cuptiProfilerHostInitialize(&hi)) != CUPTI_SUCCESS) {
      printf("%s\thost init %s\n", argv[a], Text(r));
      continue;
    }
    CUpti_Profiler_Host_ConfigAddMetrics_Params am{
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = hi.pHostObject;
    am.ppMetricNames = ptrs.data();
    am.numMetrics = ptrs.size();
    std::string outcome;
    if ((r = cuptiProfilerHostConfigAddMetrics(&am)) != CUPTI_SUCCESS) {
      outcome = std::string("add ") + Text(r);
    } else {
      CUpti_Profiler_Host_GetNumOfPasses_Params np{
          CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
      CUpti_Profiler_Host_GetConfigImageSize_Params cs{
          CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
      cs.pHostObject = hi.pHostObject;
      cuptiProfilerHostGetConfigImageSize(&cs);
      std::vector<uint8_t> config(cs.configImageSize);
      CUpti_Profiler_Host_GetConfigImage_Params ci{
          CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
      ci.pHostObject = hi.pHostObject;
      ci.configImageSize = config.size();
      ci.pConfigImage = config.data();
      cuptiProfilerHostGetConfigImage(&ci);
      np.configImageSize = config.size();
      np.pConfigImage = config.data();
      const CUptiResult passes = cuptiProfilerHostGetNumOfPasses(&np);
      CUpti_PmSampling_SetConfig_Params sc{CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
      sc.pPmSamplingObject = en.pPmSamplingObject;
      sc.configSize = config.size();
      sc.pConfig = config.data();
      sc.hardwareBufferSize = 32u << 20;
      sc.samplingInterval = 1000000;
      sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
      r = cuptiPmSamplingSetConfig(&sc);
      outcome = std::string("passes ") +
                (passes == CUPTI_SUCCESS ? std::to_string(np.numOfPasses) : Text(passes)) +
                "; setconfig " + Text(r);
    }
    printf("%s\t%s\n", argv[a], outcome.c_str());
    CUpti_Profiler_Host_Deinitialize_Params hd{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    hd.pHostObject = hi.pHostObject;
    cuptiProfilerHostDeinitialize(&hd);
  }
  CUpti_PmSampling_Disable_Params dp{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
  dp.pPmSamplingObject = en.pPmSamplingObject;
  cuptiPmSamplingDisable(&dp);
  return 0;
}
