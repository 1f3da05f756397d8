// Return addresses -> readable frames. See symbolizer.h.
//
// Must never: throw or abort on bad input; every failure degrades to a fallback form.
#include "collector/symbolize/symbolizer.h"

#include <cxxabi.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "collector/symbolize/module_symbols.h"

namespace brrr::symbolize {
namespace {

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string Demangle(const char* name) {
  if (name == nullptr) return "";
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return name;
  }
  std::string result(demangled);
  std::free(demangled);
  return result;
}

Symbolizer::Symbolizer(const ProcessMaps* maps) : maps_(maps) {}
Symbolizer::~Symbolizer() = default;

ModuleSymbols* Symbolizer::Module(const std::string& path) {
  auto [it, inserted] = modules_.try_emplace(path);
  if (inserted) it->second = ModuleSymbols::Open(path);
  return it->second.get();
}

const std::vector<std::string>& Symbolizer::FramesAt(uint64_t return_address) {
  auto it = cache_.find(return_address);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(return_address, Resolve(return_address)).first->second;
}

bool Symbolizer::IsProfilerPlumbing(uint64_t return_address) const {
  const MappedRegion* region = maps_->Find(return_address > 0 ? return_address - 1 : 0);
  if (region == nullptr) return false;
  const absl::string_view module = Basename(region->path);
  // brrr's own frames (a hook's callers start above it, but a CUPTI callback's stack and the
  // main() wrapper pass through it) and CUPTI's and the driver's frames that deliver callbacks.
  for (absl::string_view prefix : {"libbrrr.so", "libcupti.so", "libcuda.so"}) {
    if (absl::StartsWith(module, prefix)) return true;
  }
  return false;
}

std::vector<std::string> Symbolizer::Frames(const std::vector<uint64_t>& return_addresses) {
  std::vector<std::string> frames;
  frames.reserve(return_addresses.size());
  for (const uint64_t pc : return_addresses) {
    if (IsProfilerPlumbing(pc)) continue;
    const std::vector<std::string>& at = FramesAt(pc);
    frames.insert(frames.end(), at.begin(), at.end());
  }
  return frames;
}

std::vector<std::string> Symbolizer::Resolve(uint64_t return_address) {
  // Look inside the call instruction, not at the instruction after it.
  const uint64_t pc = return_address > 0 ? return_address - 1 : 0;
  const MappedRegion* region = maps_->Find(pc);
  if (region == nullptr) return {absl::StrFormat("0x%x (?)", return_address)};
  std::string path = region->path;
  if (path.empty()) return {absl::StrFormat("0x%x (?)", return_address)};
  const absl::string_view deleted = " (deleted)";
  if (absl::EndsWith(path, deleted)) path.resize(path.size() - deleted.size());
  const std::string module_name(Basename(path));
  const uint64_t file_offset = pc - region->start + region->offset;
  ModuleSymbols* module = path[0] == '/' ? Module(path) : nullptr;
  if (module == nullptr) return {absl::StrFormat("0x%x (%s)", file_offset, module_name)};
  const std::optional<uint64_t> address = module->FileOffsetToAddress(file_offset);
  if (!address.has_value()) return {absl::StrFormat("0x%x (%s)", file_offset, module_name)};
  const std::vector<ModuleSymbols::Location> locations = module->Lookup(*address);
  std::vector<std::string> frames;
  frames.reserve(locations.size());
  for (const ModuleSymbols::Location& location : locations) {
    if (location.function.empty()) {
      frames.push_back(absl::StrFormat("0x%x (%s)", *address, module_name));
      continue;
    }
    const std::string function = Demangle(location.function.c_str());
    frames.push_back(location.file.empty() ? absl::StrCat(function, " (", module_name, ")")
                                           : absl::StrCat(function, " (", Basename(location.file),
                                                          ":", location.line, ")"));
  }
  if (frames.empty()) frames.push_back(absl::StrFormat("0x%x (%s)", *address, module_name));
  return frames;
}

}  // namespace brrr::symbolize
