// The chain of inlined calls that hold an address of a module, read from its DWARF with libdw:
// the DW_TAG_inlined_subroutine scopes around the address, innermost first, each with the name of
// the inlined function (through DW_AT_abstract_origin / DW_AT_specification) and the place of the
// call in its caller (DW_AT_call_file, DW_AT_call_line); and the name of the out-of-line function
// (DW_TAG_subprogram) that holds them.
//
// Thread-safety: none (libdw's per-module state). Must never: fail or loop on malformed DWARF
// (every reference chain is bounded; anything unreadable yields fewer facts, not an error).
#ifndef BRRR_COLLECTOR_INGEST_INLINED_CALLS_H_
#define BRRR_COLLECTOR_INGEST_INLINED_CALLS_H_

#include <cstdint>
#include <string>
#include <vector>

struct Dwfl_Module;

namespace brrr::ingest {

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

// `address` is an ELF address of `module` (the module is reported at bias 0). An empty chain when
// the module has no DWARF for the address.
InlineChain InlinedCallsAt(Dwfl_Module* module, uint64_t address);

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_INLINED_CALLS_H_
