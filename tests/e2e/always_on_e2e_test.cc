// End-to-end tests of always-on profiling on the simulated device: an nvcc-built program making
// slow, steady launches (steady_launches.cu) is killed after 3 s by SIGKILL or SIGTERM (default
// action, no handler), under `brrr run` and under a plain LD_PRELOAD: the file holds device
// records for at least 90% of the launches it made (the shim's periodic flush), the launch calls
// the host made, and an end that says what happened (never exit code 0). The four kills run at
// once, so the test costs about 3 s. Paths come from the build: BRRR_BIN, BRRR_SHIM_PATH,
// E2E_BIN_DIR, SIMCUDA_LIB_DIR, BRRR_PRELOAD_PREFIX.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/brrr_file.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

std::string TestDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("always-on-" + std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Starts argv with `env` (stdout and stderr to `log`) without waiting; returns its pid.
pid_t StartBackground(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      const std::string& log) {
  std::vector<char*> a, e;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  e.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  return pid;
}

// "PID COUNT" as steady_launches writes it; {0, 0} before its first launch.
std::pair<pid_t, long> ReadCounter(const std::string& path) {
  std::ifstream in(path);
  long pid = 0, count = 0;
  in >> pid >> count;
  return {static_cast<pid_t>(pid), count};
}

// Waits (bounded) for `path` to exist, then reads it.
absl::StatusOr<Report> WaitAndRead(const std::string& path, int seconds = 30) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!std::filesystem::exists(path) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ReadBrrrFile(path);
}

std::string Program() { return std::string(E2E_BIN_DIR) + "/e2e_steady_launches"; }
std::string Shim() { return BRRR_SHIM_PATH; }

struct KillCase {
  bool under_run = false;  // brrr run, else plain LD_PRELOAD
  int signal = SIGKILL;
  std::string dir, counter, output, log;
  pid_t started = 0;  // brrr run, or the app itself
  pid_t app = 0;
  long launches_made = 0;
  int status = 0;
};

std::string Name(const KillCase& c) {
  return std::string(c.under_run ? "brrr run" : "LD_PRELOAD") + " + " + strsignal(c.signal);
}

TEST(AlwaysOnEndToEnd, KilledAppKeepsItsDeviceRecordsAndATruthfulEnd) {
  std::vector<KillCase> cases;
  for (bool under_run : {true, false}) {
    for (int sig : {SIGKILL, SIGTERM}) {
      KillCase c;
      c.under_run = under_run;
      c.signal = sig;
      c.dir = TestDir(std::string(under_run ? "run-" : "preload-") + std::to_string(sig));
      c.counter = c.dir + "/counter";
      c.output = c.dir + "/out.brrr";
      c.log = c.dir + "/log";
      cases.push_back(c);
    }
  }
  for (KillCase& c : cases) {
    const std::vector<std::string> app = {Program(), "60", c.counter, "1000"};
    if (c.under_run) {
      std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", c.output, "--"};
      argv.insert(argv.end(), app.begin(), app.end());
      c.started = StartBackground(argv, e2e::SimEnvironment({}), c.log);
    } else {
      c.started = StartBackground(app,
                                  e2e::SimEnvironment({std::string("LD_PRELOAD=") +
                                                           BRRR_PRELOAD_PREFIX + Shim(),
                                                       "BRRR_OUTPUT=" + c.output, "BRRR_QUIET=1"}),
                                  c.log);
    }
    ASSERT_GT(c.started, 0);
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  for (KillCase& c : cases) {
    c.app = ReadCounter(c.counter).first;
    ASSERT_GT(c.app, 0) << Name(c) << " never launched: " << e2e::ReadFile(c.log);
    ASSERT_EQ(kill(c.app, c.signal), 0);
  }
  for (KillCase& c : cases) {
    ASSERT_EQ(waitpid(c.started, &c.status, 0), c.started);
    c.launches_made = ReadCounter(c.counter).second;
  }
  for (const KillCase& c : cases) {
    SCOPED_TRACE(Name(c));
    // Slow launches: about 1 per ms, so a few thousand in 3 s (well under one CUPTI buffer).
    EXPECT_GT(c.launches_made, 500);
    absl::StatusOr<Report> file = WaitAndRead(c.output);
    ASSERT_TRUE(file.ok()) << file.status() << "\n" << e2e::ReadFile(c.log);
    const Report& r = *file;
    // Every launch call the host made (the last one may have returned after the count was
    // written: at most one more), and device records for at least 90% of them.
    EXPECT_GE(r.kernels.launch_calls, static_cast<uint64_t>(c.launches_made));
    EXPECT_LE(r.kernels.launch_calls, static_cast<uint64_t>(c.launches_made) + 1);
    EXPECT_GE(r.kernels.launches, static_cast<uint64_t>(0.9 * c.launches_made))
        << "of " << c.launches_made;
    if (c.under_run) {
      // brrr run is the app's parent: the shell's status and the signal.
      ASSERT_TRUE(WIFEXITED(c.status));
      EXPECT_EQ(WEXITSTATUS(c.status), 128 + c.signal);
      EXPECT_TRUE(r.exit_code_known);
      EXPECT_EQ(r.exit_code, 128 + c.signal);
      EXPECT_EQ(r.end, "killed by signal " + std::to_string(c.signal));
    } else {
      // Only the app's parent knows the status: the report says it is unknown, never 0.
      ASSERT_TRUE(WIFSIGNALED(c.status));
      EXPECT_EQ(WTERMSIG(c.status), c.signal);
      EXPECT_FALSE(r.exit_code_known);
      EXPECT_EQ(r.end, "killed");
      ASSERT_TRUE(r.coverage.has_value());
      EXPECT_THAT(testing::PrintToString(r.coverage->gaps), HasSubstr("ended without exiting"));
    }
  }
  for (const KillCase& c : cases) std::filesystem::remove_all(c.dir);
}

}  // namespace
}  // namespace brrr
