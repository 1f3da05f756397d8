// Tests of /proc/<pid>/maps parsing and accumulation.
#include "collector/symbolize/process_maps.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace brrr::symbolize {
namespace {

__attribute__((noinline)) int FunctionInThisBinary(int x) { return x * 3; }

constexpr char kMaps[] =
    "555555554000-555555556000 r--p 00000000 08:01 100 /usr/bin/app\n"
    "555555556000-555555558000 r-xp 00002000 08:01 100 /usr/bin/app\n"
    "7ffff7dd0000-7ffff7f50000 r-xp 00028000 08:01 200 /lib/with space/libc.so.6\n"
    "7ffff7ff0000-7ffff7ff2000 r-xp 00000000 00:00 0 [vdso]\n"
    "7ffff7ff3000-7ffff7ff4000 rwxp 00000000 00:00 0\n"
    "garbage line\n"
    "zzzz-7fff r-xp 0 0 0 /bad\n"
    "7000-6000 r-xp 0 0 0 /backwards\n";

TEST(ProcessMapsTest, KeepsOnlyExecutableRegionsWithTheirPaths) {
  ProcessMaps maps;
  maps.Merge(kMaps);
  EXPECT_EQ(maps.size(), 4u);
  EXPECT_EQ(maps.Find(0x555555554000), nullptr) << "not executable";
  const MappedRegion* app = maps.Find(0x555555557000);
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->path, "/usr/bin/app");
  EXPECT_EQ(app->offset, 0x2000u);
  const MappedRegion* libc = maps.Find(0x7ffff7dd0000);
  ASSERT_NE(libc, nullptr);
  EXPECT_EQ(libc->path, "/lib/with space/libc.so.6");
  EXPECT_EQ(maps.Find(0x7ffff7f50000), nullptr) << "end is exclusive";
  EXPECT_EQ(maps.Find(0x7ffff7ff0100)->path, "[vdso]");
  EXPECT_EQ(maps.Find(0x7ffff7ff3000)->path, "");
}

TEST(ProcessMapsTest, LaterCaptureReplacesOverlapsAndKeepsTheRest) {
  ProcessMaps maps;
  maps.Merge("1000-3000 r-xp 0 08:01 1 /old.so\n5000-6000 r-xp 0 08:01 2 /kept.so\n");
  maps.Merge("2000-4000 r-xp 0 08:01 3 /new.so\n");
  EXPECT_EQ(maps.Find(0x1000), nullptr);
  EXPECT_EQ(maps.Find(0x2500)->path, "/new.so");
  EXPECT_EQ(maps.Find(0x5500)->path, "/kept.so");
  EXPECT_EQ(maps.captures(), 2u);
}

TEST(ProcessMapsTest, CapturesThisProcess) {
  ProcessMaps maps;
  ASSERT_TRUE(maps.Capture(getpid()).ok());
  const MappedRegion* self = maps.Find(reinterpret_cast<uint64_t>(&FunctionInThisBinary));
  ASSERT_NE(self, nullptr);
  EXPECT_NE(self->path.find("brrr_symbolize_test"), std::string::npos) << self->path;
  EXPECT_FALSE(maps.Capture(0x7ffffff0).ok()) << "no such process";
}

}  // namespace
}  // namespace brrr::symbolize
