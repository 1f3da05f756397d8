// Where the fields the shim reads live inside CPython's objects, one table row per supported minor
// version (3.9 to 3.13, default builds; free-threaded builds are refused). Values come from each
// version's own headers and are checked against them by shim/tests/python_layouts_probe.c (one
// ctest per CPython found at configure time): a wrong row fails a test, never a user's run.
//
// Must never: be used for a version it has no row for, or grow a field the probe does not print.
#ifndef BRRR_SHIM_PYTHON_LAYOUTS_H_
#define BRRR_SHIM_PYTHON_LAYOUTS_H_

#include <cstdint>

namespace brrr::shim {

inline constexpr uint16_t kNoField = 0xFFFF;
inline constexpr uint8_t kNoOwner = 0xFF;

// How a thread state reaches its innermost frame.
enum class FrameModel : uint8_t {
  kFrameObject = 0,   // 3.9, 3.10: tstate->frame, a PyFrameObject chain (f_back)
  kCFrame = 1,        // 3.11, 3.12: tstate->cframe->current_frame, _PyInterpreterFrame chain
  kCurrentFrame = 2,  // 3.13: tstate->current_frame, _PyInterpreterFrame chain
};

struct PythonLayout {
  uint32_t minor;  // 3.<minor>
  FrameModel model;
  // 3.9/3.10: bytes per f_lasti unit (1: bytes on 3.9, 2: code units on 3.10). 0 from 3.11.
  uint8_t lasti_scale;
  // PyObject / PyVarObject
  uint16_t object_type;  // ob_type
  uint16_t var_size;     // ob_size
  // PyThreadState
  uint16_t tstate_interp;
  uint16_t tstate_frame;          // frame (3.9/3.10), cframe (3.11/3.12), current_frame (3.13)
  uint16_t cframe_current_frame;  // _PyCFrame.current_frame (3.11/3.12)
  // Frame: PyFrameObject (3.9/3.10) or _PyInterpreterFrame (3.11+)
  uint16_t frame_back;   // f_back / previous
  uint16_t frame_code;   // f_code / f_executable (3.13)
  uint16_t frame_instr;  // f_lasti (int) / prev_instr (3.11, 3.12) / instr_ptr (3.13)
  uint16_t frame_owner;  // owner (char), 3.11+
  uint16_t frame_is_entry;  // is_entry (bool), 3.11 only
  uint8_t owned_by_generator;  // FRAME_OWNED_BY_GENERATOR, 3.11+
  uint8_t owned_by_cstack;     // FRAME_OWNED_BY_CSTACK, 3.12+
  // PyCodeObject
  uint16_t code_filename;
  uint16_t code_name;
  uint16_t code_qualname;  // 3.11+
  uint16_t code_firstlineno;  // int
  uint16_t code_linetable;    // co_lnotab (3.9), co_linetable (3.10+): bytes
  uint16_t code_adaptive;     // co_code_adaptive (3.11+): the bytecode, inline
  uint16_t code_firsttraceable;  // _co_firsttraceable (int, code units), 3.11+
  // PyBytesObject, PyASCIIObject / PyCompactUnicodeObject
  uint16_t bytes_sval;
  uint16_t unicode_length;
  uint16_t unicode_state;
  uint16_t ascii_size;    // sizeof(PyASCIIObject): compact ASCII data follows
  uint16_t compact_size;  // sizeof(PyCompactUnicodeObject): compact non-ASCII data follows
  uint8_t state_kind_shift;  // state bits: kind (3 bits), compact, ascii
  uint8_t state_compact_bit;
  uint8_t state_ascii_bit;
};

inline constexpr PythonLayout kPythonLayouts[] = {
    // 3.9
    {9, FrameModel::kFrameObject, 1, 8, 16, 16, 24, kNoField, 24, 32, 104, kNoField, kNoField,
     kNoOwner, kNoOwner, 104, 112, kNoField, 40, 120, kNoField, kNoField, 32, 16, 32, 48, 72, 2,
     5, 6},
    // 3.10
    {10, FrameModel::kFrameObject, 2, 8, 16, 16, 24, kNoField, 24, 32, 96, kNoField, kNoField,
     kNoOwner, kNoOwner, 104, 112, kNoField, 40, 120, kNoField, kNoField, 32, 16, 32, 48, 72, 2,
     5, 6},
    // 3.11
    {11, FrameModel::kCFrame, 0, 8, 16, 16, 56, 8, 48, 32, 56, 69, 68, 1, kNoOwner, 112, 120, 128,
     72, 136, 184, 168, 32, 16, 32, 48, 72, 2, 5, 6},
    // 3.12
    {12, FrameModel::kCFrame, 0, 8, 16, 16, 56, 0, 8, 0, 56, 70, kNoField, 1, 3, 112, 120, 128,
     68, 136, 192, 176, 32, 16, 32, 40, 56, 2, 5, 6},
    // 3.13
    {13, FrameModel::kCurrentFrame, 0, 8, 16, 16, 72, kNoField, 8, 0, 56, 70, kNoField, 1, 3, 112,
     120, 128, 68, 136, 200, 184, 32, 16, 32, 40, 56, 2, 5, 6},
};

// 3.13: `_PyRuntime` starts with _Py_DebugOffsets (published for out-of-process debuggers).
// Where, inside that struct, the values the shim cross-checks against its own row are stored.
struct DebugOffsetsPositions {
  uint16_t version;        // PY_VERSION_HEX of the runtime
  uint16_t free_threaded;  // nonzero in a free-threaded build
  uint16_t tstate_current_frame;
  uint16_t frame_previous;
  uint16_t frame_executable;
  uint16_t frame_instr;
  uint16_t frame_owner;
  uint16_t code_filename;
  uint16_t code_qualname;
  uint16_t code_linetable;
  uint16_t code_firstlineno;
  uint16_t code_adaptive;
  uint16_t unicode_state;
  uint16_t unicode_length;
  uint16_t ascii_size;
};
inline constexpr char kDebugOffsetsCookie[8] = {'x', 'd', 'e', 'b', 'u', 'g', 'p', 'y'};
inline constexpr DebugOffsetsPositions kDebugOffsets313 = {
    8, 16, 184, 232, 240, 248, 264, 280, 296, 304, 312, 344, 544, 552, 560};

// The row for 3.<minor>, or null when the version is not supported.
constexpr const PythonLayout* PythonLayoutFor(uint32_t minor) {
  for (const PythonLayout& l : kPythonLayouts) {
    if (l.minor == minor) return &l;
  }
  return nullptr;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PYTHON_LAYOUTS_H_
