// brrr never harms the app (issue 18): each situation runs harmless_app (CUDA from a shared
// library, so the shim starts at the first CUDA call) without brrr, under a plain LD_PRELOAD and
// under `brrr run`, and compares exit status and stdout; then checks that no report was silently
// lost. Situations that need a private mount or pid namespace (a small or read-only /dev/shm,
// PID 1) run under unshare(1) and are skipped where it is not allowed (not root).
//
// Each check waits for events (a file, EOF, a process's end), never for a fixed time, so load
// cannot change the outcome; the time limits only bound a failure.
#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"

extern char** environ;

namespace brrr::e2e {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kApp = std::string(E2E_BIN_DIR) + "/e2e_harmless_app";
const std::string kShim = BRRR_SHIM_PATH;
const std::string kBrrr = BRRR_BIN;

enum class Mode { kWithout, kPreload, kBrrrRun };

const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kWithout:
      return "without brrr";
    case Mode::kPreload:
      return "LD_PRELOAD";
    case Mode::kBrrrRun:
      return "brrr run";
  }
  return "";
}

struct Outcome {
  int exit_code = -1;  // as a shell reports it; -2: still running at the time limit (killed)
  std::string out, err;
};

// In a forked child: execs argv[0] (a path) with `env`; exit 127 when it cannot.
[[noreturn]] void ExecInChild(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env) {
  std::vector<char*> a, v;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const auto& s : env) v.push_back(const_cast<char*>(s.c_str()));
  v.push_back(nullptr);
  execve(a[0], a.data(), v.data());
  _exit(127);
}

// Starts argv with env, stdout and stderr into files; waits at most `limit`.
Outcome RunFor(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const fs::path& dir, std::chrono::seconds limit = std::chrono::seconds(120)) {
  static int counter = 0;
  const std::string out = (dir / ("out" + std::to_string(counter))).string();
  const std::string err = (dir / ("err" + std::to_string(counter++))).string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    ExecInChild(argv, env);
  }
  Outcome o;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      o.exit_code = -2;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  o.out = ReadFile(out);
  o.err = ReadFile(err);
  return o;
}

bool Root() { return geteuid() == 0; }

// True when this machine lets us make private mount and pid namespaces (root, unshare allowed).
bool CanUnshare() {
  static const bool ok = Root() && system("unshare -m -p -f true >/dev/null 2>&1") == 0;
  return ok;
}

// The segments named for `pid` left in /dev/shm.
std::vector<std::string> SegmentsOf(pid_t pid) {
  std::vector<std::string> found;
  const std::string prefix = "brrr-" + std::to_string(pid) + "-";
  for (const auto& e : fs::directory_iterator("/dev/shm")) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) found.push_back(e.path().string());
  }
  return found;
}

class HarmlessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("harmless-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    chmod(dir_.c_str(), 0777);  // the setuid test's unprivileged user writes here too
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The environment of one mode (the report goes to dir_/report-<n>.brrr).
  std::vector<std::string> Env(Mode mode, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> env = extra;
    env.push_back("BRRR_OUTPUT=" + Report(mode));
    if (mode == Mode::kPreload) {
      env.push_back("LD_PRELOAD=" + std::string(BRRR_PRELOAD_PREFIX) + kShim);
    }
    return SimEnvironment(env);
  }
  std::string Report(Mode mode) {
    return (dir_ / ("report-" + std::to_string(static_cast<int>(mode)) + ".brrr")).string();
  }

  // argv of the app in `mode`, behind `wrapper` (unshare ...): outside `brrr run` (`outer`: brrr
  // too is in the namespace) or between it and the app.
  std::vector<std::string> Argv(Mode mode, const std::vector<std::string>& app_args,
                                const std::vector<std::string>& wrapper = {}, bool outer = false) {
    std::vector<std::string> unshare = wrapper;
    if (!unshare.empty()) unshare[0] = "/usr/bin/" + unshare[0];
    std::vector<std::string> brrr;
    if (mode == Mode::kBrrrRun) brrr = {kBrrr, "run", "--quiet", "--"};
    std::vector<std::string> argv = outer ? unshare : brrr;
    const std::vector<std::string>& inner = outer ? brrr : unshare;
    argv.insert(argv.end(), inner.begin(), inner.end());
    argv.push_back(kApp);
    argv.insert(argv.end(), app_args.begin(), app_args.end());
    return argv;
  }

  // Runs the app in every mode and checks that each ends as it does without brrr.
  void ExpectUnchanged(const std::vector<std::string>& app_args,
                       const std::vector<std::string>& wrapper = {}, bool outer = false,
                       const std::vector<std::string>& extra_env = {}) {
    const Outcome base = RunFor(Argv(Mode::kWithout, app_args, wrapper, outer),
                                Env(Mode::kWithout, extra_env), dir_);
    ASSERT_EQ(base.exit_code, 0) << base.err;
    for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
      const Outcome o =
          RunFor(Argv(mode, app_args, wrapper, outer), Env(mode, extra_env), dir_);
      EXPECT_EQ(o.exit_code, base.exit_code) << ModeName(mode) << "\n" << o.err;
      EXPECT_EQ(o.out, base.out) << ModeName(mode) << "\n" << o.err;
      outcomes_[mode] = o;
    }
  }

  fs::path dir_;
  std::map<Mode, Outcome> outcomes_;
};

TEST_F(HarmlessTest, DockersSmallDevShmWith64ThreadsGetsASmallerSegmentNotSigbus) {
  if (!CanUnshare()) GTEST_SKIP() << "needs root and unshare";
  for (const char* size : {"64m", "16m"}) {
    const std::vector<std::string> small_shm = {
        "unshare", "-m", "sh", "-c",
        absl::StrCat("mount -t tmpfs -o size=", size, " tmpfs /dev/shm && exec \"$@\""), "sh"};
    // 64 threads writing 4200 records each touch 17 MiB of their rings, as a longer job touches
    // them all: with the previous shim's sparse 76 MiB segment the app died of SIGBUS (exit 135)
    // in the 16 MiB /dev/shm (and in Docker's 64 MiB once its rings were written through).
    ExpectUnchanged({"threads", "64", "4200"}, small_shm, /*outer=*/true,
                    {"BRRR_SIM_LAUNCH_NS=0", "BRRR_SIM_KERNEL_NS=0"});
    for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
      const Outcome& o = outcomes_[mode];
      EXPECT_THAT(o.out, HasSubstr("threads 64 ok")) << ModeName(mode) << " " << size;
      EXPECT_THAT(o.err, HasSubstr("recording into a smaller segment")) << ModeName(mode);
      EXPECT_TRUE(fs::exists(Report(mode))) << ModeName(mode) << ": no report\n" << o.err;
      fs::remove(Report(mode));
    }
  }
}

TEST_F(HarmlessTest, DockersSmallDevShmWithRingsWrittenThroughStillRecords) {
  if (!CanUnshare()) GTEST_SKIP() << "needs root and unshare";
  const std::vector<std::string> small_shm = {
      "unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64m tmpfs /dev/shm && exec \"$@\"",
      "sh"};
  // Rings written all through (17000 records a thread wraps a default ring): shrunk rings wrap.
  ExpectUnchanged({"threads", "8", "17000"}, small_shm, /*outer=*/true,
                  {"BRRR_SIM_LAUNCH_NS=0", "BRRR_SIM_KERNEL_NS=0"});
  for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
    const Outcome& o = outcomes_[mode];
    EXPECT_THAT(o.out, HasSubstr("threads 8 ok")) << ModeName(mode);
    EXPECT_THAT(o.err, HasSubstr("recording into a smaller segment")) << ModeName(mode);
    EXPECT_TRUE(fs::exists(Report(mode))) << ModeName(mode) << ": no report\n" << o.err;
  }
}

TEST_F(HarmlessTest, ADevShmTooSmallForAnySegmentRunsTheAppUnprofiled) {
  if (!CanUnshare()) GTEST_SKIP() << "needs root and unshare";
  const std::vector<std::string> tiny_shm = {
      "unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /dev/shm && exec \"$@\"", "sh"};
  ExpectUnchanged({"threads", "4"}, tiny_shm, /*outer=*/true);
  EXPECT_THAT(outcomes_[Mode::kPreload].err, HasSubstr("too little for even the smallest segment"));
  EXPECT_THAT(outcomes_[Mode::kBrrrRun].err,
              HasSubstr("running the command without profiling it"));
}

TEST_F(HarmlessTest, AReadOnlyDevShmRunsTheAppUnprofiled) {
  if (!CanUnshare()) GTEST_SKIP() << "needs root and unshare";
  const std::vector<std::string> ro_shm = {
      "unshare", "-m", "sh", "-c", "mount -t tmpfs -o ro tmpfs /dev/shm && exec \"$@\"", "sh"};
  ExpectUnchanged({"threads", "2"}, ro_shm, /*outer=*/true);
  EXPECT_THAT(outcomes_[Mode::kBrrrRun].err,
              HasSubstr("running the command without profiling it"));
  EXPECT_THAT(outcomes_[Mode::kPreload].err, HasSubstr("not profiled"));
}

// Issue 48: under `ulimit -v 100000` the app aborted under brrr (its segment and CUPTI took the
// room) and ran without it. Where a limit leaves too little for brrr's share, the app runs
// unprofiled, exactly as without brrr, says which limit, and brrr run's report says it ran
// unprofiled. (The app itself needs about 80 MB here: 150,000 kB is room for it, not for brrr.)
TEST_F(HarmlessTest, AnAddressSpaceLimitTooSmallForBrrrLeavesTheAppUnprofiledAndUnchanged) {
  if (!std::string(BRRR_PRELOAD_PREFIX).empty()) GTEST_SKIP() << "ASan needs all address space";
  ExpectUnchanged({"plain"}, {"sh", "-c", "ulimit -v 150000 && exec \"$@\"", "sh"});
  for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
    EXPECT_THAT(outcomes_[mode].err, HasSubstr("the address-space limit (ulimit -v: 146 MiB)"))
        << ModeName(mode);
  }
  EXPECT_FALSE(fs::exists(Report(Mode::kPreload)));
  auto run = ReadBrrrFile(Report(Mode::kBrrrRun));
  ASSERT_TRUE(run.ok()) << run.status() << outcomes_[Mode::kBrrrRun].err;
  EXPECT_EQ(run->verdict.regime, "unprofiled");
  EXPECT_THAT(run->verdict.why, HasSubstr("address-space limit"));
}

TEST_F(HarmlessTest, AnAppThatIsPid1AndWaitsForAllItsChildrenExitsAsWithout) {
  if (!CanUnshare()) GTEST_SKIP() << "needs root and unshare";
  // In sanitizer builds the preloaded ASan runtime's leak check cannot run in a process that is
  // PID 1 of its namespace (LeakSanitizer aborts there, brrr or not): off for these runs.
  const char* asan = getenv("ASAN_OPTIONS");
  const std::string saved = asan != nullptr ? asan : "";
  setenv("ASAN_OPTIONS", (saved.empty() ? "" : saved + ":").append("detect_leaks=0").c_str(), 1);
  ExpectUnchanged({"reap-all"}, {"unshare", "--pid", "--fork", "--mount-proc"});
  for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
    EXPECT_EQ(outcomes_[mode].out, "reaped 1\n") << ModeName(mode);
  }
  // Under brrr run the PID 1 app is not CMD (unshare is): its shim would have to start a collector
  // from it, so it declines as alone, and says how to profile it from inside the namespace. Its
  // report (issue 48: "no-cuda-work" about a program that did CUDA work) says it ran unprofiled.
  EXPECT_THAT(outcomes_[Mode::kBrrrRun].err,
              HasSubstr("not profiled (put `brrr run` inside the namespace"));
  auto run = ReadBrrrFile(Report(Mode::kBrrrRun));
  ASSERT_TRUE(run.ok()) << run.status() << outcomes_[Mode::kBrrrRun].err;
  EXPECT_EQ(run->verdict.regime, "unprofiled");
  EXPECT_THAT(run->verdict.why, HasSubstr("the app is PID 1 of its namespace"));
  ASSERT_TRUE(run->coverage.has_value());
  EXPECT_FALSE(run->coverage->complete);
  // Alone, it would adopt its collector: not profiled, and it says how to profile it.
  EXPECT_THAT(outcomes_[Mode::kPreload].err,
              HasSubstr("the app is PID 1 of its namespace: a collector started from it would be "
                        "among the children it waits for; not profiled (profile it under `brrr "
                        "run -- APP`"));
  EXPECT_FALSE(fs::exists(Report(Mode::kPreload)));
  if (asan != nullptr) {
    setenv("ASAN_OPTIONS", saved.c_str(), 1);
  } else {
    unsetenv("ASAN_OPTIONS");
  }
}

TEST_F(HarmlessTest, ASubreaperThatWaitsForAllItsChildrenSeesOnlyItsOwn) {
  ExpectUnchanged({"subreaper"});
  for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
    EXPECT_EQ(outcomes_[mode].out, "reaped 1\n") << ModeName(mode);
  }
  // It sets PR_SET_CHILD_SUBREAPER in main, before its first CUDA call.
  EXPECT_TRUE(fs::exists(Report(Mode::kBrrrRun))) << outcomes_[Mode::kBrrrRun].err;
  EXPECT_THAT(outcomes_[Mode::kPreload].err, HasSubstr("the app is a child subreaper"));
}

TEST_F(HarmlessTest, AnAppThatWaitsForAllItsChildrenNeverWaitsForBrrr) {
  ExpectUnchanged({"reap-all"});
  for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
    EXPECT_EQ(outcomes_[mode].out, "reaped 1\n") << ModeName(mode);
    EXPECT_TRUE(fs::exists(Report(mode))) << ModeName(mode) << outcomes_[mode].err;
  }
}

TEST_F(HarmlessTest, ASigchldReaperNeverReapsAChildOfBrrrs) {
  ExpectUnchanged({"sigchld"});
  for (Mode mode : {Mode::kPreload, Mode::kBrrrRun}) {
    EXPECT_EQ(outcomes_[mode].out, "known 1 unknown 0\n") << ModeName(mode);
    EXPECT_TRUE(fs::exists(Report(mode))) << ModeName(mode);
  }
}

TEST_F(HarmlessTest, WhenTheAppClosesStdoutAndStderrAReaderSeesEofAtOnce) {
  // The app's stdout (and, but under brrr run, its stderr) is one pipe; the app closes both, before
  // its CUDA work or after it, then waits for `release`. EOF must come while the app still waits:
  // nothing of brrr's holds a copy of the pipe. brrr run prints its report on its stderr, which it
  // keeps; its stdout it gives up once the app has its own (issue 48: the reader waited until the
  // app's end). With fds 1 and 2 closed, brrr opens nothing there (the app checks).
  const std::string release = (dir_ / "release").string();
  for (const char* order : {"close-stdio", "close-stdio-first"})
  for (Mode mode : {Mode::kWithout, Mode::kPreload, Mode::kBrrrRun}) {
    SCOPED_TRACE(order);
    fs::remove(release);
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    const std::vector<std::string> argv = Argv(mode, {order, release});
    const std::vector<std::string> env = Env(mode);
    const std::string err_file = (dir_ / "run-stderr").string();
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(p[1], 1);
      if (mode == Mode::kBrrrRun) {
        const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(err, 2);
      } else {
        dup2(p[1], 2);
      }
      close(p[0]);
      close(p[1]);
      ExecInChild(argv, env);
    }
    close(p[1]);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = read(p[0], buf, sizeof(buf))) != 0;) {
      if (n > 0) got.append(buf, static_cast<size_t>(n));
    }
    close(p[0]);
    // EOF: the app must still be waiting for `release` (it waits up to 60 s).
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0)
        << ModeName(mode) << ": EOF came only when the app had exited";
    std::ofstream(release) << "go";
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ModeName(mode);
    EXPECT_THAT(got, HasSubstr("closing\n")) << ModeName(mode);
  }
  // The report was written all the same (the collector finishes after the app).
  for (int i = 0; i < 6000 && !fs::exists(Report(Mode::kPreload)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(fs::exists(Report(Mode::kPreload)));
}

TEST_F(HarmlessTest, AStderrThatIsASocketGetsThePreloadReport) {
  // systemd's journal gives a service a socket for stderr. /proc/PID/fd/2 cannot open a socket,
  // so the collector prints through the copy the shim left it (issue 48: the report and the
  // "wrote FILE" line never appeared). The app's own line comes first, and the stream ends once
  // the app and its collector are gone.
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const std::vector<std::string> argv = Argv(Mode::kPreload, {"plain"});
  const std::vector<std::string> env = Env(Mode::kPreload);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(sv[1], 2);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    ExecInChild(argv, env);
  }
  close(sv[1]);
  std::string got;
  char buf[4096];
  for (;;) {
    pollfd pfd{sv[0], POLLIN, 0};
    if (poll(&pfd, 1, 120'000) <= 0) break;  // bounds a failure only
    const ssize_t n = read(sv[0], buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(sv[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_THAT(got, HasSubstr("BRRR'S COST"));
  EXPECT_THAT(got, HasSubstr("wrote " + Report(Mode::kPreload)));
}

TEST_F(HarmlessTest, DataFilesOnFds0To2GetNothingOfBrrrs) {
  for (Mode mode : {Mode::kWithout, Mode::kPreload, Mode::kBrrrRun}) {
    const fs::path data = dir_ / ("data-" + std::to_string(static_cast<int>(mode)));
    fs::create_directories(data);
    // BRRR_STACKS=maybe: a warning at start (on the test's stderr, before the app reopens fds).
    const Outcome o = RunFor(Argv(mode, {"reuse-fds", data.string()}),
                             Env(mode, {"BRRR_STACKS=maybe"}), dir_);
    EXPECT_EQ(o.exit_code, 0) << ModeName(mode) << o.err;
    EXPECT_EQ(ReadFile((data / "out").string()), "app out\n") << ModeName(mode);
    EXPECT_EQ(ReadFile((data / "err").string()), "app err\n") << ModeName(mode);
    if (mode != Mode::kWithout) {
      for (int i = 0; i < 6000 && !fs::exists(Report(mode)); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      EXPECT_TRUE(fs::exists(Report(mode))) << ModeName(mode);
    }
  }
}

TEST_F(HarmlessTest, AnAppWithFds0To2ClosedIsProfiledAndLeavesNoSegment) {
  const std::vector<std::string> argv = Argv(Mode::kPreload, {"closed-fds"});
  const Outcome o = RunFor(argv, Env(Mode::kPreload), dir_);
  EXPECT_EQ(o.exit_code, 0);
  for (int i = 0; i < 6000 && !fs::exists(Report(Mode::kPreload)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(fs::exists(Report(Mode::kPreload))) << "no collector ran";
}

// The pid of the collector (`brrr attach ... --pid APP`) of `app`, waiting up to a minute.
pid_t CollectorOf(pid_t app) {
  const std::string want = "--pid" + std::string(1, '\0') + std::to_string(app) + '\0';
  for (int i = 0; i < 6000; ++i) {
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string cmdline = ReadFile(e.path().string() + "/cmdline");
      if (cmdline.find("attach") != std::string::npos && cmdline.find(want) != std::string::npos) {
        return static_cast<pid_t>(std::stol(name));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// Field `n` (1-based, after the command) of /proc/PID/stat: 3 = state, 4 = ppid; "" when gone.
std::string StatField(pid_t pid, int n) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 2));
  std::string f;
  for (int i = 3; i <= n && fields >> f; ++i) {
  }
  return f;
}

// Stops the collector once it is settled: its short-lived parent (the app's intermediate) gone,
// so that its process group is already orphaned (the kernel continues a stopped member of a
// group that becomes orphaned). True when it is seen stopped.
bool StopSettledCollector(pid_t collector, pid_t app) {
  for (int i = 0; i < 6000; ++i) {
    const std::string ppid = StatField(collector, 4);
    if (ppid.empty()) return false;
    if (StatField(static_cast<pid_t>(std::stol(ppid)), 4) != std::to_string(app)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (kill(collector, SIGSTOP) != 0) return false;
  for (int i = 0; i < 6000; ++i) {
    if (StatField(collector, 3) == "T") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Starts the app in plain preload mode ("wait" for `release`), stderr into `err`.
pid_t StartWaitingApp(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      const std::string& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(e, 2);
    ExecInChild(argv, env);
  }
  return pid;
}

// Lets the waiting app go and expects it to exit 0 well before its 60 s report wait: an app
// whose exit waited on the `how` collector would take the whole minute.
void ReleaseAndExpectPromptExit(pid_t app, const std::string& release, const char* how) {
  const auto start = std::chrono::steady_clock::now();
  std::ofstream(release) << "go";
  int status = 0;
  ASSERT_EQ(waitpid(app, &status, 0), app);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30))
      << "the app's exit waited on the " << how << " collector";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(HarmlessTest, ADeadCollectorIsSaidWithTheRecoveryCommandAndNeverWaitedOn) {
  const std::string release = (dir_ / "release").string();
  const std::string err = (dir_ / "app-err").string();
  // A long report wait: an app that waited on the dead collector would take a minute to exit.
  const pid_t app = StartWaitingApp(Argv(Mode::kPreload, {"wait", release}),
                                    Env(Mode::kPreload, {"BRRR_REPORT_WAIT_MS=60000"}), err);
  const pid_t collector = CollectorOf(app);
  ASSERT_GT(collector, 0);
  ASSERT_EQ(kill(collector, SIGKILL), 0);
  // The shim sees it die while the app runs (its control thread reaps it and says so).
  std::string said;
  for (int i = 0; i < 6000 && said.find("collector died") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    said = ReadFile(err);
  }
  EXPECT_THAT(said, HasSubstr("the collector died; its report can be recovered with: brrr attach "
                              "--shm /brrr-" + std::to_string(app) + "-"));
  EXPECT_THAT(said, HasSubstr(" --pid " + std::to_string(app)));
  ReleaseAndExpectPromptExit(app, release, "dead");
  // The command it gave recovers the report.
  const size_t at = said.find("brrr attach ");
  ASSERT_NE(at, std::string::npos);
  const std::string shm = said.substr(said.find("--shm ", at) + 6, said.find(" --pid", at) -
                                                                       said.find("--shm ", at) - 6);
  const Outcome recovered = RunFor({kBrrr, "attach", "--shm", shm, "--pid", std::to_string(app)},
                                   SimEnvironment({"BRRR_OUTPUT=" + Report(Mode::kPreload)}), dir_);
  EXPECT_EQ(recovered.exit_code, 0) << recovered.err;
  EXPECT_TRUE(fs::exists(Report(Mode::kPreload)));
  EXPECT_TRUE(SegmentsOf(app).empty());
}

TEST_F(HarmlessTest, AStoppedCollectorHoldsTheAppsExitOnlyBriefly) {
  const std::string release = (dir_ / "release").string();
  const std::string err = (dir_ / "app-err").string();
  const pid_t app = StartWaitingApp(Argv(Mode::kPreload, {"wait", release}),
                                    Env(Mode::kPreload, {"BRRR_REPORT_WAIT_MS=60000"}), err);
  const pid_t collector = CollectorOf(app);
  ASSERT_GT(collector, 0);
  ASSERT_TRUE(StopSettledCollector(collector, app));
  ReleaseAndExpectPromptExit(app, release, "stopped");
  EXPECT_THAT(ReadFile(err), HasSubstr("the collector is stopped"));
  // Continued, it writes the report of the app that is gone.
  kill(collector, SIGCONT);
  for (int i = 0; i < 6000 && !fs::exists(Report(Mode::kPreload)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(fs::exists(Report(Mode::kPreload)));
}

TEST_F(HarmlessTest, ASetuidProgramWithTheShimInThePreloadListGetsNothingOfBrrrs) {
  if (!CanUnshare() || system("command -v setpriv >/dev/null") != 0) {
    GTEST_SKIP() << "needs root, unshare and setpriv";
  }
  if (!std::string(BRRR_PRELOAD_PREFIX).empty()) {
    GTEST_SKIP() << "a sanitized shim needs the sanitizer's runtime loaded first, which a setuid "
                    "program never preloads (the release shim is what this checks)";
  }
  // The shim installed system-wide: /etc/ld.so.preload names it, in a private mount namespace
  // (a copy of /etc bound over it). The program is a setuid-root copy of the app, started by
  // nobody, with the user's BRRR_* settings asking for everything, a library to load included.
  const fs::path etc = dir_ / "etc";
  ASSERT_EQ(system(("cp -a /etc/. " + etc.string() + "/ 2>/dev/null; true").c_str()), 0);
  fs::create_directories(etc);
  fs::copy_file(kShim, dir_ / "libbrrr.so");
  fs::copy_file(kBrrr, dir_ / "brrr");
  std::ofstream(etc / "ld.so.preload") << (dir_ / "libbrrr.so").string() << "\n";
  const fs::path app = dir_ / "setuid_app";
  fs::copy_file(kApp, app);
  ASSERT_EQ(chown(app.c_str(), 0, 0), 0);
  ASSERT_EQ(chmod(app.c_str(), 04755), 0);
  fs::copy_file(LOAD_MARKER, dir_ / "marker.so");
  const std::vector<std::string> env = SimEnvironment(
      {"BRRR_OUTPUT=" + Report(Mode::kPreload), "BRRR_COUNTERS=1", "BRRR_LAUNCH_SAMPLE=1",
       "BRRR_PM_SAMPLING_LIBRARY=" + (dir_ / "marker.so").string()});
  const auto run = [&](bool with_shim) {
    const std::string bind = with_shim ? "mount --bind " + etc.string() + " /etc && " : "";
    return RunFor({"/usr/bin/unshare", "-m", "sh", "-c",
                   bind + "exec setpriv --reuid=65534 --regid=65534 --clear-groups \"$@\"", "sh",
                   app.string(), "plain"},
                  env, dir_);
  };
  const Outcome without = run(false);
  const Outcome with = run(true);
  EXPECT_EQ(with.exit_code, without.exit_code) << with.err;
  EXPECT_EQ(with.out, without.out);
  EXPECT_THAT(with.err, Not(HasSubstr("brrr:")));
  EXPECT_FALSE(fs::exists(Report(Mode::kPreload)));
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr("loaded-by-")))
        << "the shim loaded a library the user named, in a setuid program";
  }
}

// Issue 48: under brrr run BRRR_SHM survives an exec and the new program records on into the same
// segment, one report for both, which said "nothing escaped" although the old program's device
// records still buffered in CUPTI were lost at the exec. The report says the exec now.
TEST_F(HarmlessTest, AnExecUnderBrrrRunIsAGapOfItsReport) {
  const Outcome o = RunFor(Argv(Mode::kBrrrRun, {"exec"}), Env(Mode::kBrrrRun), dir_);
  EXPECT_EQ(o.exit_code, 3) << o.err;
  EXPECT_THAT(o.out, HasSubstr("after exec"));
  auto r = ReadBrrrFile(Report(Mode::kBrrrRun));
  ASSERT_TRUE(r.ok()) << r.status() << o.err;
  ASSERT_TRUE(r->coverage.has_value());
  EXPECT_FALSE(r->coverage->complete);
  EXPECT_THAT(testing::PrintToString(r->coverage->gaps),
              HasSubstr("exec'd another program 1 time and went on recording"));
}

TEST_F(HarmlessTest, AnExecKeepsBothProgramsReportsAndNeitherSaysKilled) {
  const std::string pattern = (dir_ / "r-%p.brrr").string();
  const Outcome base = RunFor(Argv(Mode::kWithout, {"exec"}), Env(Mode::kWithout), dir_);
  EXPECT_EQ(base.exit_code, 3);
  const Outcome o = RunFor(Argv(Mode::kPreload, {"exec"}),
                           Env(Mode::kPreload, {"BRRR_QUIET=1"}), dir_);
  EXPECT_EQ(o.exit_code, 3) << o.err;
  EXPECT_EQ(o.out, base.out);
  // Env() sets BRRR_OUTPUT after the extras: set the pattern through a second run's environment.
  std::vector<std::string> env = SimEnvironment(
      {"LD_PRELOAD=" + std::string(BRRR_PRELOAD_PREFIX) + kShim, "BRRR_OUTPUT=" + pattern});
  const Outcome p = RunFor(Argv(Mode::kPreload, {"exec"}), env, dir_);
  EXPECT_EQ(p.exit_code, 3) << p.err;
  // Two files for the one pid: the first program's (ended by the exec) and the second's.
  std::vector<fs::path> reports;
  for (int i = 0; i < 6000 && reports.size() < 2; ++i) {
    reports.clear();
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("r-", 0) == 0 && fs::file_size(e.path()) > 0) reports.push_back(e.path());
    }
    if (reports.size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(reports.size(), 2u) << p.err;
  std::vector<std::string> ends;
  for (const fs::path& path : reports) {
    auto r = ReadBrrrFile(path.string());
    ASSERT_TRUE(r.ok()) << r.status();
    ends.push_back(r->end + (r->exit_code_known ? " " + std::to_string(r->exit_code) : ""));
  }
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<std::string>{"exec", "exited 3"}));
}

}  // namespace
}  // namespace brrr::e2e
