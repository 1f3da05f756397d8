// The one simulated device's properties (H100 SXM-like: compute capability 9.0, 132 SMs, 80 GiB)
// as cudaGetDeviceProperties and cudaDeviceGetAttribute report them, from one source so that the
// two always agree. Must never describe more than one device, nor return a value for an attribute
// the toolkit does not define.
#ifndef BRRR_TOOLS_SIMCUDA_RUNTIME_DEVICE_PROPERTIES_H_
#define BRRR_TOOLS_SIMCUDA_RUNTIME_DEVICE_PROPERTIES_H_

#include <driver_types.h>

namespace simcuda::runtime {

// Core clock and memory clock in kHz (not in cudaDeviceProp since CUDA 13; attributes only).
inline constexpr int kClockRateKhz = 1980000;
inline constexpr int kMemoryClockRateKhz = 2619000;

void FillDeviceProperties(cudaDeviceProp* p);

// The value of `attr` for the device; false for a value that names no attribute (reserved or
// unassigned numbers included).
bool DeviceAttributeValue(cudaDeviceAttr attr, int* value);

}  // namespace simcuda::runtime

#endif  // BRRR_TOOLS_SIMCUDA_RUNTIME_DEVICE_PROPERTIES_H_
