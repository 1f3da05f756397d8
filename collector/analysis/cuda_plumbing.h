// CUDA's own frames at the inner end of a stack: what nvcc's launch code, the runtime, the driver
// and the profiler put between the user's call and the hook. The report keeps them in the JSON
// (Stall/LaunchSite.plumbing_frames says how many lead) and shows the user's frame first, with
// the plumbing folded into one marker ("(+3 CUDA frames)").
//
// Plumbing: nvcc's __device_stub__<kernel> and the kernel-named host wrapper right after it (at
// the kernel's definition), __cudaLaunchKernel_helper, the cudaLaunchKernel<...> template and
// friends of cuda_runtime.h, and anything in libcudart, libcuda or libbrrr. Not frameworks or
// vendor libraries (libtorch, cuBLAS): those are frames a user reads.
//
// Must never: fold every frame (a stack of plumbing alone keeps all of it), or look past the
// first frame that is not plumbing.
#ifndef BRRR_COLLECTOR_ANALYSIS_CUDA_PLUMBING_H_
#define BRRR_COLLECTOR_ANALYSIS_CUDA_PLUMBING_H_

#include <cstdint>
#include <string>
#include <vector>

namespace brrr {

// How many frames at the start of `stack` (innermost first, "function (file:line)" or
// "function (module)") are CUDA plumbing; 0 when all of them are.
uint32_t LeadingCudaPlumbing(const std::vector<std::string>& stack);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_CUDA_PLUMBING_H_
