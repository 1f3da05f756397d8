// Turns return addresses of the profiled process into readable frames:
//   "function (file.cc:42)"   function from the ELF symbol tables (.symtab, else .dynsym),
//                             demangled; file:line from DWARF line info when the module has it
//                             (where calls were inlined at the address, one frame per inlined
//                             function, innermost first, each caller at the line of its call,
//                             ending with the out-of-line function; see module_symbols.h)
//   "function (libfoo.so)"    no line info
//   "0x1a2b (libfoo.so)"      no symbol: address relative to the module's ELF addresses
//   "0x7f00... (?)"           outside every known module
// Module files are read with elfutils (libdwfl), at their ELF addresses: the load address comes
// from the captured ProcessMaps, so the process need not be alive any more.
//
// Thread-safety: none; one owner.
// Must never: fail on a missing, unreadable or malformed module (it yields the fallback forms),
// or symbolize a PC twice (results are cached per PC).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_SYMBOLIZER_H_
#define BRRR_COLLECTOR_SYMBOLIZE_SYMBOLIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/symbolize/process_maps.h"

namespace brrr::symbolize {

class ModuleSymbols;

class Symbolizer {
 public:
  // `maps` must outlive the symbolizer (it may keep growing; lookups use its current state).
  explicit Symbolizer(const ProcessMaps* maps);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The frames of one return address (looked up at pc - 1, inside the call instruction),
  // innermost first: one, or several where DWARF says calls were inlined there. Never empty.
  // The reference is valid until the next call.
  const std::vector<std::string>& FramesAt(uint64_t return_address);
  // Frames for a stack, innermost first, without profiler plumbing (IsProfilerPlumbing).
  std::vector<std::string> Frames(const std::vector<uint64_t>& return_addresses);
  // True for a frame in libbrrr.so, libcupti.so* or libcuda.so*: not the app's code.
  bool IsProfilerPlumbing(uint64_t return_address) const;

 private:
  std::vector<std::string> Resolve(uint64_t return_address);
  ModuleSymbols* Module(const std::string& path);

  const ProcessMaps* maps_;
  absl::flat_hash_map<uint64_t, std::vector<std::string>> cache_;
  absl::flat_hash_map<std::string, std::unique_ptr<ModuleSymbols>> modules_;
};

// "std::vector<int>::push_back(int const&)" for "_ZNSt6vectorIiSaIiEE9push_backERKi"; the input
// itself when it is not a mangled C++ name.
std::string Demangle(const char* name);

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_SYMBOLIZER_H_
