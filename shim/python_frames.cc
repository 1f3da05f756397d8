// CPython detection (start-up) and the raw frame-chain walk (hot path); see python_frames.h.
// Instruction offsets are bytes from the start of the code's bytecode, as PyCode_Addr2Line takes
// them: 3.9 f_lasti; 3.10 f_lasti * 2; 3.11/3.12 prev_instr - _PyCode_CODE(code); 3.13
// instr_ptr - _PyCode_CODE(code) (both byte differences). A negative value (a frame that has not
// started) is stored as 0.
//
// Must never: see python_frames.h. The code-slot fill (once per code object per process) copies
// at most one slot; a slot another thread is filling is waited for a bounded number of spins,
// else the frame gets code id 0.
#include "shim/python_frames.h"

#include <atomic>
#include <cstring>

#include "shim/python_strings.h"
#include "shim/slot_tables.h"

namespace brrr::shim {

PythonReader g_python;

namespace {

// Per-thread direct-mapped cache of code ids, indexed by the code object's address and checked
// against the whole fingerprint (a hit costs loads and compares, no hashing).
constexpr uint32_t kCodeCacheSize = 64;
struct CodeCacheEntry {
  const void* code;
  const void* filename;
  const void* name;
  const void* linetable;
  int32_t first_line;
  uint32_t id;  // 0: empty
};
struct CodeCache {
  CodeCacheEntry e[kCodeCacheSize];
};
constinit thread_local CodeCache t_code_cache __attribute__((tls_model("initial-exec"))) = {};

inline uint32_t CacheIndex(const char* code) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(code);
  return static_cast<uint32_t>((a >> 4) ^ (a >> 10)) & (kCodeCacheSize - 1);
}

// Frames followed (emitted or skipped) before a chain is declared broken (a cycle).
constexpr uint32_t kMaxWalkSteps = 4 * ring::kMaxPythonDepth + 64;
// Spins waiting for a code slot another thread claimed and is filling.
constexpr uint32_t kReadySpins = 512;
// Bytecode larger than this (bytes) is not believed.
constexpr int64_t kMaxBelievedCode = int64_t{1} << 28;

void CountFailure(uint32_t note) {
  ring::SegmentHeader* h = g_python.header;
  if (h == nullptr) return;
  h->python_failures.fetch_add(1, std::memory_order_relaxed);
  h->python_notes.fetch_or(note, std::memory_order_relaxed);
}

void Note(uint32_t note) {
  ring::SegmentHeader* h = g_python.header;
  if (h != nullptr && (h->python_notes.load(std::memory_order_relaxed) & note) == 0) {
    h->python_notes.fetch_or(note, std::memory_order_relaxed);
  }
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Fills a claimed slot from the code object's fields (already validated as a code object).
void FillCodeSlot(ring::CodeSlot& s, const char* code, const void* filename, const void* name,
                  const void* linetable, int32_t first_line) {
  const PythonLayout& l = g_python.layout;
  int64_t fn = UnicodeToUtf8(filename, l, g_python.unicode_type, s.data, ring::kMaxCodeStringLength);
  if (fn < 0) {
    memcpy(s.data, "<unknown>", 9);
    fn = 9;
  }
  int64_t qn = UnicodeToUtf8(name, l, g_python.unicode_type, s.data + fn,
                             ring::kMaxCodeStringLength);
  if (qn < 0) {
    memcpy(s.data + fn, "<unknown>", 9);
    qn = 9;
  }
  const uint32_t used = static_cast<uint32_t>(fn + qn);
  uint32_t full = 0;
  int64_t lt = CopyBytesObject(linetable, l, g_python.bytes_type, s.data + used,
                               ring::kCodeSlotData - used, &full);
  if (lt < 0) {
    lt = 0;
    full = 0;
  }
  (void)code;
  s.first_line = first_line > 0 ? static_cast<uint32_t>(first_line) : 0;
  s.filename_length = static_cast<uint16_t>(fn);
  s.qualname_length = static_cast<uint16_t>(qn);
  s.linetable_length = static_cast<uint32_t>(lt);
  s.linetable_full_length = full;
  s.ready.store(1, std::memory_order_release);  // R8
}

// The code id of a validated code object (slot index + 1), 0 when it could not be stored.
__attribute__((noinline)) uint32_t ClaimCode(const char* code, uint64_t hash,
                                             const void* filename, const void* name,
                                             const void* linetable, int32_t first_line) {
  PythonReader& p = g_python;
  bool claimed = false;
  const int64_t i = FindOrClaimSlot(p.code_slots, p.code_slot_count, hash, &claimed);
  if (i < 0) {
    p.header->code_overflow.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  ring::CodeSlot& s = p.code_slots[i];
  if (claimed) {
    FillCodeSlot(s, code, filename, name, linetable, first_line);
  } else {
    uint32_t spins = 0;
    while (s.ready.load(std::memory_order_acquire) == 0) {
      if (++spins > kReadySpins) return 0;  // still being filled: unknown for this capture
      CpuRelax();
    }
  }
  const uint32_t id = static_cast<uint32_t>(i) + 1;
  t_code_cache.e[CacheIndex(code)] = {code, filename, name, linetable, first_line, id};
  return id;
}

// Code id for `code` (its type already checked), via the thread's cache. `l` is the walk's local
// copy of the layout (stores to the entries cannot alias it, so offsets stay in registers).
inline uint32_t CodeIdFor(const char* code, const PythonLayout& l) {
  const void* filename = LoadAt<const void*>(code, l.code_filename);
  const void* name =
      LoadAt<const void*>(code, l.code_qualname != kNoField ? l.code_qualname : l.code_name);
  const void* linetable = LoadAt<const void*>(code, l.code_linetable);
  const int32_t first_line = LoadAt<int32_t>(code, l.code_firstlineno);
  const CodeCacheEntry& c = t_code_cache.e[CacheIndex(code)];
  if (c.code == code && c.filename == filename && c.name == name && c.linetable == linetable &&
      c.first_line == first_line && c.id != 0) {
    return c.id;
  }
  uint64_t h = MixHash(0x5079636f64650000ull, reinterpret_cast<uintptr_t>(code));
  h = MixHash(h, reinterpret_cast<uintptr_t>(filename));
  h = MixHash(h, reinterpret_cast<uintptr_t>(name));
  h = MixHash(h, reinterpret_cast<uintptr_t>(linetable));
  h = MixHash(h, static_cast<uint32_t>(first_line));
  if (h == 0) h = 1;
  return ClaimCode(code, h, filename, name, linetable, first_line);
}

inline bool IsCode(const char* obj, const PythonLayout& l, const void* code_type) {
  return AlignedNonNull(obj) && LoadAt<const void*>(obj, l.object_type) == code_type;
}

enum class Walk { kOk, kBad };

// 3.9 / 3.10: PyFrameObject chain; every frame is entered from C.
Walk WalkFrameObjects(const char* tstate, uint64_t* entries, uint32_t max, uint32_t* n,
                      bool* capped) {
  const PythonLayout l = g_python.layout;
  const void* const code_type = g_python.code_type;
  const void* const frame_type = g_python.frame_type;
  const char* f = LoadAt<const char*>(tstate, l.tstate_frame);
  uint32_t steps = 0;
  while (f != nullptr) {
    if (++steps > kMaxWalkSteps || !AlignedNonNull(f)) return Walk::kBad;
    if (frame_type != nullptr && LoadAt<const void*>(f, l.object_type) != frame_type) {
      return Walk::kBad;
    }
    const char* code = LoadAt<const char*>(f, l.frame_code);
    if (!IsCode(code, l, code_type)) return Walk::kBad;
    const int32_t lasti = LoadAt<int32_t>(f, l.frame_instr);
    if (lasti < -1 || int64_t{lasti} * l.lasti_scale > kMaxBelievedCode) return Walk::kBad;
    if (*n == max) {
      *capped = true;
      return Walk::kOk;
    }
    const uint32_t offset = lasti < 0 ? 0 : static_cast<uint32_t>(lasti) * l.lasti_scale;
    entries[(*n)++] = ring::PythonFrameEntry(CodeIdFor(code, l), offset, true);
    f = LoadAt<const char*>(f, l.frame_back);
  }
  return Walk::kOk;
}

// 3.11+: _PyInterpreterFrame chain. Frames owned by the C stack (3.12+) and incomplete frames
// are skipped; a C-stack frame, is_entry (3.11) or the chain's end closes a run of frames that
// one native evaluation runs: the run's outermost frame gets kPythonEntryFrame.
Walk WalkInterpreterFrames(const char* first, uint64_t* entries, uint32_t max, uint32_t* n,
                           bool* capped) {
  const PythonLayout l = g_python.layout;
  const void* const code_type = g_python.code_type;
  const char* f = first;
  uint32_t steps = 0;
  while (f != nullptr) {
    if (++steps > kMaxWalkSteps || !AlignedNonNull(f)) return Walk::kBad;
    const char* previous = LoadAt<const char*>(f, l.frame_back);
    const uint8_t owner = LoadAt<uint8_t>(f, l.frame_owner);
    if (owner > 3) return Walk::kBad;
    if (owner == l.owned_by_cstack) {
      if (*n > 0) entries[*n - 1] |= ring::kPythonEntryFrame;
      f = previous;
      continue;
    }
    const char* code = LoadAt<const char*>(f, l.frame_code);
    if (!IsCode(code, l, code_type)) {
      // 3.13: f_executable may be something else than code (then it is not a Python frame).
      if (l.model == FrameModel::kCurrentFrame && AlignedNonNull(code)) {
        f = previous;
        continue;
      }
      return Walk::kBad;
    }
    const int64_t units = LoadAt<int64_t>(code, l.var_size);
    if (units <= 0 || units > kMaxBelievedCode / 2) return Walk::kBad;
    const char* instr = LoadAt<const char*>(f, l.frame_instr);
    const int64_t offset = instr - (code + l.code_adaptive);
    if (offset < -2 || offset > units * 2) return Walk::kBad;
    const bool is_entry =
        l.frame_is_entry != kNoField && LoadAt<uint8_t>(f, l.frame_is_entry) != 0;
    const int32_t first_traceable = LoadAt<int32_t>(code, l.code_firsttraceable);
    if (owner != l.owned_by_generator && offset < int64_t{first_traceable} * 2) {
      // Incomplete (still being set up): not shown.
      if (is_entry && *n > 0) entries[*n - 1] |= ring::kPythonEntryFrame;
      f = previous;
      continue;
    }
    if (*n == max) {
      *capped = true;
      return Walk::kOk;
    }
    entries[(*n)++] = ring::PythonFrameEntry(CodeIdFor(code, l),
                                             offset < 0 ? 0 : static_cast<uint32_t>(offset),
                                             is_entry);
    f = previous;
  }
  if (*n > 0) entries[*n - 1] |= ring::kPythonEntryFrame;  // the outermost frame
  return Walk::kOk;
}

template <typename T>
T Symbol(PythonSymbolFn lookup, const char* name) {
  return reinterpret_cast<T>(lookup(name));
}

ring::PythonStatus Publish(const PythonFramesSetup& setup, ring::PythonStatus status,
                           uint32_t version) {
  if (setup.header != nullptr) {
    setup.header->python_version.store(version, std::memory_order_relaxed);
    setup.header->python_status.store(static_cast<uint32_t>(status), std::memory_order_relaxed);
  }
  return status;
}

// 3.13: the runtime's own debug offsets must say "not free-threaded" and agree with our row.
ring::PythonStatus CheckDebugOffsets(const char* runtime, const PythonLayout& l,
                                     uint32_t version) {
  if (runtime == nullptr || memcmp(runtime, kDebugOffsetsCookie, sizeof(kDebugOffsetsCookie)) != 0)
    return ring::PythonStatus::kUnsupportedVersion;
  const DebugOffsetsPositions& d = kDebugOffsets313;
  if (LoadAt<uint64_t>(runtime, d.free_threaded) != 0) return ring::PythonStatus::kFreeThreaded;
  if ((LoadAt<uint64_t>(runtime, d.version) >> 16) != (version >> 16))
    return ring::PythonStatus::kUnsupportedVersion;
  const struct {
    uint16_t at;
    uint16_t want;
  } checks[] = {
      {d.tstate_current_frame, l.tstate_frame}, {d.frame_previous, l.frame_back},
      {d.frame_executable, l.frame_code},       {d.frame_instr, l.frame_instr},
      {d.frame_owner, l.frame_owner},           {d.code_filename, l.code_filename},
      {d.code_qualname, l.code_qualname},       {d.code_linetable, l.code_linetable},
      {d.code_firstlineno, l.code_firstlineno}, {d.code_adaptive, l.code_adaptive},
      {d.unicode_state, l.unicode_state},       {d.unicode_length, l.unicode_length},
      {d.ascii_size, l.ascii_size},
  };
  for (const auto& c : checks) {
    if (LoadAt<uint64_t>(runtime, c.at) != c.want) return ring::PythonStatus::kUnsupportedVersion;
  }
  return ring::PythonStatus::kActive;
}

}  // namespace

uint32_t ParsePythonVersion(const char* text) {
  if (text == nullptr) return 0;
  uint32_t part[3] = {0, 0, 0};
  int i = 0;
  const char* s = text;
  for (; i < 3; ++i) {
    if (*s < '0' || *s > '9') return 0;
    uint32_t v = 0;
    while (*s >= '0' && *s <= '9' && v < 1000) v = v * 10 + static_cast<uint32_t>(*s++ - '0');
    part[i] = v;
    if (i < 2) {
      if (*s != '.') return i == 1 ? (part[0] << 24 | part[1] << 16 | 0xF0) : 0;
      ++s;
    }
  }
  if (part[0] > 255 || part[1] > 255 || part[2] > 255) return 0;
  uint32_t level = 0xF, serial = 0;
  if (s[0] == 'a' || s[0] == 'b' || (s[0] == 'r' && s[1] == 'c')) {
    level = s[0] == 'a' ? 0xA : s[0] == 'b' ? 0xB : 0xC;
    s += s[0] == 'r' ? 2 : 1;
    while (*s >= '0' && *s <= '9' && serial < 16) serial = serial * 10 + static_cast<uint32_t>(*s++ - '0');
    if (serial > 15) serial = 15;
  }
  return part[0] << 24 | part[1] << 16 | part[2] << 8 | level << 4 | serial;
}

ring::PythonStatus InitPythonFrames(const PythonFramesSetup& setup, PythonSymbolFn lookup) {
  g_python = PythonReader{};
  if (!setup.enabled) return Publish(setup, ring::PythonStatus::kDisabledByUser, 0);
  auto get_version = Symbol<const char* (*)()>(lookup, "Py_GetVersion");
  auto py_version = Symbol<const unsigned long*>(lookup, "Py_Version");
  if (get_version == nullptr && py_version == nullptr)
    return Publish(setup, ring::PythonStatus::kNoPython, 0);
  const uint32_t version = py_version != nullptr ? static_cast<uint32_t>(*py_version)
                                                 : ParsePythonVersion(get_version());
  const PythonLayout* layout = (version >> 24) == 3 ? PythonLayoutFor((version >> 16) & 0xFF)
                                                    : nullptr;
  if (layout == nullptr) return Publish(setup, ring::PythonStatus::kUnsupportedVersion, version);
  PythonReader p;
  p.layout = *layout;
  if (layout->model == FrameModel::kCurrentFrame) {
    const ring::PythonStatus s =
        CheckDebugOffsets(Symbol<const char*>(lookup, "_PyRuntime"), *layout, version);
    if (s != ring::PythonStatus::kActive) return Publish(setup, s, version);
  }
  p.code_type = lookup("PyCode_Type");
  p.unicode_type = lookup("PyUnicode_Type");
  p.bytes_type = lookup("PyBytes_Type");
  p.frame_type = layout->model == FrameModel::kFrameObject ? lookup("PyFrame_Type") : nullptr;
  p.this_thread_state = Symbol<void* (*)()>(lookup, "PyGILState_GetThisThreadState");
  p.is_initialized = Symbol<int (*)()>(lookup, "Py_IsInitialized");
  p.is_finalizing = Symbol<int (*)()>(
      lookup, layout->minor >= 13 ? "Py_IsFinalizing" : "_Py_IsFinalizing");
  auto main_interp = Symbol<void* (*)()>(lookup, "PyInterpreterState_Main");
  auto get_interp = Symbol<void* (*)(void*)>(lookup, "PyThreadState_GetInterpreter");
  if (p.code_type == nullptr || p.unicode_type == nullptr || p.bytes_type == nullptr ||
      p.this_thread_state == nullptr || p.is_initialized == nullptr || main_interp == nullptr ||
      get_interp == nullptr ||
      (layout->model == FrameModel::kFrameObject && p.frame_type == nullptr)) {
    return Publish(setup, ring::PythonStatus::kUnsupportedVersion, version);
  }
  if (p.is_initialized() == 0) return Publish(setup, ring::PythonStatus::kNotInitialized, version);
  p.main_interp = main_interp();
  // Cross-check the thread-state layout on this thread's own state when it has one.
  if (void* tstate = p.this_thread_state(); tstate != nullptr) {
    if (LoadAt<void*>(tstate, layout->tstate_interp) != get_interp(tstate))
      return Publish(setup, ring::PythonStatus::kUnsupportedVersion, version);
  }
  p.header = setup.header;
  p.code_slots = setup.code_slots;
  p.code_slot_count = setup.code_slot_count;
  p.active = p.main_interp != nullptr && setup.header != nullptr && setup.code_slots != nullptr &&
             setup.code_slot_count != 0;
  g_python = p;
  return Publish(setup, p.active ? ring::PythonStatus::kActive : ring::PythonStatus::kNoPython,
                 version);
}

uint32_t CapturePythonFrames(uint64_t* entries, uint32_t max) {
  const PythonReader& p = g_python;
  if (!p.active || max == 0) return 0;
  if (max > ring::kMaxPythonDepth) max = ring::kMaxPythonDepth;
  if (p.is_finalizing != nullptr && p.is_finalizing() != 0) return 0;
  if (p.is_initialized() == 0) return 0;
  const char* tstate = static_cast<const char*>(p.this_thread_state());
  if (tstate == nullptr) return 0;  // a thread without Python
  if (!AlignedNonNull(tstate)) {
    CountFailure(ring::kPythonNoteBadMemory);
    return 0;
  }
  const PythonLayout& l = p.layout;
  if (LoadAt<const void*>(tstate, l.tstate_interp) != p.main_interp) {
    Note(ring::kPythonNoteSubinterpreter);
    return 0;
  }
  uint32_t n = 0;
  bool capped = false;
  Walk w = Walk::kOk;
  switch (l.model) {
    case FrameModel::kFrameObject:
      w = WalkFrameObjects(tstate, entries, max, &n, &capped);
      break;
    case FrameModel::kCFrame: {
      const char* cframe = LoadAt<const char*>(tstate, l.tstate_frame);
      if (cframe == nullptr) return 0;
      if (!AlignedNonNull(cframe)) {
        w = Walk::kBad;
        break;
      }
      w = WalkInterpreterFrames(LoadAt<const char*>(cframe, l.cframe_current_frame), entries,
                                max, &n, &capped);
      break;
    }
    case FrameModel::kCurrentFrame:
      w = WalkInterpreterFrames(LoadAt<const char*>(tstate, l.tstate_frame), entries, max, &n,
                                &capped);
      break;
  }
  if (w == Walk::kBad) {
    CountFailure(ring::kPythonNoteBadMemory);
    return 0;
  }
  if (capped) Note(ring::kPythonNoteDepthCapped);
  return n;
}

void DisablePythonFrames() { g_python.active = false; }

void ResetPythonCodeCacheForTest() { t_code_cache = CodeCache{}; }

}  // namespace brrr::shim
