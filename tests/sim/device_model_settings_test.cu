// The simulated device's settings take effect as documented: a copy of B bytes lasts
// B / BRRR_SIM_COPY_GBPS ns; BRRR_SIM_KERNELS sets a kernel's duration by its name without
// arguments (`tiny` for `tiny(float*)`), every other kernel lasts BRRR_SIM_KERNEL_NS.
// Expected values come from tests/sim/CMakeLists.txt, never from the simulator.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

using DeviceModelSettingsTest = SimTest;

// Model durations are exact; allow rounding of the bandwidth division.
constexpr uint64_t kRoundingNs = 1000;

TEST_F(DeviceModelSettingsTest, CopyDurationIsBytesOverBandwidth) {
  const std::vector<size_t> sizes = {4096, 100000, 1000000, 4000000};
  std::vector<char> host(sizes.back(), 'x');
  char* device = nullptr;
  char* device2 = nullptr;
  ASSERT_EQ(cudaMalloc(&device, sizes.back()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device2, sizes.back()), cudaSuccess);
  for (size_t bytes : sizes) {
    ASSERT_EQ(cudaMemcpy(device, host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(device2, device, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    const uint64_t before = MonotonicNs();
    ASSERT_EQ(cudaMemcpy(host.data(), device2, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_GE(MonotonicNs() - before, static_cast<uint64_t>(bytes / kCopyBytesPerNs))
        << "a synchronous D2H copy of " << bytes << " bytes returned before its modelled end";
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), 3 * sizes.size());
  for (const CUpti_ActivityMemcpy6& copy : records.memcpys) {
    const double expected_ns = static_cast<double>(copy.bytes) / kCopyBytesPerNs;
    EXPECT_NEAR(static_cast<double>(copy.end - copy.start), expected_ns,
                kRoundingNs + expected_ns * 0.01)
        << "copy of " << copy.bytes << " bytes, kind " << static_cast<int>(copy.copyKind);
  }
  std::vector<size_t> seen;
  for (const CUpti_ActivityMemcpy6& copy : records.memcpys) seen.push_back(copy.bytes);
  for (size_t bytes : sizes) {
    EXPECT_EQ(std::count(seen.begin(), seen.end(), bytes), 3) << bytes << " byte copies";
  }
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaFree(device2), cudaSuccess);
}

TEST_F(DeviceModelSettingsTest, KernelDurationsFollowTheirNames) {
  tiny<<<1, 1>>>(nullptr);
  plain<<<1, 1>>>(nullptr);
  k1ms<<<2, 64>>>(nullptr);
  tiny<<<8, 32>>>(nullptr);
  plain<<<4, 4>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 5u);
  for (const KernelRecord& kernel : records.kernels) {
    uint64_t expected = 0;
    if (kernel.name == kTinyMangled) {
      expected = kTinyNs;
    } else if (kernel.name == kPlainMangled) {
      expected = kPlainNs;
    } else if (kernel.name == k1msMangled) {
      expected = k1msNs;
    } else {
      ADD_FAILURE() << "unexpected kernel name " << kernel.name;
      continue;
    }
    EXPECT_NEAR(static_cast<double>(kernel.raw.end - kernel.raw.start),
                static_cast<double>(expected), kRoundingNs)
        << kernel.name;
  }
}

}  // namespace
}  // namespace brrr::simtest
