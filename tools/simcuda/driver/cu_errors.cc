// cuGetErrorName / cuGetErrorString: names of every CUresult enumerator of the toolkit's cuda.h
// (generated table), short texts for the codes the simulation returns, texts derived from the name
// for the rest. Unknown codes give CUDA_ERROR_INVALID_VALUE and a NULL string, as in CUDA.
// Must never return a pointer that dies: every string is static.
#include <cctype>
#include <string>
#include <unordered_map>

#include "driver_call.h"

using simcuda::driver::DriverCall;

namespace {

struct ErrorText {
  const char* name;
  std::string text;
};

const char* KnownText(CUresult code) {
  switch (code) {
    case CUDA_SUCCESS:
      return "no error";
    case CUDA_ERROR_INVALID_VALUE:
      return "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "initialization error";
    case CUDA_ERROR_INVALID_DEVICE:
      return "invalid device ordinal";
    case CUDA_ERROR_INVALID_CONTEXT:
      return "invalid device context";
    case CUDA_ERROR_INVALID_HANDLE:
      return "invalid resource handle";
    case CUDA_ERROR_NOT_FOUND:
      return "named symbol not found";
    case CUDA_ERROR_NOT_READY:
      return "device not ready";
    case CUDA_ERROR_NOT_SUPPORTED:
      return "operation not supported";
    default:
      return nullptr;
  }
}

// "CUDA_ERROR_LAUNCH_TIMEOUT" -> "launch timeout".
std::string DerivedText(const char* name) {
  std::string text = name;
  const std::string prefix = "CUDA_ERROR_";
  if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
  for (char& c : text) c = c == '_' ? ' ' : static_cast<char>(std::tolower(c));
  return text;
}

const std::unordered_map<int, ErrorText>& Table() {
  static const auto* const table = [] {
    auto* t = new std::unordered_map<int, ErrorText>();  // never destroyed: strings stay valid
#define SIMCUDA_CU_ERROR_CODE(name, value)                                              \
  t->emplace(value, ErrorText{#name, KnownText(static_cast<CUresult>(value)) != nullptr \
                                         ? KnownText(static_cast<CUresult>(value))      \
                                         : DerivedText(#name)});
#include "cu_error_codes.inc"
#undef SIMCUDA_CU_ERROR_CODE
    return t;
  }();
  return *table;
}

}  // namespace

SIMCUDA_DRIVER_EXPORT CUresult cuGetErrorName(CUresult error, const char** name) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuGetErrorName);
  if (name == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  const auto it = Table().find(static_cast<int>(error));
  if (it == Table().end()) {
    *name = nullptr;
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  *name = it->second.name;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuGetErrorString);
  if (text == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  const auto it = Table().find(static_cast<int>(error));
  if (it == Table().end()) {
    *text = nullptr;
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  *text = it->second.text.c_str();
  return call.Return(CUDA_SUCCESS);
}
