// Inlined calls around an address, from DWARF scopes. See inlined_calls.h.
//
// Must never: follow a DIE reference chain without a bound, index a file table without checking
// its size, or let a libdw failure escape as anything but a shorter chain.
#include "collector/ingest/inlined_calls.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "collector/ingest/dwarf_names.h"

namespace brrr::ingest {
namespace {

// Bound against malformed DWARF (libdw bounds its own walks).
constexpr int kMaxScopes = 1024;

// Owns an array dwarf_getscopes / dwarf_getscopes_die malloc'd.
class Scopes {
 public:
  Scopes() = default;
  ~Scopes() { std::free(dies_); }
  Scopes(const Scopes&) = delete;
  Scopes& operator=(const Scopes&) = delete;
  Dwarf_Die** out() { return &dies_; }
  Dwarf_Die* at(int i) { return &dies_[i]; }

 private:
  Dwarf_Die* dies_ = nullptr;
};

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

InlinedCall CallOf(Dwarf_Die* die) {
  InlinedCall call;
  call.function = DwarfFunctionName(die);
  if (call.function.empty()) call.function = "<inlined>";
  Dwarf_Word value = 0;
  if (Unsigned(die, DW_AT_call_line, &value) && value > 0 && value <= INT_MAX) {
    call.call_line = static_cast<int>(value);
    if (Unsigned(die, DW_AT_call_file, &value)) call.call_file = SourceFile(die, value);
  }
  return call;
}

}  // namespace

InlineChain InlinedCallsAt(Dwfl_Module* module, uint64_t address) {
  InlineChain chain;
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dwfl_module_addrdie(module, address, &bias);
  if (unit == nullptr) return chain;
  // The innermost scope holding the address, then the scopes that physically hold it (callers
  // of inlined code, not the inlined function's own declaration context, which is what
  // dwarf_getscopes continues with after an inlined instance).
  Dwarf_Die innermost;
  {
    Scopes scopes;
    if (dwarf_getscopes(unit, address - bias, scopes.out()) <= 0) return chain;
    innermost = *scopes.at(0);
  }
  Scopes scopes;
  const int n = dwarf_getscopes_die(&innermost, scopes.out());
  for (int i = 0; i < n && i < kMaxScopes; ++i) {
    Dwarf_Die* scope = scopes.at(i);
    const int tag = dwarf_tag(scope);
    if (tag == DW_TAG_inlined_subroutine) {
      chain.calls.push_back(CallOf(scope));
    } else if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) {
      chain.subprogram = DwarfFunctionName(scope);
      break;
    }
  }
  return chain;
}

}  // namespace brrr::ingest
