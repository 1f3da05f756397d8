// Work a library launches straight through the driver (dlopen("libcuda.so.1") +
// cuGetProcAddress_v2 + cuModuleGetFunction + cuLaunchKernel, like cuBLAS or Triton) is seen by
// CUPTI: kernel records whose correlation ids belong to DRIVER cuLaunchKernel records (and to no
// RUNTIME record), and the library's cuStreamSynchronize as a SYNCHRONIZATION record.
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "cupti_recorder.h"
#include "driver_direct_library.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

class DriverDirectTest : public SimTest {};

TEST_F(DriverDirectTest, LibraryLaunchesThroughTheDriverAreSeen) {
  void* library = dlopen(SIM_DRIVER_DIRECT_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto run = reinterpret_cast<SimDriverDirectRunFn>(dlsym(library, "sim_driver_direct_run"));
  ASSERT_NE(run, nullptr);
  constexpr int kLaunches = 4;
  // No BRRR_SIM_KERNELS entry: the kernel takes BRRR_SIM_KERNEL_NS.
  const std::string name = "triton_poi_fused_add_0";
  ASSERT_EQ(run(name.c_str(), kLaunches), 0);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), static_cast<size_t>(kLaunches));
  uint32_t previous_id = 0;
  for (const KernelRecord& kernel : records.KernelsByCorrelation()) {
    EXPECT_EQ(kernel.name, name);
    EXPECT_EQ(kernel.raw.end - kernel.raw.start, kPlainNs);
    EXPECT_EQ(kernel.raw.gridX, 4);
    EXPECT_NE(kernel.raw.correlationId, previous_id);
    previous_id = kernel.raw.correlationId;
    const auto calls = records.DriverCallsWithCorrelation(kernel.raw.correlationId);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].cbid, static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    EXPECT_TRUE(records.RuntimeCallsWithCorrelation(kernel.raw.correlationId).empty());
  }
  ASSERT_EQ(records.synchronizations.size(), 1u);
  const auto sync_calls =
      records.DriverCallsWithCorrelation(records.synchronizations[0].correlationId);
  ASSERT_EQ(sync_calls.size(), 1u);
  EXPECT_EQ(sync_calls[0].cbid, static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize));
  EXPECT_GE(records.synchronizations[0].end, records.KernelsByCorrelation().back().raw.end);
  EXPECT_TRUE(records.runtime_calls.empty()) << "the library made runtime calls";
}

}  // namespace
}  // namespace brrr::simtest
