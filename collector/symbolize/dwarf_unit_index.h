// One DWARF compile unit walked once, for symbolizing many addresses in it: the code ranges of
// its functions (DW_TAG_subprogram with code) and inlined calls (DW_TAG_inlined_subroutine) with
// how they nest, and its namespaces, classes and functions as intervals of DIE offsets, which say
// the qualification of any DIE of the unit without walking it again (libdw's dwarf_getscopes and
// dwarf_getscopes_die walk the unit on every call).
//
// Thread-safety: none (libdw's per-module state). Must never: walk without bounds (DIE count,
// depth, ranges per DIE are capped: a unit past them is indexed in part), or fail on malformed
// DWARF (an unreadable DIE ends its part of the walk).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_DWARF_UNIT_INDEX_H_
#define BRRR_COLLECTOR_SYMBOLIZE_DWARF_UNIT_INDEX_H_

#include <elfutils/libdw.h>

#include <cstdint>
#include <string>
#include <vector>

namespace brrr::symbolize {

class DwarfUnitIndex {
 public:
  // Walks `unit` (a compile or type unit DIE).
  explicit DwarfUnitIndex(Dwarf_Die* unit);

  // The DIEs of the inlined calls holding `pc` (an address in the unit's DWARF), innermost first,
  // then the subprogram holding them; empty when no function of the unit holds it.
  std::vector<Dwarf_Die> ChainAt(uint64_t pc) const;
  // "ns::(anonymous namespace)::Class::" for the namespaces and classes around the DIE at
  // `offset` (dwarf_dieoffset) of this unit, with the function's name for a local class
  // ("ns::Function::{unnamed type}::"); "" at file scope.
  std::string PrefixAt(Dwarf_Off offset) const;

 private:
  struct Node {  // a function with code or an inlined call
    Dwarf_Die die;
    int parent;  // enclosing node, -1 for none
    int depth;
  };
  struct Range {
    uint64_t low, high;
    int node;
  };
  struct Scope {  // a namespace, class or function: DIEs in [begin, end) lie in it
    Dwarf_Off begin, end;
    Dwarf_Die die;  // named when a prefix asks for it
    int parent;     // enclosing scope, -1 for none
  };
  void Walk(Dwarf_Die* unit);
  std::string Prefix(Dwarf_Off offset, int nesting) const;

  Dwarf_Off unit_offset_;

  std::vector<Node> nodes_;
  std::vector<Range> ranges_;  // sorted by low
  std::vector<Scope> scopes_;  // sorted by begin (the walk's pre-order)
};

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_DWARF_UNIT_INDEX_H_
