// The calling thread's Python frames, read from its own frame chain without the GIL and without
// any Python API that allocates or touches reference counts (ring_format.h: kPythonFrameTag
// entries; CodeSlot, rule R8). InitPythonFrames finds CPython at start-up (dlsym, 3.9 to 3.13,
// default builds) and publishes SegmentHeader.python_status / python_version;
// CapturePythonFrames is the hot-path walk, called after a recorded call's real function returned
// (the thread runs no bytecode inside it, so its chain is stable).
//
// Must never (hot path): take the GIL, call into Python other than PyGILState_GetThisThreadState
// and the finalization checks, allocate, lock, make a syscall, follow a pointer that is null,
// misaligned, or an object of the wrong type, or walk more than a bounded number of frames.
// Whatever does not look as expected drops the Python frames and is counted, never crashes.
#ifndef BRRR_SHIM_PYTHON_FRAMES_H_
#define BRRR_SHIM_PYTHON_FRAMES_H_

#include <cstdint>

#include "shim/python_layouts.h"
#include "shim/ring_format.h"

namespace brrr::shim {

// Resolves a symbol of the process (dlsym(RTLD_DEFAULT, name) in production; a table in tests).
using PythonSymbolFn = void* (*)(const char* name);

struct PythonFramesSetup {
  bool enabled = true;  // false: BRRR_PYTHON=0 or stacks off -> kDisabledByUser
  ring::SegmentHeader* header = nullptr;
  ring::CodeSlot* code_slots = nullptr;
  uint32_t code_slot_count = 0;  // power of two
};

// What the hot path reads; written once by InitPythonFrames, before the shim records.
struct PythonReader {
  bool active = false;
  PythonLayout layout{};
  const void* code_type = nullptr;     // &PyCode_Type
  const void* frame_type = nullptr;    // &PyFrame_Type (3.9/3.10)
  const void* unicode_type = nullptr;  // &PyUnicode_Type
  const void* bytes_type = nullptr;    // &PyBytes_Type
  const void* main_interp = nullptr;   // PyInterpreterState_Main()
  void* (*this_thread_state)() = nullptr;  // PyGILState_GetThisThreadState
  int (*is_initialized)() = nullptr;       // Py_IsInitialized
  int (*is_finalizing)() = nullptr;        // _Py_IsFinalizing (3.9-3.12) / Py_IsFinalizing (3.13)
  ring::SegmentHeader* header = nullptr;
  ring::CodeSlot* code_slots = nullptr;
  uint32_t code_slot_count = 0;
};

extern PythonReader g_python;

// Finds CPython through `lookup`, checks its version, build and layout, fills g_python and writes
// python_status / python_version to setup.header. Returns the status written. Not thread-safe:
// called once during the shim's initialization.
ring::PythonStatus InitPythonFrames(const PythonFramesSetup& setup, PythonSymbolFn lookup);

// PY_VERSION_HEX from a Py_GetVersion() string ("3.10.13 (main, ..."); 0 when it does not parse.
uint32_t ParsePythonVersion(const char* text);

inline bool PythonFramesActive() { return g_python.active; }

// Writes the calling thread's Python frames, innermost first, as tagged entries (at most `max`,
// itself at most ring::kMaxPythonDepth). Returns how many; 0 for a thread without Python, a
// sub-interpreter's thread, or a chain that did not look right (counted in python_failures).
uint32_t CapturePythonFrames(uint64_t* entries, uint32_t max);

// The fork child: never reads frames again.
void DisablePythonFrames();

// Tests: forgets the thread's code-id cache (a new segment reuses slot numbers).
void ResetPythonCodeCacheForTest();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PYTHON_FRAMES_H_
