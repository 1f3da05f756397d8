// A stand-in for a library that reaches the driver on its own, as cuBLAS, NCCL or Triton do: it
// dlopens libcuda.so.1, looks every function up with cuGetProcAddress_v2, loads a module and
// launches its kernel with cuLaunchKernel. It links neither libcuda nor libcudart, so no runtime
// hook can see its work. Used by driver_direct_test.cu (dlopened by path).
#ifndef BRRR_TESTS_SIM_DRIVER_DIRECT_LIBRARY_H_
#define BRRR_TESTS_SIM_DRIVER_DIRECT_LIBRARY_H_

extern "C" {

// Launches `launches` kernels named `kernel_name` (a module function: its duration comes from
// BRRR_SIM_KERNELS / BRRR_SIM_KERNEL_NS) on a new stream, then cuStreamSynchronize. Returns 0 on
// success, else the failing step's CUresult (or -1 when libcuda.so.1 cannot be loaded).
typedef int (*SimDriverDirectRunFn)(const char* kernel_name, int launches);
int sim_driver_direct_run(const char* kernel_name, int launches);
}

#endif  // BRRR_TESTS_SIM_DRIVER_DIRECT_LIBRARY_H_
