// The gtest global environment of every simulated-stack test binary: before the first test it
// checks that the process runs on the simulated stack with the expected settings (failing the
// whole binary with a clear message otherwise), then starts CUPTI activity recording.
// Must never let a test run against the real CUDA libraries.
#ifndef BRRR_TESTS_SIM_SIM_TEST_ENVIRONMENT_H_
#define BRRR_TESTS_SIM_SIM_TEST_ENVIRONMENT_H_

#include <gtest/gtest.h>

#include "cupti_recorder.h"

namespace brrr::simtest {

// Registers the environment with gtest. Call from a namespace-scope initializer in each test file:
//   const auto* const kEnvironment = brrr::simtest::InstallSimEnvironment({});
::testing::Environment* InstallSimEnvironment(const RecorderOptions& options);

// Fixture for tests that read CUPTI records: SetUp waits for the device and discards earlier
// records; TearDown waits for the device so no work leaks into the next test.
class SimTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_SIM_TEST_ENVIRONMENT_H_
