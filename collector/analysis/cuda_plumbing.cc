// LeadingCudaPlumbing (see cuda_plumbing.h).
#include "collector/analysis/cuda_plumbing.h"

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "viewer/format/frame_text.h"

namespace brrr {
namespace {

bool IsCudaPlumbing(absl::string_view frame) {
  const absl::string_view where = FrameWhere(frame);
  for (absl::string_view module : {"libcudart.so", "libcuda.so", "libbrrr.so"}) {
    if (absl::StartsWith(where, module)) return true;
  }
  // Code of CUDA's own headers, inlined into the caller: the cudaLaunchKernel<...> template and
  // friends, nvcc's launch helper and stub glue, whatever name the inlined frame carries.
  for (absl::string_view header : {"cuda_runtime.h:", "cuda_runtime_api.h:", "device_functions.h:",
                                   "host_runtime.h:", "cuda_device_runtime_api.h:"}) {
    if (absl::StartsWith(where, header)) return true;
  }
  return absl::StartsWith(frame, "__cudaLaunchKernel_helper") ||
         absl::StartsWith(frame, "__device_stub__");
}

}  // namespace

uint32_t LeadingCudaPlumbing(const std::vector<std::string>& stack) {
  uint32_t n = 0;
  while (n < stack.size() && IsCudaPlumbing(stack[n])) {
    // The stub is called by the kernel-named host wrapper nvcc writes at the kernel's definition.
    if (absl::StartsWith(stack[n], "__device_stub__") && n + 1 < stack.size()) ++n;
    ++n;
  }
  return n >= stack.size() ? 0 : n;
}

}  // namespace brrr
