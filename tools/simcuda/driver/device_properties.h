// The one simulated device's properties (H100 SXM-like: compute capability 9.0, 132 SMs, 80 GiB)
// as cudaGetDeviceProperties, cudaDeviceGetAttribute and cuDeviceGetAttribute report them, from
// one source so that they always agree (the runtime reaches them through the engine API:
// simcuda_device_properties, simcuda_device_attribute). Must never describe more than one device,
// nor return a value for an attribute the toolkit does not define.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_DEVICE_PROPERTIES_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_DEVICE_PROPERTIES_H_

#include <driver_types.h>

namespace simcuda {

// Core clock and memory clock in kHz (not in cudaDeviceProp since CUDA 13; attributes only).
inline constexpr int kClockRateKhz = 1980000;
inline constexpr int kMemoryClockRateKhz = 2619000;

void FillDeviceProperties(cudaDeviceProp* p);

// The value of `attr` for the device; false for a value that names no attribute (reserved or
// unassigned numbers included). CUdevice_attribute has the same numbers (cu_device_queries.cc
// checks a few).
bool DeviceAttributeValue(cudaDeviceAttr attr, int* value);

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_DEVICE_PROPERTIES_H_
