// How a kernel's mangled name is matched against BRRR_SIM_KERNELS entries. Pure functions; must
// never allocate per launch (the engine resolves each kernel's duration once, at registration).
//
// A kernel registered as `_ZN2ns3fooIfEEvPT_i` demangles to `void ns::foo<float>(float*, int)`.
// Its match keys, most specific first:
//   1. the mangled name itself               `_ZN2ns3fooIfEEvPT_i`
//   2. demangled, without return type/params `ns::foo<float>`
//   3. the same without template arguments   `ns::foo`
//   4. the unqualified last component        `foo`
// The first key that names a BRRR_SIM_KERNELS entry decides the duration. Names that do not
// demangle (extern "C" kernels) match by their plain name.
#ifndef BRRR_TOOLS_SIMCUDA_CONFIG_KERNEL_NAMES_H_
#define BRRR_TOOLS_SIMCUDA_CONFIG_KERNEL_NAMES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim_config.h"

namespace simcuda::config {

// abi::__cxa_demangle, or `mangled` unchanged when it is not a mangled C++ name.
std::string Demangle(const char* mangled);

// Keys 2..4 above for a demangled name, most specific first, without duplicates.
std::vector<std::string> KernelNameKeys(std::string_view demangled);

// The duration the configuration gives the kernel with this mangled name.
uint64_t KernelDurationNs(const SimConfig& config, const char* mangled);

}  // namespace simcuda::config

#endif  // BRRR_TOOLS_SIMCUDA_CONFIG_KERNEL_NAMES_H_
