// Kernel name matching for BRRR_SIM_KERNELS (see kernel_names.h). Must never throw or crash on odd
// names: any string yields some (possibly unhelpful) keys.
#include "kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>

namespace simcuda::config {
namespace {

// Removes a trailing parameter list "(...)" (matched from the end, so nested parentheses in
// parameter types are handled).
std::string_view StripParameters(std::string_view name) {
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

// Template kernels demangle with their return type ("void ns::foo<float>(...)").
std::string_view StripReturnType(std::string_view name) {
  constexpr std::string_view kVoid = "void ";
  if (name.substr(0, kVoid.size()) == kVoid) name.remove_prefix(kVoid.size());
  return name;
}

std::string StripTemplateArguments(std::string_view name) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '<') {
      ++depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out.push_back(c);
    }
  }
  return out;
}

std::string LastComponent(const std::string& name) {
  const size_t colons = name.rfind("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

void AddUnique(std::vector<std::string>& keys, std::string key) {
  if (key.empty()) return;
  for (const auto& k : keys) {
    if (k == key) return;
  }
  keys.push_back(std::move(key));
}

}  // namespace

std::string Demangle(const char* mangled) {
  if (mangled == nullptr) return {};
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return mangled;
  std::string result(demangled);
  std::free(demangled);
  return result;
}

std::vector<std::string> KernelNameKeys(std::string_view demangled) {
  std::vector<std::string> keys;
  const std::string_view full = StripReturnType(StripParameters(demangled));
  AddUnique(keys, std::string(full));
  const std::string no_templates = StripTemplateArguments(full);
  AddUnique(keys, no_templates);
  AddUnique(keys, LastComponent(no_templates));
  return keys;
}

uint64_t KernelDurationNs(const SimConfig& config, const char* mangled) {
  if (config.kernel_overrides.empty() || mangled == nullptr) return config.kernel_ns;
  std::vector<std::string> keys{mangled};
  for (auto& key : KernelNameKeys(Demangle(mangled))) AddUnique(keys, std::move(key));
  for (const auto& key : keys) {
    for (const auto& entry : config.kernel_overrides) {
      if (entry.name == key) return entry.duration_ns;
    }
  }
  return config.kernel_ns;
}

}  // namespace simcuda::config
