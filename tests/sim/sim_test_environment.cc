// Implements the simulated-stack gtest environment and fixture of sim_test_environment.h.
// Must never call CUDA before the stack check and CUPTI set-up have run.
#include "sim_test_environment.h"

#include <cuda_runtime_api.h>

#include <string>

#include "sim_stack_check.h"

namespace brrr::simtest {
namespace {

class SimEnvironment : public ::testing::Environment {
 public:
  explicit SimEnvironment(const RecorderOptions& options) : options_(options) {}

  void SetUp() override {
    const std::string problem = SimulatedStackProblem();
    if (!problem.empty()) GTEST_FAIL() << problem;
    const std::string error = StartActivityRecording(options_);
    ASSERT_TRUE(error.empty()) << "CUPTI activity recording could not start: " << error;
  }

 private:
  RecorderOptions options_;
};

}  // namespace

::testing::Environment* InstallSimEnvironment(const RecorderOptions& options) {
  return ::testing::AddGlobalTestEnvironment(new SimEnvironment(options));
}

void SimTest::SetUp() {
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  (void)cudaGetLastError();
  TakeActivityRecords();
}

void SimTest::TearDown() { cudaDeviceSynchronize(); }

}  // namespace brrr::simtest
