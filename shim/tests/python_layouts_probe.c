/* Prints, for the CPython whose headers it is compiled against, the offset of every field the
 * shim's Python frame reader uses, as "name value" lines (the first line: "minor N"). Compiled
 * once per CPython found at configure time (Py_BUILD_CORE, internal headers); the layouts test
 * compares its output with the shim's hard-coded table (shim/python_layouts.h).
 *
 * Must never: be linked into the shim, or compute anything the table is compared against from the
 * table itself. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <frameobject.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_MINOR_VERSION >= 11
#include <internal/pycore_frame.h>
#endif
#if PY_MINOR_VERSION >= 13
#include <internal/pycore_runtime.h>
#endif

#define PRINT(name, value) printf("%s %lu\n", name, (unsigned long)(value))

/* Bit position of a unicode state bitfield: set it alone, find the bit in the raw word. */
static unsigned StateBit(PyASCIIObject* o) {
  unsigned raw = 0;
  memcpy(&raw, (char*)o + offsetof(PyASCIIObject, state), sizeof(raw));
  for (unsigned b = 0; b < 32; ++b)
    if (raw & (1u << b)) return b;
  return 99;
}

int main(void) {
  PRINT("minor", PY_MINOR_VERSION);
  PRINT("object_type", offsetof(PyObject, ob_type));
  PRINT("var_size", offsetof(PyVarObject, ob_size));
  PRINT("tstate_interp", offsetof(PyThreadState, interp));
#if PY_MINOR_VERSION <= 10
  PRINT("tstate_frame", offsetof(PyThreadState, frame));
  PRINT("frame_back", offsetof(PyFrameObject, f_back));
  PRINT("frame_code", offsetof(PyFrameObject, f_code));
  PRINT("frame_lasti", offsetof(PyFrameObject, f_lasti));
#elif PY_MINOR_VERSION <= 12
  PRINT("tstate_cframe", offsetof(PyThreadState, cframe));
  PRINT("cframe_current_frame", offsetof(_PyCFrame, current_frame));
#else
  PRINT("tstate_current_frame", offsetof(PyThreadState, current_frame));
#endif
#if PY_MINOR_VERSION >= 11
#if PY_MINOR_VERSION >= 13
  PRINT("iframe_code", offsetof(_PyInterpreterFrame, f_executable));
  PRINT("iframe_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
  PRINT("iframe_code", offsetof(_PyInterpreterFrame, f_code));
  PRINT("iframe_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
  PRINT("iframe_previous", offsetof(_PyInterpreterFrame, previous));
  PRINT("iframe_owner", offsetof(_PyInterpreterFrame, owner));
#if PY_MINOR_VERSION == 11
  PRINT("iframe_is_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
  PRINT("owned_by_generator", FRAME_OWNED_BY_GENERATOR);
#if PY_MINOR_VERSION >= 12
  PRINT("owned_by_cstack", FRAME_OWNED_BY_CSTACK);
#endif
  PRINT("code_qualname", offsetof(PyCodeObject, co_qualname));
  PRINT("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
  PRINT("code_firsttraceable", offsetof(PyCodeObject, _co_firsttraceable));
  PRINT("code_unit_size", sizeof(_Py_CODEUNIT));
#endif
  PRINT("code_filename", offsetof(PyCodeObject, co_filename));
  PRINT("code_name", offsetof(PyCodeObject, co_name));
  PRINT("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_MINOR_VERSION == 9
  PRINT("code_linetable", offsetof(PyCodeObject, co_lnotab));
#else
  PRINT("code_linetable", offsetof(PyCodeObject, co_linetable));
#endif
  PRINT("bytes_sval", offsetof(PyBytesObject, ob_sval));
  PRINT("unicode_length", offsetof(PyASCIIObject, length));
  PRINT("unicode_state", offsetof(PyASCIIObject, state));
  PRINT("ascii_size", sizeof(PyASCIIObject));
  PRINT("compact_size", sizeof(PyCompactUnicodeObject));
  {
    PyASCIIObject o;
    memset(&o, 0, sizeof(o));
    o.state.kind = 1;
    PRINT("state_kind_shift", StateBit(&o));
    memset(&o, 0, sizeof(o));
    o.state.compact = 1;
    PRINT("state_compact_bit", StateBit(&o));
    memset(&o, 0, sizeof(o));
    o.state.ascii = 1;
    PRINT("state_ascii_bit", StateBit(&o));
  }
#if PY_MINOR_VERSION >= 13
  PRINT("debug_version", offsetof(_Py_DebugOffsets, version));
  PRINT("debug_free_threaded", offsetof(_Py_DebugOffsets, free_threaded));
  PRINT("debug_tstate_current_frame", offsetof(_Py_DebugOffsets, thread_state.current_frame));
  PRINT("debug_frame_previous", offsetof(_Py_DebugOffsets, interpreter_frame.previous));
  PRINT("debug_frame_executable", offsetof(_Py_DebugOffsets, interpreter_frame.executable));
  PRINT("debug_frame_instr", offsetof(_Py_DebugOffsets, interpreter_frame.instr_ptr));
  PRINT("debug_frame_owner", offsetof(_Py_DebugOffsets, interpreter_frame.owner));
  PRINT("debug_code_filename", offsetof(_Py_DebugOffsets, code_object.filename));
  PRINT("debug_code_qualname", offsetof(_Py_DebugOffsets, code_object.qualname));
  PRINT("debug_code_linetable", offsetof(_Py_DebugOffsets, code_object.linetable));
  PRINT("debug_code_firstlineno", offsetof(_Py_DebugOffsets, code_object.firstlineno));
  PRINT("debug_code_adaptive", offsetof(_Py_DebugOffsets, code_object.co_code_adaptive));
  PRINT("debug_unicode_state", offsetof(_Py_DebugOffsets, unicode_object.state));
  PRINT("debug_unicode_length", offsetof(_Py_DebugOffsets, unicode_object.length));
  PRINT("debug_ascii_size", offsetof(_Py_DebugOffsets, unicode_object.asciiobject_size));
#endif
  return 0;
}
