// Backing memory for simulated device allocations and pinned host allocations. Large blocks are
// 2 MiB-aligned anonymous mappings advised to use transparent huge pages: first-touch page faults
// on 4 KiB pages made a fresh 64 MiB copy take about a second on a loaded VM. Blocks up to 1 GiB
// are faulted in at allocation (one write per huge page); bigger ones stay lazy. Must never be used
// for memory the engine did not allocate; FreeBytes needs the size given to AllocateBytes.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_HOST_ALLOCATOR_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_HOST_ALLOCATOR_H_

#include <cstddef>

namespace simcuda {

// At least 256-byte aligned; nullptr when out of memory. bytes > 0.
void* AllocateBytes(size_t bytes);
void FreeBytes(void* ptr, size_t bytes);

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_HOST_ALLOCATOR_H_
