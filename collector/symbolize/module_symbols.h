// One ELF module opened with elfutils for symbolization: maps file offsets to the module's ELF
// addresses (through its PT_LOAD program headers), and ELF addresses to a symbol name and, where
// DWARF line info exists (in the file or a separate debug file), a source file and line. Where
// DWARF says the address lies in inlined calls (DW_TAG_inlined_subroutine), one address gives a
// location per inlined function and one for the out-of-line function that holds them.
//
// Thread-safety: none.
// Must never: abort on a malformed or missing file (Open returns nullptr).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_MODULE_SYMBOLS_H_
#define BRRR_COLLECTOR_SYMBOLIZE_MODULE_SYMBOLS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct Dwfl;
struct Dwfl_Module;

namespace brrr::symbolize {

class InlinedCalls;

class ModuleSymbols {
 public:
  struct Location {
    // Raw name: the ELF symbol (mangled) for the out-of-line function, else DWARF's name for it;
    // DWARF's linkage name (mangled) or its qualified DW_AT_name for an inlined function. Empty
    // when unknown.
    std::string function;
    std::string file;  // source file; empty when no line info
    int line = 0;
  };

  // nullptr when the file cannot be opened or is not ELF.
  static std::unique_ptr<ModuleSymbols> Open(const std::string& path);
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  // The ELF address of a file offset, if a loadable segment holds it.
  std::optional<uint64_t> FileOffsetToAddress(uint64_t file_offset) const;
  // What is at an ELF address, innermost first, never empty. Without inlined calls there (or
  // without DWARF), one location: the symbol with the address's line. With them: the innermost
  // inlined function with the address's own line, then each caller at the line of its inlined
  // call (DW_AT_call_file/DW_AT_call_line), ending with the out-of-line function at the line of
  // the outermost inlined call.
  std::vector<Location> Lookup(uint64_t address) const;

 private:
  struct LoadSegment {
    uint64_t offset, file_size, vaddr;
  };
  ModuleSymbols(Dwfl* dwfl, Dwfl_Module* module, std::vector<LoadSegment> segments);

  Dwfl* dwfl_;
  Dwfl_Module* module_;
  std::vector<LoadSegment> segments_;
  std::unique_ptr<InlinedCalls> inlined_;  // the DWARF units it has walked so far
};

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_MODULE_SYMBOLS_H_
