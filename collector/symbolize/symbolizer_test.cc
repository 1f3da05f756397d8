// Tests of the symbolizer on this test binary itself (compiled with -g): demangled names, file and
// line from DWARF, a libc function without line info, and the fallbacks for unknown addresses and
// missing modules; and on a library built with -O2 -g (testdata/inlined_call_fixture.cc): one frame
// per inlined call, each at its line, also through the stack splicing of Python frames, and copies
// of that library with damaged DWARF.
#include "collector/symbolize/symbolizer.h"

#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collector/symbolize/mixed_stack_symbolizer.h"
#include "collector/symbolize/process_maps.h"
#include "collector/ingest/testing/test_segment.h"
#include "shim/ring_format.h"
#include "shim/segment_layout.h"

// testdata/inlined_call_fixture.cc, a library linked into this test.
extern "C" uint64_t brrr_inlined_call_fixture(int salt);

namespace brrr_symbolizer_test {

struct CallSite {
  uint64_t return_address;
  int line;
};

__attribute__((noinline)) uint64_t ReturnAddressOfMyCall() {
  uint64_t pc = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" : "+r"(pc));
  return pc;
}

// clang-format off
__attribute__((noinline)) CallSite PlantedCaller(int unused) {
  (void)unused;
  CallSite site{ReturnAddressOfMyCall(), __LINE__};
  asm volatile("" ::: "memory");
  return site;
}
// clang-format on

}  // namespace brrr_symbolizer_test

namespace brrr::symbolize {
namespace {

using ingest::ReaderStats;
using ingest::CodeTable;

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(SymbolizerTest, NamesAFunctionOfThisBinaryWithFileAndLine) {
  const brrr_symbolizer_test::CallSite site = brrr_symbolizer_test::PlantedCaller(1);
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  Symbolizer symbolizer(&maps);
  ASSERT_EQ(symbolizer.FramesAt(site.return_address).size(), 1u);  // nothing inlined there
  const std::string frame = symbolizer.FramesAt(site.return_address)[0];
  EXPECT_THAT(frame, StartsWith("brrr_symbolizer_test::PlantedCaller(int) ("));
  EXPECT_THAT(frame, EndsWith(absl::StrCat("(symbolizer_test.cc:", site.line, ")")));
}

TEST(SymbolizerTest, NamesALibcFunctionByItsModule) {
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  Symbolizer symbolizer(&maps);
  // Inside getpid (the return address convention looks one byte back).
  const std::string frame = symbolizer.FramesAt(reinterpret_cast<uint64_t>(&getpid) + 2).back();
  EXPECT_THAT(frame, HasSubstr("getpid ("));
  // "(libc.so.6)", or a source location where libc's debug info is installed.
  EXPECT_THAT(frame,
              ::testing::AnyOf(HasSubstr("(libc.so.6)"), ::testing::ContainsRegex(":[0-9]+\\)$")));
}

TEST(SymbolizerTest, FallsBackForUnknownAddressesAndMissingModules) {
  ProcessMaps maps;
  maps.Merge(
      "10000-20000 r-xp 00001000 08:01 1 /nonexistent/libgone.so\n"
      "30000-40000 r-xp 00000000 00:00 0 [vdso]\n");
  Symbolizer symbolizer(&maps);
  EXPECT_THAT(symbolizer.FramesAt(0x5001), ElementsAre("0x5001 (?)"));
  EXPECT_THAT(symbolizer.FramesAt(0x10101), ElementsAre("0x1100 (libgone.so)"));
  EXPECT_THAT(symbolizer.FramesAt(0x30011), ElementsAre("0x10 ([vdso])"));
  const std::vector<std::string> frames = symbolizer.Frames({0x5001, 0x10101});
  EXPECT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1], "0x1100 (libgone.so)");
}

TEST(SymbolizerTest, LeavesOutProfilerPlumbingFrames) {
  ProcessMaps maps;
  maps.Merge(
      "10000-20000 r-xp 00000000 08:01 1 /opt/brrr/lib/libbrrr.so\n"
      "20000-30000 r-xp 00000000 08:01 2 /usr/lib/libcupti.so.13\n"
      "30000-40000 r-xp 00000000 08:01 3 /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
      "40000-50000 r-xp 00000000 08:01 4 /usr/local/cuda/lib64/libcudart.so.13\n"
      "50000-60000 r-xp 00000000 08:01 5 /srv/app\n");
  Symbolizer symbolizer(&maps);
  EXPECT_TRUE(symbolizer.IsProfilerPlumbing(0x10101));
  EXPECT_TRUE(symbolizer.IsProfilerPlumbing(0x20101));
  EXPECT_TRUE(symbolizer.IsProfilerPlumbing(0x30101));
  EXPECT_FALSE(symbolizer.IsProfilerPlumbing(0x40101));  // libcudart is the app's runtime
  EXPECT_FALSE(symbolizer.IsProfilerPlumbing(0x50101));
  EXPECT_FALSE(symbolizer.IsProfilerPlumbing(0x5));  // unknown: kept
  const std::vector<std::string> frames =
      symbolizer.Frames({0x10101, 0x20101, 0x30101, 0x40101, 0x50101, 0x10200});
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_THAT(frames[0], HasSubstr("libcudart.so.13"));
  EXPECT_THAT(frames[1], HasSubstr("(app)"));
}

// The 1-based line of the fixture's source that carries "MARK: <mark>" (0 when none does).
int FixtureLine(const std::string& mark) {
  std::ifstream source(BRRR_INLINED_CALL_FIXTURE);
  std::string text;
  for (int line = 1; std::getline(source, text); ++line) {
    if (text.find("// MARK: " + mark) != std::string::npos) return line;
  }
  return 0;
}

std::string FixtureFrame(const std::string& function, const std::string& mark) {
  return absl::StrCat(function, " (inlined_call_fixture.cc:", FixtureLine(mark), ")");
}

TEST(SymbolizerTest, ExpandsCallsInlinedAtTheAddressInnermostFirst) {
  const uint64_t pc = brrr_inlined_call_fixture(1);
  ASSERT_GT(FixtureLine("capture"), 0);
  ASSERT_GT(FixtureLine("step-calls-capture"), 0);
  ASSERT_GT(FixtureLine("outer-calls-step"), 0);
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  Symbolizer symbolizer(&maps);
  // The inlined member function at the address's own line, the inlined free function in an
  // anonymous namespace at the line where it calls it, and the library's out-of-line function at
  // the line where it calls that.
  EXPECT_THAT(symbolizer.FramesAt(pc),
              ElementsAre(FixtureFrame("brrr_inline_fixture::Recorder::Capture(int)", "capture"),
                          FixtureFrame("brrr_inline_fixture::(anonymous namespace)::Step(int)",
                                       "step-calls-capture"),
                          FixtureFrame("brrr_inlined_call_fixture", "outer-calls-step")));
  // A stack gets every frame of the address, in place; the cached frames stay the same.
  const std::vector<std::string> stack = symbolizer.Frames({pc, 0x5001});
  ASSERT_EQ(stack.size(), 4u);
  EXPECT_EQ(stack[2], FixtureFrame("brrr_inlined_call_fixture", "outer-calls-step"));
  EXPECT_EQ(stack[3], "0x5001 (?)");
  EXPECT_EQ(symbolizer.FramesAt(pc)[0], stack[0]);
}

// An interpreter's native frames: the evaluator's address has a call inlined into it.
class InterpreterFrames : public NativeFrames {
 public:
  explicit InterpreterFrames(NativeFrames* real) : real_(real) {}
  std::string Frame(uint64_t pc) override { return Frames(pc).back(); }
  std::vector<std::string> Frames(uint64_t pc) override {
    if (pc == kEvaluator)
      return {"_Py_INCREF (object.h:10)", "_PyEval_EvalFrameDefault (ceval.c:700)"};
    if (pc == kMain) return {"main (python3.12)"};
    return real_->Frames(pc);
  }
  std::string Module(uint64_t pc) override {
    return pc == kEvaluator || pc == kMain ? "python3.12" : real_->Module(pc);
  }
  bool IsProfilerPlumbing(uint64_t pc) override {
    return pc == kEvaluator || pc == kMain ? false : real_->IsProfilerPlumbing(pc);
  }
  static constexpr uint64_t kEvaluator = 0x5000, kMain = 0x8000;

 private:
  NativeFrames* real_;
};

TEST(SymbolizerTest, SplicedStacksKeepEveryInlinedFrame) {
  const uint64_t pc = brrr_inlined_call_fixture(2);
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  Symbolizer symbolizer(&maps);
  SymbolizerFrames real(&symbolizer, &maps);
  EXPECT_EQ(real.Frame(pc), FixtureFrame("brrr_inlined_call_fixture", "outer-calls-step"));
  InterpreterFrames native(&real);
  ingest::testing::TestSegment seg;
  // step: line 40 everywhere (3.12 location table: no columns, delta 0, eight code units).
  const uint32_t step = seg.AddCode("/srv/job/train.py", "step", 40, {0x80 | (13 << 3) | 7, 0});
  ReaderStats stats;
  CodeTable codes(ring::CodeSlotsAt(seg.base(), seg.layout()), seg.geometry().code_slots, &stats);
  MixedStackSymbolizer mixed(&native, &codes, 0x030C01F0);
  // The extension's address keeps its three frames; the evaluator, recognized by its out-of-line
  // function, gives way to the Python frame with the call inlined into it.
  EXPECT_THAT(mixed.Frames({pc, InterpreterFrames::kEvaluator, InterpreterFrames::kMain,
                            ring::PythonFrameEntry(step, 0, true)}),
              ElementsAre(FixtureFrame("brrr_inline_fixture::Recorder::Capture(int)", "capture"),
                          FixtureFrame("brrr_inline_fixture::(anonymous namespace)::Step(int)",
                                       "step-calls-capture"),
                          FixtureFrame("brrr_inlined_call_fixture", "outer-calls-step"),
                          "step (train.py:40)"));
}

// [offset, offset + size) of each DWARF section of an ELF64 file image; empty when unreadable.
std::vector<std::pair<size_t, size_t>> DwarfSections(const std::string& image) {
  std::vector<std::pair<size_t, size_t>> sections;
  Elf64_Ehdr ehdr;
  if (image.size() < sizeof(ehdr)) return sections;
  std::memcpy(&ehdr, image.data(), sizeof(ehdr));
  const auto header = [&](size_t i, Elf64_Shdr* shdr) {
    const size_t at = ehdr.e_shoff + i * sizeof(Elf64_Shdr);
    if (ehdr.e_shoff > image.size() || at + sizeof(Elf64_Shdr) > image.size()) return false;
    std::memcpy(shdr, image.data() + at, sizeof(*shdr));
    return shdr->sh_offset <= image.size() && shdr->sh_size <= image.size() - shdr->sh_offset;
  };
  Elf64_Shdr names;
  if (!header(ehdr.e_shstrndx, &names)) return sections;
  for (size_t i = 0; i < ehdr.e_shnum; ++i) {
    Elf64_Shdr shdr;
    if (!header(i, &shdr) || shdr.sh_name >= names.sh_size) continue;
    const char* name = image.data() + names.sh_offset + shdr.sh_name;
    if (std::strncmp(name, ".debug_", 7) == 0 && shdr.sh_size > 0) {
      sections.emplace_back(shdr.sh_offset, shdr.sh_size);
    }
  }
  return sections;
}

TEST(SymbolizerTest, SurvivesDamagedDwarf) {
  const uint64_t pc = brrr_inlined_call_fixture(3);
  ProcessMaps live;
  ASSERT_TRUE(live.Capture(getpid()).ok());
  const MappedRegion* region = live.Find(pc - 1);
  ASSERT_NE(region, nullptr);
  std::ifstream in(region->path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string image = bytes.str();
  const auto sections = DwarfSections(image);
  ASSERT_GE(sections.size(), 3u);  // info, abbrev, line at least
  const std::string copy = absl::StrCat(::testing::TempDir(), "/damaged_fixture.so");
  std::mt19937 random(8);
  for (int round = 0; round < 300; ++round) {
    std::string damaged = image;
    // A few bytes of one DWARF section, or (every fourth round) a run of them zeroed or 0xff.
    const auto [offset, size] = sections[random() % sections.size()];
    if (round % 4 == 3) {
      const size_t at = offset + random() % size;
      const size_t n = std::min<size_t>(1 + random() % 64, offset + size - at);
      std::memset(&damaged[at], round % 8 == 3 ? 0 : 0xff, n);
    } else {
      for (int i = 0; i < 1 + round % 8; ++i)
        damaged[offset + random() % size] ^= 1 + random() % 255;
    }
    std::ofstream(copy, std::ios::binary | std::ios::trunc) << damaged;
    ProcessMaps maps;
    maps.Merge(absl::StrFormat("%x-%x r-xp %08x 08:01 1 %s\n", region->start, region->end,
                               region->offset, copy));
    Symbolizer symbolizer(&maps);
    const std::vector<std::string>& frames = symbolizer.FramesAt(pc);
    // The symbol table is intact: whatever DWARF says, the out-of-line function keeps its name
    // (its line, and the inlined frames, may be lost or garbled).
    ASSERT_FALSE(frames.empty()) << "round " << round;
    EXPECT_THAT(frames.back(), StartsWith("brrr_inlined_call_fixture (")) << "round " << round;
  }
}

TEST(SymbolizerTest, DemanglesOnlyMangledNames) {
  EXPECT_EQ(Demangle("_ZN3foo3barEi"), "foo::bar(int)");
  EXPECT_EQ(Demangle("main"), "main");
  EXPECT_EQ(Demangle("_Znot-valid"), "_Znot-valid");
  EXPECT_EQ(Demangle(""), "");
  EXPECT_EQ(Demangle(nullptr), "");
}

}  // namespace
}  // namespace brrr::symbolize
