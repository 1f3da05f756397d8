// Tests of starting and waiting for a command as a shell would.
#include "collector/cli/child_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

namespace brrr::cli {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> Env() { return {"PATH=/usr/bin:/bin"}; }

TEST(ChildProcessTest, ReportsExitCodesAndSignalsAsAShellDoes) {
  SpawnResult r = SpawnCommand({"sh", "-c", "exit 3"}, Env());
  ASSERT_GT(r.pid, 0) << r.error;
  EXPECT_EQ(ShellExitCode(WaitForChild(r.pid)), 3);
  r = SpawnCommand({"sh", "-c", "kill -9 $$"}, Env());
  ASSERT_GT(r.pid, 0);
  EXPECT_EQ(ShellExitCode(WaitForChild(r.pid)), 128 + SIGKILL);
}

TEST(ChildProcessTest, PassesTheEnvironment) {
  SpawnResult r = SpawnCommand({"sh", "-c", "test \"$BRRR_TEST_VALUE\" = yes"},
                               {"PATH=/usr/bin:/bin", "BRRR_TEST_VALUE=yes"});
  ASSERT_GT(r.pid, 0);
  EXPECT_EQ(ShellExitCode(WaitForChild(r.pid)), 0);
}

TEST(ChildProcessTest, CommandNotFoundIs127AndNotExecutableIs126) {
  SpawnResult r = SpawnCommand({"brrr-no-such-command-xyz"}, Env());
  EXPECT_EQ(r.pid, -1);
  EXPECT_EQ(r.shell_exit_code, 127);
  EXPECT_THAT(r.error, HasSubstr("command not found"));
  r = SpawnCommand({"/etc/passwd"}, Env());
  EXPECT_EQ(r.pid, -1);
  EXPECT_EQ(r.shell_exit_code, 126);
}

TEST(ChildProcessTest, ForwardsSignalsSentToBrrr) {
  SpawnResult r = SpawnCommand({"sleep", "30"}, Env());
  ASSERT_GT(r.pid, 0);
  ForwardSignalsTo(r.pid);
  kill(getpid(), SIGTERM);  // brrr survives; the child gets it
  const int status = WaitForChild(r.pid);
  StopForwardingSignals();
  EXPECT_EQ(ShellExitCode(status), 128 + SIGTERM);
}

}  // namespace
}  // namespace brrr::cli
