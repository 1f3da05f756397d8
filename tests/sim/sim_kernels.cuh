// The kernels the simulated-stack tests launch. The simulated device does not run their bodies;
// it gives each the duration the test settings assign to its name (tests/sim/CMakeLists.txt):
// BRRR_SIM_KERNELS names tiny, k1ms, k5ms, k20ms; `plain` keeps BRRR_SIM_KERNEL_NS.
// Declarations only: the definitions live in sim_kernels.cu, once per program.
#ifndef BRRR_TESTS_SIM_SIM_KERNELS_CUH_
#define BRRR_TESTS_SIM_SIM_KERNELS_CUH_

#include <cstdint>

#include "host_clock.h"

__global__ void plain(float* data);
__global__ void tiny(float* data);
__global__ void k1ms(float* data);
__global__ void k5ms(float* data);
__global__ void k20ms(float* data);

namespace brrr::simtest {

// Durations the settings give the kernels above.
inline constexpr uint64_t kPlainNs = SIM_TEST_KERNEL_NS;
inline constexpr uint64_t kTinyNs = SIM_TEST_TINY_NS;
inline constexpr uint64_t k1msNs = 1 * kMillisecond;
inline constexpr uint64_t k5msNs = 5 * kMillisecond;
inline constexpr uint64_t k20msNs = 20 * kMillisecond;
inline constexpr uint64_t kLaunchNs = SIM_TEST_LAUNCH_NS;
inline constexpr double kCopyBytesPerNs = SIM_TEST_COPY_GBPS;  // GB/s == bytes/ns

// Mangled names the CUPTI kernel records must carry.
inline constexpr char kPlainMangled[] = "_Z5plainPf";
inline constexpr char kTinyMangled[] = "_Z4tinyPf";
inline constexpr char k1msMangled[] = "_Z4k1msPf";
inline constexpr char k5msMangled[] = "_Z4k5msPf";
inline constexpr char k20msMangled[] = "_Z5k20msPf";

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_SIM_KERNELS_CUH_
