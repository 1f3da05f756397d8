// Inlined calls around an address, from DWARF scopes. See inlined_calls.h.
//
// Must never: index a file table without checking its size, or let a libdw failure escape as
// anything but a shorter chain.
#include "collector/symbolize/inlined_calls.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <climits>
#include <cstring>

#include "collector/symbolize/dwarf_names.h"

namespace brrr::symbolize {
namespace {

bool Unsigned(Dwarf_Die* die, unsigned int name, Dwarf_Word* value) {
  Dwarf_Attribute attr;
  if (dwarf_attr(die, name, &attr) == nullptr) return false;
  return dwarf_formudata(&attr, value) == 0;
}

// Entry `index` of the file table of the unit holding `die`; "" when absent.
std::string SourceFile(Dwarf_Die* die, Dwarf_Word index) {
  Dwarf_Die unit;
  if (dwarf_diecu(die, &unit, nullptr, nullptr) == nullptr) return "";
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_getsrcfiles(&unit, &files, &count) != 0 || index >= count) return "";
  const char* name = dwarf_filesrc(files, index, nullptr, nullptr);
  // libdw names the unused entry 0 of a DWARF 4 table "???".
  if (name == nullptr || name[0] == '\0' || std::strcmp(name, "???") == 0) return "";
  return name;
}

InlinedCall CallOf(Dwarf_Die* die, ScopePrefixFn scope_prefix) {
  InlinedCall call;
  call.function = DwarfFunctionName(die, scope_prefix);
  if (call.function.empty()) call.function = "<inlined>";
  Dwarf_Word value = 0;
  if (Unsigned(die, DW_AT_call_line, &value) && value > 0 && value <= INT_MAX) {
    call.call_line = static_cast<int>(value);
    if (Unsigned(die, DW_AT_call_file, &value)) call.call_file = SourceFile(die, value);
  }
  return call;
}

}  // namespace

const DwarfUnitIndex* InlinedCalls::IndexOf(Dwarf_Die* die) {
  Dwarf_Die unit;
  if (dwarf_diecu(die, &unit, nullptr, nullptr) == nullptr) return nullptr;
  auto [it, inserted] = units_.try_emplace(dwarf_dieoffset(&unit));
  if (inserted) it->second = std::make_unique<DwarfUnitIndex>(&unit);
  return it->second.get();
}

std::string InlinedCalls::ScopePrefix(Dwarf_Die* declaration) {
  const DwarfUnitIndex* index = IndexOf(declaration);
  return index == nullptr ? "" : index->PrefixAt(dwarf_dieoffset(declaration));
}

InlineChain InlinedCalls::At(uint64_t address) {
  InlineChain chain;
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dwfl_module_addrdie(module_, address, &bias);
  if (unit == nullptr) return chain;
  const DwarfUnitIndex* index = IndexOf(unit);
  if (index == nullptr) return chain;
  const auto prefix = [this](Dwarf_Die* declaration) { return ScopePrefix(declaration); };
  for (Dwarf_Die& die : index->ChainAt(address - bias)) {
    if (dwarf_tag(&die) == DW_TAG_inlined_subroutine) {
      chain.calls.push_back(CallOf(&die, prefix));
    } else {
      chain.subprogram = DwarfFunctionName(&die, prefix);
    }
  }
  return chain;
}

}  // namespace brrr::symbolize
