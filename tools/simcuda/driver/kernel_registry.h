// Kernels known to the engine: host stub address -> kernel (mangled name, configured duration).
// The kernel object's address is the cudaKernel_t handle given to programs. Thread-safe. Kernels
// are never freed: activity records hold their names for the life of the process.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_KERNEL_REGISTRY_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_KERNEL_REGISTRY_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace simcuda {

struct Kernel {
  std::string mangled_name;
  uint64_t duration_ns = 0;
  bool collective = false;  // an NCCL kernel (IsCollectiveKernelName)
};

// Whether a kernel's name is NCCL's: its plain or demangled name starts with ncclDevKernel_ or
// ncclKernel_ (DESIGN.md fact 16). Mangled names are read as _Z<length><name>.
bool IsCollectiveKernelName(const std::string& name);

class KernelRegistry {
 public:
  // Registers host_function -> name with the given duration; a host function registered before
  // keeps its first registration.
  Kernel* Register(const void* host_function, const char* mangled_name, uint64_t duration_ns);
  // The kernel of a host stub address or of a handle returned earlier; nullptr otherwise.
  Kernel* Lookup(const void* function) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<const void*, Kernel*> by_host_function_;
  std::unordered_set<const void*> handles_;
};

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_KERNEL_REGISTRY_H_
