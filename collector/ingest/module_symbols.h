// One ELF module opened with elfutils for symbolization: maps file offsets to the module's ELF
// addresses (through its PT_LOAD program headers), and ELF addresses to a symbol name and, where
// DWARF line info exists (in the file or a separate debug file), a source file and line.
//
// Thread-safety: none.
// Must never: abort on a malformed or missing file (Open returns nullptr).
#ifndef BRRR_COLLECTOR_INGEST_MODULE_SYMBOLS_H_
#define BRRR_COLLECTOR_INGEST_MODULE_SYMBOLS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct Dwfl;
struct Dwfl_Module;

namespace brrr::ingest {

class ModuleSymbols {
 public:
  struct Location {
    std::string function;  // raw (mangled) symbol name; empty when unknown
    std::string file;      // source file; empty when no line info
    int line = 0;
  };

  // nullptr when the file cannot be opened or is not ELF.
  static std::unique_ptr<ModuleSymbols> Open(const std::string& path);
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  // The ELF address of a file offset, if a loadable segment holds it.
  std::optional<uint64_t> FileOffsetToAddress(uint64_t file_offset) const;
  // What is at an ELF address.
  Location Lookup(uint64_t address) const;

 private:
  struct LoadSegment {
    uint64_t offset, file_size, vaddr;
  };
  ModuleSymbols(Dwfl* dwfl, Dwfl_Module* module, std::vector<LoadSegment> segments)
      : dwfl_(dwfl), module_(module), segments_(std::move(segments)) {}

  Dwfl* dwfl_;
  Dwfl_Module* module_;
  std::vector<LoadSegment> segments_;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_MODULE_SYMBOLS_H_
