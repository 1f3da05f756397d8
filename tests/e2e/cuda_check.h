// CHECK(call) for the e2e CUDA programs: a failed runtime call prints where and which error, and
// ends the program with status 1 (the tests then show its output).
// Must never: be used where a failure is the behaviour under test.
#ifndef BRRR_TESTS_E2E_CUDA_CHECK_H_
#define BRRR_TESTS_E2E_CUDA_CHECK_H_

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    const cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

#endif  // BRRR_TESTS_E2E_CUDA_CHECK_H_
