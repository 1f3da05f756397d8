// Readable names of functions from their DWARF entries, as the demangler would write the
// function's symbol where DWARF has no linkage name (functions with internal linkage, such as
// those in an anonymous namespace): "ns::(anonymous namespace)::Class::name(int const*, Foo&)",
// qualified by the namespaces and classes that declare it, with the parameter types of a C++
// function (C functions: the bare name).
//
// Thread-safety: none (libdw's per-module state). Must never: fail, recurse or loop without a
// bound on malformed DWARF (an unreadable parameter type leaves the parameter list out).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_DWARF_NAMES_H_
#define BRRR_COLLECTOR_SYMBOLIZE_DWARF_NAMES_H_

#include <elfutils/libdw.h>

#include <string>

#include "absl/functional/function_ref.h"

namespace brrr::symbolize {

// "ns::Class::" for the namespaces and classes that hold a declaration DIE ("" at file scope).
using ScopePrefixFn = absl::FunctionRef<std::string(Dwarf_Die* declaration)>;

// The function of a DW_TAG_subprogram or DW_TAG_inlined_subroutine: its linkage name (mangled)
// when DWARF has one, else its readable name as above; "" when it has no name at all.
std::string DwarfFunctionName(Dwarf_Die* die, ScopePrefixFn scope_prefix);

// The DIE that declares `die`: through DW_AT_abstract_origin and DW_AT_specification, as far as
// they go (a bounded number of hops).
Dwarf_Die DwarfDeclaration(Dwarf_Die* die);

// DW_AT_name of `die` (also through its abstract origin or specification); nullptr when absent or
// empty.
const char* DwarfName(Dwarf_Die* die);

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_DWARF_NAMES_H_
