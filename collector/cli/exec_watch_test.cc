// Telling an exec from an exit: a live process that maps the segment has not exec'd; one that
// maps it no longer has; one that exited (a zombie, empty maps) or whose maps cannot be read has
// not.
#include "collector/cli/exec_watch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace brrr::cli {
namespace {

using std::chrono::milliseconds;

TEST(ExecWatchTest, AProcessThatMapsTheSegmentHasNotExeced) {
  const std::string name = absl::StrCat("/brrr-exec-watch-test-", getpid());
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  void* p = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_EQ(ProcessMapsSegment(getpid(), name), std::optional<bool>(true));
  ExecWatch mapped(getpid(), name, milliseconds(0));
  EXPECT_FALSE(mapped.Execed());
  // Unlinked, the mapping shows " (deleted)" after the path: still the segment.
  shm_unlink(name.c_str());
  EXPECT_EQ(ProcessMapsSegment(getpid(), name), std::optional<bool>(true));
  munmap(p, 4096);
  close(fd);
  // Alive and no longer mapping it: what an exec looks like.
  ExecWatch gone(getpid(), name, milliseconds(0));
  EXPECT_TRUE(gone.Execed());
  // A name that is a prefix of another mapped name is not that mapping.
  EXPECT_EQ(ProcessMapsSegment(getpid(), "/brrr"), std::optional<bool>(false));
}

TEST(ExecWatchTest, AnExitedProcessHasNotExeced) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  // Wait until it is a zombie (not reaped yet): its maps read empty.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  ExecWatch watch(child, "/brrr-anything", milliseconds(0));
  EXPECT_FALSE(watch.Execed());
  waitpid(child, nullptr, 0);
  ExecWatch reaped(child, "/brrr-anything", milliseconds(0));
  EXPECT_FALSE(reaped.Execed());  // no maps to read at all
}

// The window that made CI call an _Exit "exec": the exiting process's memory is gone (its maps
// list nothing) while /proc/PID/stat still says it runs. A listing without any mapping says
// nothing; one with mappings but not the segment's is another program.
TEST(ExecWatchTest, AnEmptyMapsListingSaysNothing) {
  std::istringstream empty("");
  EXPECT_EQ(MapsListSegment(empty, "/brrr-x"), std::nullopt);
  std::istringstream other(
      "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234 /usr/bin/python3\n"
      "7ffd1c5e0000-7ffd1c601000 rw-p 00000000 00:00 0 [stack]\n");
  EXPECT_EQ(MapsListSegment(other, "/brrr-x"), std::optional<bool>(false));
  std::istringstream ours(
      "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234 /usr/bin/app\n"
      "7f0000000000-7f0000100000 rw-s 00000000 00:19 77 /dev/shm/brrr-x (deleted)\n");
  EXPECT_EQ(MapsListSegment(ours, "/brrr-x"), std::optional<bool>(true));
}

}  // namespace
}  // namespace brrr::cli
