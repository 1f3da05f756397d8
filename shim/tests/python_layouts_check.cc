// Compares the shim's hard-coded CPython layout row (shim/python_layouts.h) with the offsets a probe
// compiled against one CPython's own headers prints (python_layouts_probe.c). One ctest per
// CPython found at configure time; exits 1 and names every field that differs.
//
// Must never: take an expected value from the table it checks.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "shim/python_layouts.h"

namespace {

using brrr::shim::kNoField;
using brrr::shim::kNoOwner;

// The table's value for a probe line name; false when the table has no such field.
bool TableValue(const brrr::shim::PythonLayout& l, const std::string& name, uint64_t* out) {
  const brrr::shim::DebugOffsetsPositions& d = brrr::shim::kDebugOffsets313;
  const std::map<std::string, uint64_t> fields = {
      {"minor", l.minor},
      {"object_type", l.object_type},
      {"var_size", l.var_size},
      {"tstate_interp", l.tstate_interp},
      {"tstate_frame", l.model == brrr::shim::FrameModel::kFrameObject ? l.tstate_frame : kNoField},
      {"tstate_cframe", l.model == brrr::shim::FrameModel::kCFrame ? l.tstate_frame : kNoField},
      {"tstate_current_frame",
       l.model == brrr::shim::FrameModel::kCurrentFrame ? l.tstate_frame : kNoField},
      {"cframe_current_frame", l.cframe_current_frame},
      {"frame_back", l.model == brrr::shim::FrameModel::kFrameObject ? l.frame_back : kNoField},
      {"frame_code", l.model == brrr::shim::FrameModel::kFrameObject ? l.frame_code : kNoField},
      {"frame_lasti", l.model == brrr::shim::FrameModel::kFrameObject ? l.frame_instr : kNoField},
      {"iframe_previous", l.model != brrr::shim::FrameModel::kFrameObject ? l.frame_back : kNoField},
      {"iframe_code", l.model != brrr::shim::FrameModel::kFrameObject ? l.frame_code : kNoField},
      {"iframe_instr", l.model != brrr::shim::FrameModel::kFrameObject ? l.frame_instr : kNoField},
      {"iframe_owner", l.frame_owner},
      {"iframe_is_entry", l.frame_is_entry},
      {"owned_by_generator", l.owned_by_generator},
      {"owned_by_cstack", l.owned_by_cstack},
      {"code_filename", l.code_filename},
      {"code_name", l.code_name},
      {"code_qualname", l.code_qualname},
      {"code_firstlineno", l.code_firstlineno},
      {"code_linetable", l.code_linetable},
      {"code_adaptive", l.code_adaptive},
      {"code_firsttraceable", l.code_firsttraceable},
      // The shim computes instruction offsets as byte differences and scales f_lasti by this.
      {"code_unit_size", l.minor >= 11 ? 2u : kNoField},
      {"bytes_sval", l.bytes_sval},
      {"unicode_length", l.unicode_length},
      {"unicode_state", l.unicode_state},
      {"ascii_size", l.ascii_size},
      {"compact_size", l.compact_size},
      {"state_kind_shift", l.state_kind_shift},
      {"state_compact_bit", l.state_compact_bit},
      {"state_ascii_bit", l.state_ascii_bit},
      {"debug_version", d.version},
      {"debug_free_threaded", d.free_threaded},
      {"debug_tstate_current_frame", d.tstate_current_frame},
      {"debug_frame_previous", d.frame_previous},
      {"debug_frame_executable", d.frame_executable},
      {"debug_frame_instr", d.frame_instr},
      {"debug_frame_owner", d.frame_owner},
      {"debug_code_filename", d.code_filename},
      {"debug_code_qualname", d.code_qualname},
      {"debug_code_linetable", d.code_linetable},
      {"debug_code_firstlineno", d.code_firstlineno},
      {"debug_code_adaptive", d.code_adaptive},
      {"debug_unicode_state", d.unicode_state},
      {"debug_unicode_length", d.unicode_length},
      {"debug_ascii_size", d.ascii_size},
  };
  const auto it = fields.find(name);
  if (it == fields.end() || it->second == kNoField || (it->second == kNoOwner &&
                                                        name.rfind("owned_by_", 0) == 0)) {
    return false;
  }
  *out = it->second;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: python_layouts_check PROBE\n");
    return 2;
  }
  FILE* p = popen(argv[1], "r");
  if (p == nullptr) {
    perror("popen");
    return 2;
  }
  std::map<std::string, uint64_t> probed;
  char name[128];
  unsigned long value = 0;
  while (fscanf(p, "%127s %lu", name, &value) == 2) probed[name] = value;
  if (pclose(p) != 0 || probed.count("minor") == 0) {
    fprintf(stderr, "probe %s failed\n", argv[1]);
    return 1;
  }
  const brrr::shim::PythonLayout* l =
      brrr::shim::PythonLayoutFor(static_cast<uint32_t>(probed["minor"]));
  if (l == nullptr) {
    fprintf(stderr, "3.%lu has no row in python_layouts.h\n",
            static_cast<unsigned long>(probed["minor"]));
    return 1;
  }
  int bad = 0;
  int checked = 0;
  for (const auto& [field, offset] : probed) {
    uint64_t expected = 0;
    if (!TableValue(*l, field, &expected)) {
      fprintf(stderr, "3.%u: the headers have %s = %lu, the table has no value for it\n", l->minor,
              field.c_str(), static_cast<unsigned long>(offset));
      ++bad;
      continue;
    }
    ++checked;
    if (expected != offset) {
      fprintf(stderr, "3.%u: %s is %lu in the headers, %lu in the table\n", l->minor,
              field.c_str(), static_cast<unsigned long>(offset),
              static_cast<unsigned long>(expected));
      ++bad;
    }
  }
  // Every field the table uses for this version must have been printed (and so checked).
  for (const char* required : {"tstate_interp", "code_filename", "code_linetable",
                               "code_firstlineno", "bytes_sval", "unicode_state", "ascii_size"}) {
    if (probed.count(required) == 0) {
      fprintf(stderr, "3.%u: the probe did not print %s\n", l->minor, required);
      ++bad;
    }
  }
  printf("3.%u: %d fields checked, %d differ\n", l->minor, checked, bad);
  return bad == 0 ? 0 : 1;
}
