// PM sampling availability (see pm_sampling_probe.h).
//
// Must never: dereference a missing entry point, or keep a library handle it did not need.
#include "collector/counters/pm_sampling_probe.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace brrr::counters {
namespace {

void* OpenFirst(std::initializer_list<const char*> names, std::string* error) {
  for (const char* name : names) {
    if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    if (error->empty() && e != nullptr) *error = e;
  }
  return nullptr;
}

}  // namespace

PmSamplingEntryPoints LoadPmSamplingEntryPoints() {
  PmSamplingEntryPoints api;
  void* cupti = OpenFirst({"libcupti.so.13", "libcupti.so.12", "libcupti.so"}, &api.load_error);
  if (cupti == nullptr) return api;
  api.load_error.clear();
  api.profiler_initialize =
      reinterpret_cast<decltype(api.profiler_initialize)>(dlsym(cupti, "cuptiProfilerInitialize"));
  api.enable = reinterpret_cast<decltype(api.enable)>(dlsym(cupti, "cuptiPmSamplingEnable"));
  api.disable = reinterpret_cast<decltype(api.disable)>(dlsym(cupti, "cuptiPmSamplingDisable"));
  api.set_config = dlsym(cupti, "cuptiPmSamplingSetConfig");
  api.start = dlsym(cupti, "cuptiPmSamplingStart");
  api.stop = dlsym(cupti, "cuptiPmSamplingStop");
  api.decode_data = dlsym(cupti, "cuptiPmSamplingDecodeData");
  if (api.enable == nullptr || api.disable == nullptr) return api;  // no driver needed to say so
  std::string ignored;
  if (void* cuda = OpenFirst({"libcuda.so.1"}, &ignored)) {
    api.cu_init = reinterpret_cast<decltype(api.cu_init)>(dlsym(cuda, "cuInit"));
  }
  return api;  // the libraries stay loaded: CUPTI keeps state in them while the process lives
}

std::string EnableFailureReason(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "not permitted: the driver restricts GPU performance counters to administrators "
             "(ERR_NVGPUCTRPERM, NVreg_RestrictProfilingToAdminUsers=1); run as root or load the "
             "driver with NVreg_RestrictProfilingToAdminUsers=0";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "busy: another tool holds the GPU's performance counters (DCGM profiling metrics, "
             "Nsight Systems or Nsight Compute)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return absl::StrCat(
          "not supported on this GPU (PM sampling needs Ampere GA10x or later, "
          "not a vGPU or MIG slice): CUPTI error ",
          static_cast<int>(result));
    default:
      return absl::StrCat("PM sampling could not be enabled: CUPTI error ",
                          static_cast<int>(result));
  }
}

CounterAvailability ProbePmSampling(const PmSamplingEntryPoints& api) {
  CounterAvailability out;
  if (!api.load_error.empty()) {
    out.reason = absl::StrCat("not supported: libcupti could not be loaded (", api.load_error, ")");
    return out;
  }
  if (api.enable == nullptr || api.disable == nullptr || api.set_config == nullptr ||
      api.start == nullptr || api.stop == nullptr || api.decode_data == nullptr ||
      api.profiler_initialize == nullptr) {
    out.reason =
        "not supported: this libcupti has no PM sampling (cupti_pmsampling.h, CUDA 12.6 and "
        "later; the simulated device has none)";
    return out;
  }
  if (api.cu_init == nullptr || api.cu_init(0) != 0) {
    out.reason = "not supported: no CUDA driver or device in reach of the collector";
    return out;
  }
  CUpti_Profiler_Initialize_Params init{};
  init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
  if (const CUptiResult r = api.profiler_initialize(&init); r != CUPTI_SUCCESS) {
    out.reason = EnableFailureReason(r);
    return out;
  }
  CUpti_PmSampling_Enable_Params enable{};
  enable.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE;
  enable.deviceIndex = 0;
  if (const CUptiResult r = api.enable(&enable); r != CUPTI_SUCCESS) {
    out.reason = EnableFailureReason(r);
    return out;
  }
  CUpti_PmSampling_Disable_Params disable{};
  disable.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE;
  disable.pPmSamplingObject = enable.pPmSamplingObject;
  api.disable(&disable);
  out.available = true;
  return out;
}

}  // namespace brrr::counters
