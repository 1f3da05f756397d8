// cudaGetLastError, cudaPeekAtLastError, cudaGetErrorName and cudaGetErrorString for every
// cudaError_t value of the toolkit headers (table generated from driver_types.h). Short messages
// are written here for the codes the simulation returns; others are derived from the name
// ("cudaErrorLaunchTimeout" -> "launch timeout"). Must never return NULL.
#include <cctype>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;

constexpr char kUnrecognized[] = "unrecognized error code";

struct ErrorText {
  int code;
  const char* text;
};

constexpr ErrorText kErrorNames[] = {
#define SIMCUDA_ERROR_CODE(name, value) {value, #name},
#include "error_codes.inc"
#undef SIMCUDA_ERROR_CODE
};

constexpr ErrorText kMessages[] = {
    {cudaSuccess, "no error"},
    {cudaErrorInvalidValue, "invalid argument"},
    {cudaErrorMemoryAllocation, "out of memory"},
    {cudaErrorInitializationError, "initialization error"},
    {cudaErrorInvalidConfiguration, "invalid configuration argument"},
    {cudaErrorMissingConfiguration, "__global__ function call is not configured"},
    {cudaErrorInvalidDeviceFunction, "invalid device function"},
    {cudaErrorNoDevice, "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "invalid resource handle"},
    {cudaErrorNotReady, "device not ready"},
    {cudaErrorLaunchOutOfResources, "too many resources requested for launch"},
    {cudaErrorHostMemoryAlreadyRegistered,
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"},
    {cudaErrorNotSupported, "operation not supported"},
    {cudaErrorUnknown, "unknown error"},
};

const char* NameOf(int code) {
  for (const auto& e : kErrorNames) {
    if (e.code == code) return e.text;
  }
  return nullptr;
}

// "cudaErrorLaunchTimeout" -> "launch timeout"; computed once per code and kept.
const char* MessageOf(int code) {
  for (const auto& m : kMessages) {
    if (m.code == code) return m.text;
  }
  const char* name = NameOf(code);
  if (name == nullptr) return kUnrecognized;
  static std::mutex mu;
  static auto* derived = new std::unordered_map<int, std::string>();
  std::lock_guard lock(mu);
  auto [it, inserted] = derived->try_emplace(code);
  if (inserted) {
    std::string text;
    constexpr std::string_view kPrefix = "cudaError";
    std::string_view base = name;
    if (base.substr(0, kPrefix.size()) == kPrefix) base.remove_prefix(kPrefix.size());
    for (size_t i = 0; i < base.size(); ++i) {
      const char c = base[i];
      const bool boundary = i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
                            !std::isupper(static_cast<unsigned char>(base[i - 1]));
      if (boundary) text.push_back(' ');
      text.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    it->second = text;
  }
  return it->second.c_str();
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaGetLastError(void) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetLastError);
  const cudaError_t error = simcuda::runtime::TakeLastError();
  call.Finish(error);
  return error;
}

SIMCUDA_EXPORT cudaError_t cudaPeekAtLastError(void) {
  ApiCall call(simcuda::runtime::kCbid_cudaPeekAtLastError);
  const cudaError_t error = simcuda::runtime::PeekLastError();
  call.Finish(error);
  return error;
}

SIMCUDA_EXPORT const char* cudaGetErrorName(cudaError_t error) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetErrorName);
  const char* name = NameOf(error);
  call.Finish();
  return name != nullptr ? name : kUnrecognized;
}

SIMCUDA_EXPORT const char* cudaGetErrorString(cudaError_t error) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetErrorString);
  const char* message = MessageOf(error);
  call.Finish();
  return message;
}
