// The chain of inlined calls that hold an address of a module, read from its DWARF with libdw:
// the DW_TAG_inlined_subroutine scopes around the address, innermost first, each with the name of
// the inlined function (through DW_AT_abstract_origin / DW_AT_specification) and the place of the
// call in its caller (DW_AT_call_file, DW_AT_call_line); and the name of the out-of-line function
// (DW_TAG_subprogram) that holds them. Each compile unit is walked once (DwarfUnitIndex), when an
// address in it is first asked about.
//
// Thread-safety: none (libdw's per-module state). Must never: fail or loop on malformed DWARF
// (every reference chain is bounded; anything unreadable yields fewer facts, not an error).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_INLINED_CALLS_H_
#define BRRR_COLLECTOR_SYMBOLIZE_INLINED_CALLS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/symbolize/dwarf_unit_index.h"

struct Dwfl_Module;

namespace brrr::symbolize {

struct InlinedCall {
  // The inlined function: its linkage name (mangled) when DWARF has one, else its readable name
  // (DwarfFunctionName); "<inlined>" when nameless.
  std::string function;
  std::string call_file;  // the call's file in the caller; empty when unknown
  int call_line = 0;      // 0 when unknown
};

struct InlineChain {
  std::vector<InlinedCall> calls;  // innermost first; empty when nothing is inlined there
  std::string subprogram;          // the out-of-line function's DWARF name; empty when unknown
};

class InlinedCalls {
 public:
  // `module` (reported at bias 0) must outlive this.
  explicit InlinedCalls(Dwfl_Module* module) : module_(module) {}

  // The chain at an ELF address of the module; empty when the module has no DWARF for it.
  InlineChain At(uint64_t address);

 private:
  // The index of the unit holding `die` (walked on first use); nullptr when unreadable.
  const DwarfUnitIndex* IndexOf(Dwarf_Die* die);
  std::string ScopePrefix(Dwarf_Die* declaration);

  Dwfl_Module* module_;
  absl::flat_hash_map<Dwarf_Off, std::unique_ptr<DwarfUnitIndex>> units_;  // by unit DIE offset
};

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_INLINED_CALLS_H_
