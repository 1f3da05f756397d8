// Tells whether this process runs on the simulated CUDA stack of tools/simcuda, with the device
// settings the tests were compiled for. Every test binary checks this before its first test, so
// that a test never passes (or fails obscurely) against the real CUDA libraries.
// Must never initialize CUDA.
#ifndef BRRR_TESTS_SIM_SIM_STACK_CHECK_H_
#define BRRR_TESTS_SIM_SIM_STACK_CHECK_H_

#include <string>

namespace brrr::simtest {

// Empty when libcudart.so.<major> and libcupti.so.<major> were loaded from SIMCUDA_LIB_DIR and
// every BRRR_SIM_* variable holds the value the tests expect; otherwise a message saying what is
// wrong and how to run the test.
std::string SimulatedStackProblem();

// The same check for a program linked with the static runtime (libsimcudart_static.a): no
// libcudart may be loaded at all, libcuda.so.1 and libcupti.so.<major> must come from
// SIMCUDA_LIB_DIR, and the BRRR_SIM_* values must match. Call after the first CUDA call (the
// static runtime loads libcuda.so.1 then).
std::string StaticRuntimeStackProblem();

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_SIM_STACK_CHECK_H_
