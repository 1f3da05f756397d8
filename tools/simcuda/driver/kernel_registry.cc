// Kernel registration and lookup. Must never free a Kernel (names outlive registrations).
#include "kernel_registry.h"

#include <string_view>

namespace simcuda {

bool IsCollectiveKernelName(const std::string& name) {
  std::string_view rest(name);
  if (rest.substr(0, 2) == "_Z") {  // _Z<length><identifier>...: skip to the identifier
    rest.remove_prefix(2);
    if (rest.substr(0, 1) == "L") rest.remove_prefix(1);  // internal linkage
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0) return false;
    rest.remove_prefix(digits);
  }
  return rest.substr(0, 14) == "ncclDevKernel_" || rest.substr(0, 11) == "ncclKernel_";
}

Kernel* KernelRegistry::Register(const void* host_function, const char* mangled_name,
                                 uint64_t duration_ns) {
  std::lock_guard lock(mu_);
  const auto it = by_host_function_.find(host_function);
  if (it != by_host_function_.end()) return it->second;
  // Lives for the process.
  auto* kernel = new Kernel{mangled_name, duration_ns, IsCollectiveKernelName(mangled_name)};
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
