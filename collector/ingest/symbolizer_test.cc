// Tests of the symbolizer on this test binary itself (compiled with -g): demangled names, file and
// line from DWARF, a libc function without line info, and the fallbacks for unknown addresses and
// missing modules.
#include "collector/ingest/symbolizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "collector/ingest/process_maps.h"

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

namespace brrr::ingest {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(SymbolizerTest, NamesAFunctionOfThisBinaryWithFileAndLine) {
  const brrr_symbolizer_test::CallSite site = brrr_symbolizer_test::PlantedCaller(1);
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  Symbolizer symbolizer(&maps);
  const std::string frame = symbolizer.Frame(site.return_address);
  EXPECT_THAT(frame, StartsWith("brrr_symbolizer_test::PlantedCaller(int) ("));
  EXPECT_THAT(frame, EndsWith(absl::StrCat("(symbolizer_test.cc:", site.line, ")")));
}

TEST(SymbolizerTest, NamesALibcFunctionByItsModule) {
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  Symbolizer symbolizer(&maps);
  // Inside getpid (the return address convention looks one byte back).
  const std::string frame = symbolizer.Frame(reinterpret_cast<uint64_t>(&getpid) + 2);
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
  EXPECT_EQ(symbolizer.Frame(0x5001), "0x5001 (?)");
  EXPECT_EQ(symbolizer.Frame(0x10101), "0x1100 (libgone.so)");
  EXPECT_EQ(symbolizer.Frame(0x30011), "0x10 ([vdso])");
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

TEST(SymbolizerTest, DemanglesOnlyMangledNames) {
  EXPECT_EQ(Demangle("_ZN3foo3barEi"), "foo::bar(int)");
  EXPECT_EQ(Demangle("main"), "main");
  EXPECT_EQ(Demangle("_Znot-valid"), "_Znot-valid");
  EXPECT_EQ(Demangle(""), "");
  EXPECT_EQ(Demangle(nullptr), "");
}

}  // namespace
}  // namespace brrr::ingest
