// Definitions of the test kernels declared in sim_kernels.cuh. Trivial bodies: on the simulated
// device only their names and launch configurations matter. Must stay free of host logic.
#include "sim_kernels.cuh"

__global__ void plain(float* data) {
  if (data != nullptr) data[0] += 1.0f;
}
__global__ void tiny(float* data) {
  if (data != nullptr) data[0] += 2.0f;
}
__global__ void k1ms(float* data) {
  if (data != nullptr) data[0] += 3.0f;
}
__global__ void k5ms(float* data) {
  if (data != nullptr) data[0] += 4.0f;
}
__global__ void k20ms(float* data) {
  if (data != nullptr) data[0] += 5.0f;
}
