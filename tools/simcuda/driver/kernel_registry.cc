// Kernel registration and lookup. Must never free a Kernel (names outlive registrations).
#include "kernel_registry.h"

namespace simcuda {

Kernel* KernelRegistry::Register(const void* host_function, const char* mangled_name,
                                 uint64_t duration_ns) {
  std::lock_guard lock(mu_);
  const auto it = by_host_function_.find(host_function);
  if (it != by_host_function_.end()) return it->second;
  auto* kernel = new Kernel{mangled_name, duration_ns};  // lives for the process
  by_host_function_.emplace(host_function, kernel);
  handles_.insert(kernel);
  return kernel;
}

Kernel* KernelRegistry::Lookup(const void* function) const {
  if (function == nullptr) return nullptr;
  std::lock_guard lock(mu_);
  const auto it = by_host_function_.find(function);
  if (it != by_host_function_.end()) return it->second;
  if (handles_.count(function) != 0) {
    return static_cast<Kernel*>(const_cast<void*>(function));
  }
  return nullptr;
}

}  // namespace simcuda
