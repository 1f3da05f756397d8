// E2E workload: kernels named as the libraries that ship them name theirs (cuBLAS
// `ampere_sgemm_128x64_nn`, FlashAttention `flash_fwd_kernel`, PyTorch's
// `at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, ...>` and
// `at::native::reduce_kernel<512, 1, at::native::ReduceOp<...>>`, TorchInductor's
// `triton_poi_*`/`triton_red_*`), queued back to back and synchronized once: the device is the
// bottleneck. Their durations come from BRRR_SIM_KERNELS; kernel_mix_e2e_test picks them so that
// GEMM + attention dominate (compute) or pointwise + reductions do (bandwidth).
// Usage: kernel_mix <iterations>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

extern "C" __global__ void ampere_sgemm_128x64_nn(float* x) { x[threadIdx.x] *= 2.0f; }
extern "C" __global__ void flash_fwd_kernel(float* x) { x[threadIdx.x] += 1.0f; }
extern "C" __global__ void triton_poi_fused_add_mul_0(float* x) { x[threadIdx.x] += 3.0f; }
extern "C" __global__ void triton_red_fused__softmax_1(float* x) { x[threadIdx.x] -= 1.0f; }

namespace at {
namespace detail {
template <typename T, int N>
struct Array {
  T data[N];
};
}  // namespace detail
namespace native {
template <typename T>
struct CUDAFunctor_add {
  __device__ T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct ReduceOp {
  T* out;
};
template <int vec_size, typename func_t, typename array_t>
__global__ void vectorized_elementwise_kernel(int n, func_t f, array_t data) {
  float* x = reinterpret_cast<float*>(data.data[0]);
  if (threadIdx.x < n) x[threadIdx.x] = f(x[threadIdx.x], 1.0f);
}
template <int nt, int output_vec_size, typename R>
__global__ void reduce_kernel(R r) {
  r.out[threadIdx.x] += 0.5f;
}
}  // namespace native
}  // namespace at

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024 * sizeof(float)) != cudaSuccess) return 3;
  at::detail::Array<char*, 3> args{
      {reinterpret_cast<char*>(d), reinterpret_cast<char*>(d), reinterpret_cast<char*>(d)}};
  for (int i = 0; i < iterations; ++i) {
    ampere_sgemm_128x64_nn<<<1, 32>>>(d);
    flash_fwd_kernel<<<1, 32>>>(d);
    at::native::vectorized_elementwise_kernel<4>
        <<<1, 32>>>(32, at::native::CUDAFunctor_add<float>{}, args);
    at::native::reduce_kernel<512, 1><<<1, 32>>>(at::native::ReduceOp<float>{d});
    triton_poi_fused_add_mul_0<<<1, 32>>>(d);
    triton_red_fused__softmax_1<<<1, 32>>>(d);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 4;
  cudaFree(d);
  std::printf("ran %d iterations\n", iterations);
  return 0;
}
