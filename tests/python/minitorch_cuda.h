// The CUDA calls of the minitorch test extension (implemented in minitorch_cuda.cu, built by
// nvcc). Each returns a cudaError_t as int (0 = success).
//
// Must never: be called with the GIL held by the module: these are the calls PyTorch makes with
// the GIL released.
#ifndef BRRR_TESTS_PYTHON_MINITORCH_CUDA_H_
#define BRRR_TESTS_PYTHON_MINITORCH_CUDA_H_

#include <cstddef>

namespace minitorch {

int DeviceAlloc(size_t n, float** out);                            // cudaMalloc of n floats
int LaunchAdd(float* data, int n);                                 // one add_one<<<>>> launch
int Item(const float* data, float* out);                           // D2H cudaMemcpy of data[0]
int CopyAsyncPageable(float* dst, const void* host, size_t bytes);  // H2D cudaMemcpyAsync, stream 0
int Synchronize();                                                 // cudaDeviceSynchronize
int ProfilerStart();                                               // cudaProfilerStart
int ProfilerStop();                                                // cudaProfilerStop
int Free(float* data);                                             // cudaFree
// On a new std::thread (no Python thread state): `launches` add_one launches, then
// cudaDeviceSynchronize; joins it.
int RunInCppThread(float* data, int n, int launches);
const char* ErrorName(int status);

}  // namespace minitorch

#endif  // BRRR_TESTS_PYTHON_MINITORCH_CUDA_H_
