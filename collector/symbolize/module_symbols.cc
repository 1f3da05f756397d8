// ELF symbol and line lookup for one module, with elfutils. See module_symbols.h.
//
// Must never: let a libdw failure escape as anything but an empty result.
#include "collector/symbolize/module_symbols.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <string>
#include <utility>

#include "collector/symbolize/inlined_calls.h"

namespace brrr::symbolize {
namespace {

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

}  // namespace

std::unique_ptr<ModuleSymbols> ModuleSymbols::Open(const std::string& path) {
  Dwfl* dwfl = dwfl_begin(&kOfflineCallbacks);
  if (dwfl == nullptr) return nullptr;
  dwfl_report_begin(dwfl);
  // Base 0 with add_p_vaddr: the module sits at its own ELF addresses (bias 0).
  Dwfl_Module* module = dwfl_report_elf(dwfl, path.c_str(), path.c_str(), -1, 0, true);
  dwfl_report_end(dwfl, nullptr, nullptr);
  if (module == nullptr) {
    dwfl_end(dwfl);
    return nullptr;
  }
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module, &bias);
  size_t count = 0;
  if (elf == nullptr || elf_getphdrnum(elf, &count) != 0) {
    dwfl_end(dwfl);
    return nullptr;
  }
  std::vector<LoadSegment> segments;
  for (size_t i = 0; i < count && i < 4096; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD) continue;
    segments.push_back({phdr.p_offset, phdr.p_filesz, phdr.p_vaddr + bias});
  }
  return std::unique_ptr<ModuleSymbols>(new ModuleSymbols(dwfl, module, std::move(segments)));
}

ModuleSymbols::ModuleSymbols(Dwfl* dwfl, Dwfl_Module* module, std::vector<LoadSegment> segments)
    : dwfl_(dwfl),
      module_(module),
      segments_(std::move(segments)),
      inlined_(std::make_unique<InlinedCalls>(module)) {}

ModuleSymbols::~ModuleSymbols() {
  inlined_.reset();  // its DIEs point into the module's DWARF
  dwfl_end(dwfl_);
}

std::optional<uint64_t> ModuleSymbols::FileOffsetToAddress(uint64_t file_offset) const {
  for (const LoadSegment& s : segments_) {
    if (file_offset >= s.offset && file_offset - s.offset < s.file_size) {
      return s.vaddr + (file_offset - s.offset);
    }
  }
  return std::nullopt;
}

std::vector<ModuleSymbols::Location> ModuleSymbols::Lookup(uint64_t address) const {
  Location own;  // the symbol holding the address and the address's own line
  GElf_Off offset = 0;
  GElf_Sym sym;
  const char* name =
      dwfl_module_addrinfo(module_, address, &offset, &sym, nullptr, nullptr, nullptr);
  if (name != nullptr) own.function = name;
  if (Dwfl_Line* line = dwfl_module_getsrc(module_, address); line != nullptr) {
    int lineno = 0;
    const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
    if (file != nullptr && lineno > 0) {
      own.file = file;
      own.line = lineno;
    }
  }
  const InlineChain chain = inlined_->At(address);
  // The out-of-line function: named by its ELF symbol as every other frame is, by DWARF without.
  std::string outer = own.function.empty() ? chain.subprogram : own.function;
  if (chain.calls.empty()) {
    own.function = std::move(outer);
    return {std::move(own)};
  }
  const auto at_call = [](std::string function, const InlinedCall& call) {
    Location location{std::move(function), call.call_file, call.call_line};
    if (location.file.empty() || location.line <= 0) {
      location.file.clear();
      location.line = 0;
    }
    return location;
  };
  std::vector<Location> locations;
  locations.reserve(chain.calls.size() + 1);
  locations.push_back({chain.calls[0].function, std::move(own.file), own.line});
  for (size_t i = 1; i < chain.calls.size(); ++i) {
    locations.push_back(at_call(chain.calls[i].function, chain.calls[i - 1]));
  }
  locations.push_back(at_call(std::move(outer), chain.calls.back()));
  return locations;
}

}  // namespace brrr::symbolize
