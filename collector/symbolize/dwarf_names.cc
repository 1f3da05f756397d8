// Function names from DWARF. See dwarf_names.h.
//
// Must never: follow a DIE reference chain or a type chain without a bound.
#include "collector/symbolize/dwarf_names.h"

#include <dwarf.h>

#include <optional>
#include <string>
#include <vector>

namespace brrr::symbolize {
namespace {

// Bounds against malformed DWARF (libdw bounds its own walks; these bound ours).
constexpr int kMaxReferenceHops = 16;
constexpr int kMaxTypeDepth = 32;
constexpr int kMaxParameters = 256;

const char* StringOf(Dwarf_Die* die, unsigned int name, bool integrate) {
  Dwarf_Attribute attr;
  Dwarf_Attribute* found =
      integrate ? dwarf_attr_integrate(die, name, &attr) : dwarf_attr(die, name, &attr);
  if (found == nullptr) return nullptr;
  const char* text = dwarf_formstring(found);
  return text != nullptr && text[0] != '\0' ? text : nullptr;
}


// The type `die` refers to by DW_AT_type; false when it has none.
bool TypeOf(Dwarf_Die* die, Dwarf_Die* type) {
  Dwarf_Attribute attr;
  if (dwarf_attr_integrate(die, DW_AT_type, &attr) == nullptr) return false;
  return dwarf_formref_die(&attr, type) != nullptr;
}

// A type as the demangler writes it in a parameter list ("int const*", "std::string&"), or
// nullopt for one it cannot say (arrays, function pointers, members, anything unreadable).
std::optional<std::string> TypeName(Dwarf_Die* die, ScopePrefixFn scope_prefix, int depth) {
  if (depth > kMaxTypeDepth) return std::nullopt;
  Dwarf_Die target;
  const bool has_target = TypeOf(die, &target);
  switch (dwarf_tag(die)) {
    case DW_TAG_base_type:
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
    case DW_TAG_enumeration_type: {
      const char* name = StringOf(die, DW_AT_name, false);
      if (name == nullptr) return std::nullopt;
      Dwarf_Die decl = DwarfDeclaration(die);
      return scope_prefix(&decl) + name;
    }
    case DW_TAG_typedef:  // symbols spell the type a typedef names
      if (!has_target) return std::nullopt;
      return TypeName(&target, scope_prefix, depth + 1);
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_const_type:
    case DW_TAG_volatile_type: {
      const int tag = dwarf_tag(die);
      std::optional<std::string> inner = has_target ? TypeName(&target, scope_prefix, depth + 1)
                                                    : std::optional<std::string>("void");
      if (!inner.has_value()) return std::nullopt;
      if (tag == DW_TAG_pointer_type) return *inner + "*";
      if (tag == DW_TAG_reference_type) return *inner + "&";
      if (tag == DW_TAG_rvalue_reference_type) return *inner + "&&";
      return *inner + (tag == DW_TAG_const_type ? " const" : " volatile");
    }
    default:
      return std::nullopt;
  }
}

// A parameter's type without top-level const/volatile (symbols do not say them).
std::optional<std::string> ParameterType(Dwarf_Die* parameter, ScopePrefixFn scope_prefix) {
  Dwarf_Die type;
  if (!TypeOf(parameter, &type)) return std::nullopt;
  for (int hop = 0; hop < kMaxReferenceHops; ++hop) {
    const int tag = dwarf_tag(&type);
    if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) break;
    Dwarf_Die next;
    if (!TypeOf(&type, &next)) return std::nullopt;
    type = next;
  }
  return TypeName(&type, scope_prefix, 0);
}

bool NextSibling(Dwarf_Die* die) {
  Dwarf_Die next;
  if (dwarf_siblingof(die, &next) != 0) return false;
  *die = next;
  return true;
}

bool IsCxx(Dwarf_Die* die) {
  Dwarf_Die unit;
  if (dwarf_diecu(die, &unit, nullptr, nullptr) == nullptr) return false;
  const int lang = dwarf_srclang(&unit);
  return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
         lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

// "(int, char const*)" from the declaration's formal parameters (the implicit `this` left out);
// "" when a type cannot be said.
std::string ParameterList(Dwarf_Die* decl, ScopePrefixFn scope_prefix) {
  std::string list = "(";
  Dwarf_Die child;
  if (dwarf_child(decl, &child) == 0) {
    int count = 0;
    do {
      const int tag = dwarf_tag(&child);
      if (tag == DW_TAG_unspecified_parameters) {
        list += count++ > 0 ? ", ..." : "...";
        continue;
      }
      if (tag != DW_TAG_formal_parameter || dwarf_hasattr_integrate(&child, DW_AT_artificial)) {
        continue;
      }
      const std::optional<std::string> type = ParameterType(&child, scope_prefix);
      if (!type.has_value() || count >= kMaxParameters) return "";
      if (count++ > 0) list += ", ";
      list += *type;
    } while (NextSibling(&child));
  }
  return list + ")";
}

}  // namespace

// The DIE that declares `die`: through the abstract origin (an inlined instance) and the
// specification (a definition outside its class), as far as they go.
Dwarf_Die DwarfDeclaration(Dwarf_Die* die) {
  Dwarf_Die decl = *die;
  for (int hop = 0; hop < kMaxReferenceHops; ++hop) {
    Dwarf_Attribute attr;
    Dwarf_Die next;
    if (dwarf_attr(&decl, DW_AT_abstract_origin, &attr) == nullptr &&
        dwarf_attr(&decl, DW_AT_specification, &attr) == nullptr) {
      break;
    }
    if (dwarf_formref_die(&attr, &next) == nullptr) break;
    decl = next;
  }
  return decl;
}

const char* DwarfName(Dwarf_Die* die) { return StringOf(die, DW_AT_name, true); }

std::string DwarfFunctionName(Dwarf_Die* die, ScopePrefixFn scope_prefix) {
  for (const unsigned int attr : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (const char* linkage = StringOf(die, attr, true)) return linkage;
  }
  const char* name = StringOf(die, DW_AT_name, true);
  if (name == nullptr) return "";
  Dwarf_Die decl = DwarfDeclaration(die);
  if (!IsCxx(&decl)) return name;
  return scope_prefix(&decl) + name + ParameterList(&decl, scope_prefix);
}

}  // namespace brrr::symbolize
