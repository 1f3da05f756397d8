// Tests of the raw Python frame walk against fake CPython memory laid out with each supported
// version's row of python_layouts.h (the rows themselves are checked against CPython's headers by
// the shim.python_layouts.* tests): entries and their encoding, entry-frame bits, skipped frames,
// code slots (names, line table, address reuse), depth cap, sub-interpreters, and memory that
// does not look right. Also start-up detection (version, free-threaded, not initialized).
#include "shim/python_frames.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "shim/segment_layout.h"

namespace brrr::shim {
namespace {

// One fake process's worth of CPython objects, in 8-byte-aligned heap blocks.
class FakePython {
 public:
  explicit FakePython(uint32_t minor) : l_(*PythonLayoutFor(minor)), minor_(minor) {
    code_type_ = Alloc(64);
    unicode_type_ = Alloc(64);
    bytes_type_ = Alloc(64);
    frame_type_ = Alloc(64);
    main_interp_ = Alloc(64);
    tstate_ = Alloc(256);
    Put<const void*>(tstate_, l_.tstate_interp, main_interp_);
    if (l_.model == FrameModel::kCFrame) {
      cframe_ = Alloc(64);
      Put<const void*>(tstate_, l_.tstate_frame, cframe_);
    }
    runtime_ = Alloc(1024);
    memcpy(runtime_, kDebugOffsetsCookie, 8);
    const DebugOffsetsPositions& d = kDebugOffsets313;
    Put<uint64_t>(runtime_, d.version, Version());
    const std::pair<uint16_t, uint16_t> debug[] = {
        {d.tstate_current_frame, l_.tstate_frame}, {d.frame_previous, l_.frame_back},
        {d.frame_executable, l_.frame_code},       {d.frame_instr, l_.frame_instr},
        {d.frame_owner, l_.frame_owner},           {d.code_filename, l_.code_filename},
        {d.code_qualname, l_.code_qualname},       {d.code_linetable, l_.code_linetable},
        {d.code_firstlineno, l_.code_firstlineno}, {d.code_adaptive, l_.code_adaptive},
        {d.unicode_state, l_.unicode_state},       {d.unicode_length, l_.unicode_length},
        {d.ascii_size, l_.ascii_size}};
    for (const auto& [at, value] : debug) Put<uint64_t>(runtime_, at, value);
  }

  uint32_t Version() const { return 0x03000000u | minor_ << 16 | 0x02F0u; }

  char* Alloc(size_t bytes) {
    blocks_.emplace_back((bytes + 7) / 8 + 1, 0);
    return reinterpret_cast<char*>(blocks_.back().data());
  }
  template <typename T>
  static void Put(char* base, uint32_t offset, T v) {
    memcpy(base + offset, &v, sizeof(T));
  }

  char* Str(const std::string& ascii) {
    char* o = Alloc(l_.ascii_size + ascii.size() + 1);
    Put<const void*>(o, l_.object_type, unicode_type_);
    Put<int64_t>(o, l_.unicode_length, static_cast<int64_t>(ascii.size()));
    Put<uint32_t>(o, l_.unicode_state, 1u << l_.state_kind_shift | 1u << l_.state_compact_bit |
                                           1u << l_.state_ascii_bit);
    memcpy(o + l_.ascii_size, ascii.data(), ascii.size());
    return o;
  }
  char* Bytes(const std::string& b) {
    char* o = Alloc(l_.bytes_sval + b.size() + 1);
    Put<const void*>(o, l_.object_type, bytes_type_);
    Put<int64_t>(o, l_.var_size, static_cast<int64_t>(b.size()));
    memcpy(o + l_.bytes_sval, b.data(), b.size());
    return o;
  }
  // A code object with `units` code units of bytecode.
  char* Code(const std::string& file, const std::string& name, int first_line,
             const std::string& table, int64_t units = 64) {
    const uint32_t base = l_.code_adaptive != kNoField ? l_.code_adaptive : 200;
    char* c = Alloc(base + 2 * units);
    Put<const void*>(c, l_.object_type, code_type_);
    Put<int64_t>(c, l_.var_size, units);
    Put<const void*>(c, l_.code_filename, Str(file));
    Put<const void*>(c, l_.code_name, Str(name + "_short"));
    if (l_.code_qualname != kNoField) Put<const void*>(c, l_.code_qualname, Str(name));
    Put<int32_t>(c, l_.code_firstlineno, first_line);
    Put<const void*>(c, l_.code_linetable, Bytes(table));
    if (l_.code_firsttraceable != kNoField) Put<int32_t>(c, l_.code_firsttraceable, 0);
    return c;
  }

  // Pushes a frame running `code` at byte offset `offset` (becomes the innermost frame).
  // owner/is_entry only where the version has them.
  char* Push(char* code, int64_t offset, uint8_t owner = 0, bool is_entry = false) {
    char* f = Alloc(128);
    Put<char*>(f, l_.frame_code, code);
    Put<char*>(f, l_.frame_back, innermost_);
    if (l_.model == FrameModel::kFrameObject) {
      Put<const void*>(f, l_.object_type, frame_type_);
      Put<int32_t>(f, l_.frame_instr, static_cast<int32_t>(offset / l_.lasti_scale));
    } else {
      Put<char*>(f, l_.frame_instr, code + l_.code_adaptive + offset);
      Put<uint8_t>(f, l_.frame_owner, owner);
      if (l_.frame_is_entry != kNoField) Put<uint8_t>(f, l_.frame_is_entry, is_entry ? 1 : 0);
    }
    innermost_ = f;
    if (l_.model == FrameModel::kFrameObject) {
      Put<char*>(tstate_, l_.tstate_frame, f);
    } else if (l_.model == FrameModel::kCFrame) {
      Put<char*>(cframe_, l_.cframe_current_frame, f);
    } else {
      Put<char*>(tstate_, l_.tstate_frame, f);
    }
    return f;
  }
  // A frame owned by the C stack (3.12+: the shim frame of each native evaluation).
  void PushCStackFrame() { Push(Code("<shim>", "<shim>", 0, ""), 0, l_.owned_by_cstack); }

  const PythonLayout& l_;
  uint32_t minor_;
  std::deque<std::vector<uint64_t>> blocks_;
  char* code_type_;
  char* unicode_type_;
  char* bytes_type_;
  char* frame_type_;
  char* main_interp_;
  char* tstate_;
  char* cframe_ = nullptr;
  char* runtime_;
  char* innermost_ = nullptr;
};

FakePython* g_fake = nullptr;
bool g_thread_has_python = true;
int g_initialized = 1;
int g_finalizing = 0;
unsigned long g_py_version = 0;
std::string g_version_text;

void* FakeThreadState() { return g_thread_has_python ? g_fake->tstate_ : nullptr; }
int FakeIsInitialized() { return g_initialized; }
int FakeIsFinalizing() { return g_finalizing; }
void* FakeMainInterp() { return g_fake->main_interp_; }
void* FakeGetInterp(void* tstate) {
  void* p;
  memcpy(&p, static_cast<char*>(tstate) + g_fake->l_.tstate_interp, sizeof(p));
  return p;
}
const char* FakeGetVersion() { return g_version_text.c_str(); }

void* FakeLookup(const char* name) {
  const std::string n = name;
  FakePython& f = *g_fake;
  if (n == "Py_Version") return f.minor_ >= 11 ? &g_py_version : nullptr;
  if (n == "Py_GetVersion") return reinterpret_cast<void*>(&FakeGetVersion);
  if (n == "PyCode_Type") return f.code_type_;
  if (n == "PyUnicode_Type") return f.unicode_type_;
  if (n == "PyBytes_Type") return f.bytes_type_;
  if (n == "PyFrame_Type") return f.frame_type_;
  if (n == "PyGILState_GetThisThreadState") return reinterpret_cast<void*>(&FakeThreadState);
  if (n == "Py_IsInitialized") return reinterpret_cast<void*>(&FakeIsInitialized);
  if (n == "_Py_IsFinalizing" || n == "Py_IsFinalizing")
    return reinterpret_cast<void*>(&FakeIsFinalizing);
  if (n == "PyInterpreterState_Main") return reinterpret_cast<void*>(&FakeMainInterp);
  if (n == "PyThreadState_GetInterpreter") return reinterpret_cast<void*>(&FakeGetInterp);
  if (n == "_PyRuntime") return f.minor_ >= 13 ? f.runtime_ : nullptr;
  return nullptr;
}

void* NoPythonLookup(const char*) { return nullptr; }

class PythonFramesTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    fake_ = std::make_unique<FakePython>(GetParam());
    g_fake = fake_.get();
    g_thread_has_python = true;
    g_initialized = 1;
    g_finalizing = 0;
    g_py_version = fake_->Version();
    g_version_text = "3." + std::to_string(GetParam()) + ".2 (main, Jan 1 2024) [GCC]";
    header_ = std::make_unique<ring::SegmentHeader>();
    slots_ = std::vector<ring::CodeSlot>(kSlots);
    ResetPythonCodeCacheForTest();
  }
  void TearDown() override {
    DisablePythonFrames();
    g_fake = nullptr;
  }
  ring::PythonStatus Init(PythonSymbolFn lookup = &FakeLookup, bool enabled = true) {
    PythonFramesSetup s;
    s.enabled = enabled;
    s.header = header_.get();
    s.code_slots = slots_.data();
    s.code_slot_count = kSlots;
    return InitPythonFrames(s, lookup);
  }
  std::vector<uint64_t> Capture(uint32_t max = ring::kMaxPythonDepth) {
    std::vector<uint64_t> e(ring::kMaxStackEntries, 0);
    e.resize(CapturePythonFrames(e.data(), max));
    return e;
  }
  // The slot an entry names (must be ready).
  const ring::CodeSlot& Slot(uint64_t entry) {
    const uint32_t id = ring::PythonCodeId(entry);
    EXPECT_GE(id, 1u);
    EXPECT_LE(id, kSlots);
    const ring::CodeSlot& s = slots_[id - 1];
    EXPECT_EQ(s.ready.load(), 1u);
    return s;
  }
  static std::string FileOf(const ring::CodeSlot& s) {
    return std::string(s.data, s.filename_length);
  }
  static std::string NameOf(const ring::CodeSlot& s) {
    return std::string(s.data + s.filename_length, s.qualname_length);
  }
  static std::string TableOf(const ring::CodeSlot& s) {
    return std::string(s.data + s.filename_length + s.qualname_length, s.linetable_length);
  }
  bool Modern() const { return GetParam() >= 11; }
  std::string ExpectedName(const std::string& qualname) const {
    return Modern() ? qualname : qualname + "_short";  // co_name before 3.11
  }

  static constexpr uint32_t kSlots = 16;
  std::unique_ptr<FakePython> fake_;
  std::unique_ptr<ring::SegmentHeader> header_;
  std::vector<ring::CodeSlot> slots_;
};

TEST_P(PythonFramesTest, ReadsTheChainInnermostFirstWithNamesAndOffsets) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  EXPECT_EQ(header_->python_status.load(), static_cast<uint32_t>(ring::PythonStatus::kActive));
  EXPECT_EQ(header_->python_version.load(), fake_->Version());
  char* main = fake_->Code("train.py", "<module>", 1, std::string("\x01\x02\x03", 3));
  char* step = fake_->Code("train.py", "Trainer.step", 20, "TT");
  char* loss = fake_->Code("/src/loss.py", "log_loss", 31, "LLLL");
  fake_->Push(main, 40);
  fake_->Push(step, 12);
  fake_->Push(loss, 6);
  const std::vector<uint64_t> e = Capture();
  ASSERT_EQ(e.size(), 3u);
  for (uint64_t x : e) EXPECT_TRUE(ring::IsPythonFrame(x));
  EXPECT_EQ(ring::PythonOffset(e[0]), 6u);
  EXPECT_EQ(ring::PythonOffset(e[1]), 12u);
  EXPECT_EQ(ring::PythonOffset(e[2]), 40u);
  EXPECT_EQ(FileOf(Slot(e[0])), "/src/loss.py");
  EXPECT_EQ(NameOf(Slot(e[0])), ExpectedName("log_loss"));
  EXPECT_EQ(Slot(e[0]).first_line, 31u);
  EXPECT_EQ(TableOf(Slot(e[0])), "LLLL");
  EXPECT_EQ(Slot(e[0]).linetable_full_length, 4u);
  EXPECT_EQ(NameOf(Slot(e[1])), ExpectedName("Trainer.step"));
  EXPECT_EQ(TableOf(Slot(e[2])), std::string("\x01\x02\x03", 3));
  // Before 3.11 every frame is entered from C; from 3.11 only the outermost here.
  EXPECT_EQ(ring::IsPythonEntryFrame(e[0]), !Modern());
  EXPECT_EQ(ring::IsPythonEntryFrame(e[1]), !Modern());
  EXPECT_TRUE(ring::IsPythonEntryFrame(e[2]));
  // A second capture gives the same entries (cached code ids) and claims no more slots.
  EXPECT_EQ(Capture(), e);
  uint32_t used = 0;
  for (const auto& s : slots_) used += s.hash.load() != 0 ? 1 : 0;
  EXPECT_EQ(used, 3u);
  EXPECT_EQ(header_->python_failures.load(), 0u);
}

TEST_P(PythonFramesTest, EntryFramesAndSkippedFrames) {
  if (!Modern()) GTEST_SKIP() << "frame objects: no owners, every frame is an entry";
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  char* outer = fake_->Code("a.py", "outer", 1, "");
  char* inner = fake_->Code("a.py", "inner", 5, "");
  char* callback = fake_->Code("b.py", "callback", 9, "");
  char* starting = fake_->Code("c.py", "starting", 1, "");
  if (GetParam() >= 12) fake_->PushCStackFrame();
  fake_->Push(outer, 8, 0, GetParam() == 11);
  fake_->Push(inner, 10);
  // Native code (e.g. a C extension) called back into Python.
  if (GetParam() >= 12) fake_->PushCStackFrame();
  fake_->Push(callback, 4, 0, GetParam() == 11);
  // A frame still being set up: its instruction pointer before the first traceable one.
  char* incomplete = fake_->Push(starting, 0);
  FakePython::Put<int32_t>(starting, fake_->l_.code_firsttraceable, 3);
  (void)incomplete;
  const std::vector<uint64_t> e = Capture();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(NameOf(Slot(e[0])), "callback");
  EXPECT_EQ(NameOf(Slot(e[1])), "inner");
  EXPECT_EQ(NameOf(Slot(e[2])), "outer");
  EXPECT_TRUE(ring::IsPythonEntryFrame(e[0]));  // entered from native code
  EXPECT_FALSE(ring::IsPythonEntryFrame(e[1]));
  EXPECT_TRUE(ring::IsPythonEntryFrame(e[2]));
  // A generator's frame is never incomplete, whatever its instruction pointer.
  FakePython::Put<uint8_t>(fake_->innermost_, fake_->l_.frame_owner,
                           fake_->l_.owned_by_generator);
  const std::vector<uint64_t> g = Capture();
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(NameOf(Slot(g[0])), "starting");
}

TEST_P(PythonFramesTest, AReusedCodeAddressGetsItsOwnSlot) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  char* code = fake_->Code("old.py", "old_function", 3, "O");
  fake_->Push(code, 2);
  const std::vector<uint64_t> before = Capture();
  ASSERT_EQ(before.size(), 1u);
  // The code object is freed and another one is built at the same address.
  FakePython::Put<const void*>(code, fake_->l_.code_filename, fake_->Str("new.py"));
  const uint16_t name_at =
      fake_->l_.code_qualname != kNoField ? fake_->l_.code_qualname : fake_->l_.code_name;
  FakePython::Put<const void*>(code, name_at, fake_->Str("new_function"));
  const std::vector<uint64_t> after = Capture();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(ring::PythonCodeId(after[0]), ring::PythonCodeId(before[0]));
  EXPECT_EQ(FileOf(Slot(after[0])), "new.py");
  EXPECT_EQ(NameOf(Slot(after[0])), "new_function");
  EXPECT_EQ(FileOf(Slot(before[0])), "old.py");
}

TEST_P(PythonFramesTest, DepthIsCappedInnermostKept) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  char* code = fake_->Code("deep.py", "recurse", 1, "");
  for (int i = 0; i < 40; ++i) fake_->Push(code, 2 * i);
  const std::vector<uint64_t> e = Capture();
  ASSERT_EQ(e.size(), ring::kMaxPythonDepth);
  EXPECT_EQ(ring::PythonOffset(e[0]), 78u);  // the innermost (last pushed)
  EXPECT_NE(header_->python_notes.load() & ring::kPythonNoteDepthCapped, 0u);
  EXPECT_EQ(header_->python_failures.load(), 0u);
  // A smaller room is respected too.
  EXPECT_EQ(Capture(5).size(), 5u);
}

TEST_P(PythonFramesTest, MemoryThatIsNotACodeObjectDropsTheFramesAndCounts) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  char* good = fake_->Code("a.py", "f", 1, "");
  char* bad = fake_->Code("b.py", "g", 1, "");
  fake_->Push(good, 2);
  fake_->Push(bad, 2);
  FakePython::Put<const void*>(bad, fake_->l_.object_type, fake_->bytes_type_);
  if (GetParam() == 13) {
    // 3.13: f_executable that is not code is simply not a Python frame.
    const std::vector<uint64_t> e = Capture();
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(FileOf(Slot(e[0])), "a.py");
    // A misaligned executable pointer, though, is bad memory.
    FakePython::Put<char*>(fake_->innermost_, fake_->l_.frame_code, bad + 3);
  }
  EXPECT_TRUE(Capture().empty());
  EXPECT_EQ(header_->python_failures.load(), 1u);
  EXPECT_NE(header_->python_notes.load() & ring::kPythonNoteBadMemory, 0u);
}

TEST_P(PythonFramesTest, ACycleInTheChainEndsTheWalk) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  char* code = fake_->Code("a.py", "f", 1, "");
  char* f = fake_->Push(code, 2);
  FakePython::Put<char*>(f, fake_->l_.frame_back, f);
  // Looks like deep recursion: cut at the depth cap.
  EXPECT_EQ(Capture(200).size(), ring::kMaxPythonDepth);
  if (GetParam() >= 12) {
    // A cycle of frames that are all skipped: the step bound ends it, as bad memory.
    FakePython::Put<uint8_t>(f, fake_->l_.frame_owner, fake_->l_.owned_by_cstack);
    EXPECT_TRUE(Capture().empty());
    EXPECT_EQ(header_->python_failures.load(), 1u);
  }
}

TEST_P(PythonFramesTest, AnInstructionPointerOutsideTheCodeIsBadMemory) {
  if (!Modern()) {
    ASSERT_EQ(Init(), ring::PythonStatus::kActive);
    char* code = fake_->Code("a.py", "f", 1, "");
    char* f = fake_->Push(code, 2);
    FakePython::Put<int32_t>(f, fake_->l_.frame_instr, -7);
    EXPECT_TRUE(Capture().empty());
    EXPECT_EQ(header_->python_failures.load(), 1u);
    return;
  }
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  char* code = fake_->Code("a.py", "f", 1, "", 16);
  fake_->Push(code, 2 * 17);  // past the 16 code units
  EXPECT_TRUE(Capture().empty());
  EXPECT_EQ(header_->python_failures.load(), 1u);
}

TEST_P(PythonFramesTest, ThreadsWithoutPythonAndSubinterpreters) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  fake_->Push(fake_->Code("a.py", "f", 1, ""), 2);
  g_thread_has_python = false;
  EXPECT_TRUE(Capture().empty());
  g_thread_has_python = true;
  FakePython::Put<const void*>(fake_->tstate_, fake_->l_.tstate_interp, fake_->Alloc(64));
  EXPECT_TRUE(Capture().empty());
  EXPECT_NE(header_->python_notes.load() & ring::kPythonNoteSubinterpreter, 0u);
  EXPECT_EQ(header_->python_failures.load(), 0u);
  // Finalizing: nothing is read.
  FakePython::Put<const void*>(fake_->tstate_, fake_->l_.tstate_interp, fake_->main_interp_);
  EXPECT_EQ(Capture().size(), 1u);
  g_finalizing = 1;
  EXPECT_TRUE(Capture().empty());
}

TEST_P(PythonFramesTest, AFullCodeTableGivesCodeIdZeroAndCounts) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  for (auto& s : slots_) s.hash.store(0xdeadbeef);  // every slot taken by other contents
  fake_->Push(fake_->Code("a.py", "f", 1, ""), 2);
  const std::vector<uint64_t> e = Capture();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(ring::PythonCodeId(e[0]), 0u);
  EXPECT_EQ(ring::PythonOffset(e[0]), 2u);
  EXPECT_EQ(header_->code_overflow.load(), 1u);
}

// Corruption: one field of a valid chain (frame, code, str or bytes object) at a time gets a
// hostile value — null, misaligned, an object of another type, a huge or negative number. A
// capture never crashes, and either drops the frames (counted) or returns well-formed entries
// whose code slots are well-formed.
TEST_P(PythonFramesTest, CorruptedFieldsNeverCrashAndAreCountedOrHarmless) {
  ASSERT_EQ(Init(), ring::PythonStatus::kActive);
  const PythonLayout& l = fake_->l_;
  std::vector<char*> codes;
  std::vector<char*> frames;
  for (int i = 0; i < 6; ++i) {
    codes.push_back(fake_->Code("file" + std::to_string(i) + ".py", "fn" + std::to_string(i),
                                i + 1, std::string(8, static_cast<char>('a' + i))));
    frames.push_back(fake_->Push(codes.back(), 2 * i));
  }
  // Large enough that reading it as a frame or a code object stays inside the block.
  char* wrong_type = fake_->Bytes(std::string(512, 'x'));
  struct Field {
    char* base;
    uint32_t offset;
    uint32_t size;  // 8: a pointer or 64-bit count; 4: an int; 1: a byte
  };
  std::vector<Field> fields;
  for (char* f : frames) {
    fields.push_back({f, l.frame_back, 8});
    fields.push_back({f, l.frame_code, 8});
    fields.push_back({f, l.frame_instr, l.model == FrameModel::kFrameObject ? 4u : 8u});
    if (l.frame_owner != kNoField) fields.push_back({f, l.frame_owner, 1});
    if (l.frame_is_entry != kNoField) fields.push_back({f, l.frame_is_entry, 1});
  }
  for (char* c : codes) {
    fields.push_back({c, l.object_type, 8});
    fields.push_back({c, l.var_size, 8});
    fields.push_back({c, l.code_firstlineno, 4});
    if (l.code_firsttraceable != kNoField) fields.push_back({c, l.code_firsttraceable, 4});
    for (uint16_t at : {l.code_filename, l.code_name, l.code_qualname, l.code_linetable}) {
      if (at == kNoField) continue;
      fields.push_back({c, at, 8});
      char* obj;
      memcpy(&obj, c + at, 8);
      fields.push_back({obj, l.object_type, 8});
      fields.push_back({obj, at == l.code_linetable ? l.var_size : l.unicode_length, 8});
      if (at != l.code_linetable) fields.push_back({obj, l.unicode_state, 4});
    }
  }
  const uint64_t hostile8[] = {0,
                               reinterpret_cast<uintptr_t>(wrong_type) + 1,
                               reinterpret_cast<uintptr_t>(wrong_type),
                               reinterpret_cast<uintptr_t>(frames[0]),
                               uint64_t{1} << 62,
                               ~uint64_t{0}};
  const uint32_t hostile4[] = {0, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x5u << 2 | 1u << 5};
  const uint8_t hostile1[] = {0, 1, 2, 3, 4, 0xff};
  uint64_t failures_before = 0;
  int dropped = 0, kept = 0;
  for (const Field& f : fields) {
    const uint32_t variants = f.size == 8 ? 6 : f.size == 4 ? 5 : 6;
    for (uint32_t v = 0; v < variants; ++v) {
      // A pointer field of a frame or code object may only be aimed at readable memory (null,
      // misaligned or other objects): the shim cannot tell unmapped memory without a syscall.
      if (f.size == 8 && (v == 4 || v == 5) &&
          f.offset != l.var_size && f.offset != l.unicode_length && f.offset != l.frame_instr) {
        continue;
      }
      char saved[8];
      memcpy(saved, f.base + f.offset, f.size);
      if (f.size == 8) memcpy(f.base + f.offset, &hostile8[v], 8);
      if (f.size == 4) memcpy(f.base + f.offset, &hostile4[v], 4);
      if (f.size == 1) memcpy(f.base + f.offset, &hostile1[v], 1);
      ResetPythonCodeCacheForTest();
      for (auto& s : slots_) {
        s.hash.store(0);
        s.ready.store(0);
      }
      const std::vector<uint64_t> e = Capture();
      const uint64_t failures = header_->python_failures.load();
      if (e.empty()) {
        ++dropped;
      } else {
        ++kept;
        EXPECT_EQ(failures, failures_before);
        EXPECT_LE(e.size(), ring::kMaxPythonDepth);
        for (uint64_t x : e) {
          ASSERT_TRUE(ring::IsPythonFrame(x));
          const uint32_t id = ring::PythonCodeId(x);
          if (id == 0) continue;
          ASSERT_LE(id, kSlots);
          const ring::CodeSlot& s = slots_[id - 1];
          ASSERT_EQ(s.ready.load(), 1u);
          EXPECT_LE(s.filename_length, ring::kMaxCodeStringLength);
          EXPECT_LE(s.qualname_length, ring::kMaxCodeStringLength);
          EXPECT_LE(uint64_t{s.filename_length} + s.qualname_length + s.linetable_length,
                    ring::kCodeSlotData);
        }
      }
      failures_before = failures;
      memcpy(f.base + f.offset, saved, f.size);
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_GT(kept, 0);
  // Restored: the whole chain again.
  ResetPythonCodeCacheForTest();
  EXPECT_EQ(Capture().size(), 6u);
}

TEST_P(PythonFramesTest, StartUpStatuses) {
  EXPECT_EQ(Init(&FakeLookup, false), ring::PythonStatus::kDisabledByUser);
  EXPECT_FALSE(PythonFramesActive());
  EXPECT_EQ(Init(&NoPythonLookup), ring::PythonStatus::kNoPython);
  EXPECT_EQ(header_->python_version.load(), 0u);
  g_initialized = 0;
  EXPECT_EQ(Init(), ring::PythonStatus::kNotInitialized);
  EXPECT_FALSE(PythonFramesActive());
  g_initialized = 1;
  // An unknown version.
  g_py_version = 0x030E00F0;
  g_version_text = "3.14.0 (main)";
  EXPECT_EQ(Init(), ring::PythonStatus::kUnsupportedVersion);
  EXPECT_EQ(header_->python_version.load(), 0x030E00F0u);
  EXPECT_FALSE(PythonFramesActive());
  if (GetParam() == 13) {
    g_py_version = fake_->Version();
    FakePython::Put<uint64_t>(fake_->runtime_, kDebugOffsets313.free_threaded, 1);
    EXPECT_EQ(Init(), ring::PythonStatus::kFreeThreaded);
    FakePython::Put<uint64_t>(fake_->runtime_, kDebugOffsets313.free_threaded, 0);
    // The runtime's debug offsets disagree with the table: refused.
    FakePython::Put<uint64_t>(fake_->runtime_, kDebugOffsets313.code_filename, 8);
    EXPECT_EQ(Init(), ring::PythonStatus::kUnsupportedVersion);
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, PythonFramesTest, ::testing::Values(9u, 10u, 11u, 12u, 13u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return "Py3_" + std::to_string(i.param);
                         });

TEST(PythonVersionTest, ParsesPyGetVersion) {
  EXPECT_EQ(ParsePythonVersion("3.9.18 (main, Dec  1 2023, 00:00:00) \n[GCC 12.2.0]"),
            0x030912F0u);
  EXPECT_EQ(ParsePythonVersion("3.10.0rc2 (default)"), 0x030A00C2u);
  EXPECT_EQ(ParsePythonVersion("3.11.0b4+"), 0x030B00B4u);
  EXPECT_EQ(ParsePythonVersion("2.7.18"), 0x020712F0u);
  EXPECT_EQ(ParsePythonVersion("x.y"), 0u);
  EXPECT_EQ(ParsePythonVersion(""), 0u);
  EXPECT_EQ(ParsePythonVersion(nullptr), 0u);
}

}  // namespace
}  // namespace brrr::shim
