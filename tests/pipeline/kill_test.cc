// Kill tests of the whole pipeline on the simulated device (see CMakeLists.txt here):
//   the app SIGKILLed mid-run -> the .brrr file still holds every launch recorded before the kill;
//   the collector SIGKILLed mid-run -> the app finishes with the same stdout and exit status as
//   without brrr.
// Each in plain LD_PRELOAD mode (the shim starts `brrr attach`) and under `brrr run`.
#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "viewer/format/brrr_file.h"

extern char** environ;

namespace brrr {
namespace {

namespace fs = std::filesystem;
using std::chrono::steady_clock;

constexpr int kBefore = 300;
constexpr int kAfter = 200;
constexpr int kAppExit = 7;

struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;
};

// Starts argv with `env`, its stdout on a pipe we read, stderr into `stderr_path`.
Child Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& stderr_path) {
  Child child;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return child;
  std::vector<char*> a, e;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0600);
  if (posix_spawn(&child.pid, a[0], &actions, nullptr, a.data(), e.data()) != 0) child.pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  child.stdout_fd = fds[0];
  return child;
}

// Reads from `fd` until `text` has arrived (true) or the timeout / EOF (false).
bool ReadUntil(int fd, const std::string& text, std::string* got, std::chrono::seconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (!absl::StrContains(*got, text)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return false;
    got->append(buf, static_cast<size_t>(n));
  }
  return true;
}

std::string ReadToEnd(int fd, std::string got) {
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) got.append(buf, static_cast<size_t>(n));
  return got;
}

// waitpid with a deadline; returns the shell-style status, or -1 on timeout.
int WaitWithTimeout(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (steady_clock::now() < deadline) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r < 0) return -2;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

bool WaitForFile(const fs::path& path, std::chrono::seconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (steady_clock::now() < deadline) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The pid of `brrr attach ... --pid <app>`, found in /proc; -1 if none within the timeout.
pid_t FindAttachCollector(pid_t app, std::chrono::seconds timeout) {
  const std::string wanted = absl::StrCat("--pid", std::string(1, '\0'), app, std::string(1, '\0'));
  const auto deadline = steady_clock::now() + timeout;
  while (steady_clock::now() < deadline) {
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string cmdline = ReadFile(entry.path() / "cmdline");
      if (absl::StrContains(cmdline, std::string("attach\0--shm", 12)) &&
          absl::StrContains(cmdline, wanted)) {
        return static_cast<pid_t>(std::stoi(name));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

// The value of `name` in a process's environment ("" if unreadable or absent).
std::string EnvironmentOf(pid_t pid, const std::string& name) {
  const std::string environ_text = ReadFile(fs::path("/proc") / std::to_string(pid) / "environ");
  const std::string prefix = name + "=";
  size_t pos = 0;
  while (pos < environ_text.size()) {
    const size_t end = environ_text.find('\0', pos);
    const std::string entry = environ_text.substr(pos, end - pos);
    if (absl::StartsWith(entry, prefix)) return entry.substr(prefix.size());
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return "";
}

// The --shm argument of a `brrr attach` process.
std::string AttachSegmentName(pid_t collector) {
  const std::string cmdline = ReadFile(fs::path("/proc") / std::to_string(collector) / "cmdline");
  const std::string key = std::string("--shm") + '\0';
  const size_t pos = cmdline.find(key);
  if (pos == std::string::npos) return "";
  const size_t start = pos + key.size();
  return cmdline.substr(start, cmdline.find('\0', start) - start);
}

uint64_t LaunchCalls(const Report& report) {
  uint64_t calls = 0;
  for (const ApiStat& api : report.api) {
    if (api.category == "launch") calls += api.calls;
  }
  return calls;
}

class PipelineKillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("brrr_kill_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // The environment of every app run: the simulated device, quick kernels, a short report wait.
  std::vector<std::string> BaseEnv() const {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      if (!absl::StartsWith(*e, "LD_PRELOAD=") && !absl::StartsWith(*e, "BRRR_")) env.push_back(*e);
    }
    env.push_back(absl::StrCat("LD_LIBRARY_PATH=", SIMCUDA_LIB_DIR));
    env.push_back("BRRR_SIM_KERNEL_NS=20000");
    env.push_back("BRRR_SIM_LAUNCH_NS=2000");
    env.push_back("BRRR_REPORT_WAIT_MS=1000");
    env.push_back("BRRR_QUIET=1");
    return env;
  }
  std::vector<std::string> AppArgs() const {
    return {KILL_TEST_APP,          absl::StrCat(kBefore),  absl::StrCat(kAfter),
            (dir_ / "go").string(), absl::StrCat(kAppExit), (dir_ / "app.pid").string()};
  }
  pid_t AppPid() const {
    const std::string text = ReadFile(dir_ / "app.pid");
    return text.empty() ? -1 : static_cast<pid_t>(std::stoi(text));
  }
  // stdout and exit status of the app without brrr (the go-file already there).
  std::pair<std::string, int> Baseline() {
    std::ofstream(dir_ / "go") << "go";
    Child c = Spawn(AppArgs(), BaseEnv(), (dir_ / "baseline.err").string());
    EXPECT_GT(c.pid, 0);
    const std::string out = ReadToEnd(c.stdout_fd, "");
    close(c.stdout_fd);
    const int status = WaitWithTimeout(c.pid, std::chrono::seconds(60));
    fs::remove(dir_ / "go");
    fs::remove(dir_ / "app.pid");
    return {out, status};
  }

  fs::path dir_;
};

TEST_F(PipelineKillTest, PreloadedAppKilledMidRunStillLeavesEverythingRecorded) {
  std::vector<std::string> env = BaseEnv();
  env.push_back(absl::StrCat("LD_PRELOAD=", BRRR_PRELOAD_PREFIX, BRRR_SHIM));
  env.push_back(absl::StrCat("BRRR_OUTPUT=", (dir_ / "app-%p.brrr").string()));
  Child app = Spawn(AppArgs(), env, (dir_ / "app.err").string());
  ASSERT_GT(app.pid, 0);
  std::string out;
  ASSERT_TRUE(ReadUntil(app.stdout_fd, "ready", &out, std::chrono::seconds(60)))
      << out << ReadFile(dir_ / "app.err");
  ASSERT_NE(FindAttachCollector(app.pid, std::chrono::seconds(10)), -1) << "no collector";
  kill(app.pid, SIGKILL);
  EXPECT_EQ(WaitWithTimeout(app.pid, std::chrono::seconds(10)), 128 + SIGKILL);
  close(app.stdout_fd);
  const fs::path file = dir_ / absl::StrCat("app-", app.pid, ".brrr");
  ASSERT_TRUE(WaitForFile(file, std::chrono::seconds(60))) << ReadFile(dir_ / "app.err");
  auto report = ReadBrrrFile(file.string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(LaunchCalls(*report), static_cast<uint64_t>(kBefore));
  EXPECT_EQ(report->events.dropped, 0u);
}

TEST_F(PipelineKillTest, AppKilledUnderBrrrRunStillLeavesEverythingRecorded) {
  std::vector<std::string> env = BaseEnv();
  if (std::string(BRRR_PRELOAD_PREFIX).size() > 0) {
    env.push_back(absl::StrCat("LD_PRELOAD=", BRRR_PRELOAD_PREFIX));
  }
  std::vector<std::string> argv = {BRRR_BINARY, "run", "--output", (dir_ / "run-%p.brrr").string(),
                                   "--"};
  for (const auto& a : AppArgs()) argv.push_back(a);
  Child brrr = Spawn(argv, env, (dir_ / "brrr.err").string());
  ASSERT_GT(brrr.pid, 0);
  std::string out;
  ASSERT_TRUE(ReadUntil(brrr.stdout_fd, "ready", &out, std::chrono::seconds(60)))
      << out << ReadFile(dir_ / "brrr.err");
  const pid_t app = AppPid();
  ASSERT_GT(app, 0);
  kill(app, SIGKILL);
  EXPECT_EQ(WaitWithTimeout(brrr.pid, std::chrono::seconds(60)), 128 + SIGKILL)
      << ReadFile(dir_ / "brrr.err");
  close(brrr.stdout_fd);
  const fs::path file = dir_ / absl::StrCat("run-", app, ".brrr");
  ASSERT_TRUE(fs::exists(file)) << ReadFile(dir_ / "brrr.err");
  auto report = ReadBrrrFile(file.string());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(LaunchCalls(*report), static_cast<uint64_t>(kBefore));
  EXPECT_EQ(report->exit_code, 128 + SIGKILL);
}

TEST_F(PipelineKillTest, PreloadedAppOutlivesItsKilledCollectorUnchanged) {
  const auto [baseline_out, baseline_status] = Baseline();
  ASSERT_EQ(baseline_status, kAppExit);
  std::vector<std::string> env = BaseEnv();
  env.push_back(absl::StrCat("LD_PRELOAD=", BRRR_PRELOAD_PREFIX, BRRR_SHIM));
  env.push_back(absl::StrCat("BRRR_OUTPUT=", (dir_ / "app-%p.brrr").string()));
  Child app = Spawn(AppArgs(), env, (dir_ / "app.err").string());
  ASSERT_GT(app.pid, 0);
  std::string out;
  ASSERT_TRUE(ReadUntil(app.stdout_fd, "ready", &out, std::chrono::seconds(60)));
  const pid_t collector = FindAttachCollector(app.pid, std::chrono::seconds(10));
  ASSERT_GT(collector, 0) << "no collector";
  const std::string segment = AttachSegmentName(collector);
  ASSERT_EQ(kill(collector, SIGKILL), 0);
  std::ofstream(dir_ / "go") << "go";
  out = ReadToEnd(app.stdout_fd, out);
  close(app.stdout_fd);
  EXPECT_EQ(WaitWithTimeout(app.pid, std::chrono::seconds(60)), kAppExit)
      << ReadFile(dir_ / "app.err");
  EXPECT_EQ(out, baseline_out);
  // Nobody is left to remove the segment: the test does.
  if (!segment.empty()) shm_unlink(segment.c_str());
}

TEST_F(PipelineKillTest, AppUnderBrrrRunOutlivesKilledBrrrUnchanged) {
  const auto [baseline_out, baseline_status] = Baseline();
  ASSERT_EQ(baseline_status, kAppExit);
  // Become the orphaned app's parent, to see its exit status after brrr is gone.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  std::vector<std::string> env = BaseEnv();
  if (std::string(BRRR_PRELOAD_PREFIX).size() > 0) {
    env.push_back(absl::StrCat("LD_PRELOAD=", BRRR_PRELOAD_PREFIX));
  }
  std::vector<std::string> argv = {BRRR_BINARY, "run", "--output", (dir_ / "run-%p.brrr").string(),
                                   "--"};
  for (const auto& a : AppArgs()) argv.push_back(a);
  Child brrr = Spawn(argv, env, (dir_ / "brrr.err").string());
  ASSERT_GT(brrr.pid, 0);
  std::string out;
  ASSERT_TRUE(ReadUntil(brrr.stdout_fd, "ready", &out, std::chrono::seconds(60)));
  const pid_t app = AppPid();
  ASSERT_GT(app, 0);
  const std::string segment = EnvironmentOf(app, "BRRR_SHM");
  kill(brrr.pid, SIGKILL);
  EXPECT_EQ(WaitWithTimeout(brrr.pid, std::chrono::seconds(10)), 128 + SIGKILL);
  std::ofstream(dir_ / "go") << "go";
  out = ReadToEnd(brrr.stdout_fd, out);
  close(brrr.stdout_fd);
  EXPECT_EQ(WaitWithTimeout(app, std::chrono::seconds(60)), kAppExit)
      << ReadFile(dir_ / "brrr.err");
  EXPECT_EQ(out, baseline_out);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  // A SIGKILLed brrr cannot remove its segment: the test does.
  EXPECT_FALSE(segment.empty());
  if (!segment.empty()) shm_unlink(segment.c_str());
}

}  // namespace
}  // namespace brrr
