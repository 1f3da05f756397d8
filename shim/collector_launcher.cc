// Collector start-up and the exit-time wait (see collector_launcher.h). Init/exit only.
//
// Must never: leave a zombie of ours behind, make the app a parent of the collector, wait without
// a bound, or pass LD_PRELOAD on.
#include "shim/collector_launcher.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "shim/log.h"
#include "shim/text_append.h"

extern char** environ;

namespace brrr::shim {
namespace {

// "<dir of libbrrr.so>/brrr" into `out`; false when it does not exist or is not executable.
bool CollectorPath(char* out, size_t cap) {
  Dl_info info;
  if (dladdr(reinterpret_cast<const void*>(&LaunchCollector), &info) == 0 ||
      info.dli_fname == nullptr) {
    return false;
  }
  const char* slash = strrchr(info.dli_fname, '/');
  const size_t dir_len = slash == nullptr ? 0 : static_cast<size_t>(slash - info.dli_fname) + 1;
  if (dir_len + 5 > cap) return false;
  if (dir_len == 0) {
    memcpy(out, "./", 2);
    memcpy(out + 2, "brrr", 5);
  } else {
    memcpy(out, info.dli_fname, dir_len);
    memcpy(out + dir_len, "brrr", 5);
  }
  return access(out, X_OK) == 0;
}

bool StartsWith(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

// In a `brrr run` job (BRRR_JOB_DIR): "<dir>/<pid>.lock", created and flock'ed here, its open file
// handed to the collector as fd 5. The lock lives as long as the collector (the app's copy is
// closed once the collector started): `brrr run` waits on it before reading "<dir>/<pid>.brrr".
// Returns the fd (>= 10, close-on-exec) or -1 outside a job or on any failure.
int OpenJobLock(const char* dir, uint32_t app_pid) {
  if (dir == nullptr || dir[0] == '\0') return -1;
  char path[4096];
  char pid_text[24];
  FormatU64(app_pid, pid_text, sizeof(pid_text));
  const size_t dir_len = strlen(dir);
  const size_t pid_len = strlen(pid_text);
  if (dir_len + 1 + pid_len + sizeof(".lock") > sizeof(path)) return -1;
  memcpy(path, dir, dir_len);
  path[dir_len] = '/';
  memcpy(path + dir_len + 1, pid_text, pid_len);
  memcpy(path + dir_len + 1 + pid_len, ".lock", sizeof(".lock"));
  const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return high;
}

}  // namespace

namespace {

// What the two processes of the collector's start need. Both run in the app's memory (CLONE_VM)
// while the thread that started them waits (CLONE_VFORK), so they touch nothing but this.
struct LaunchArgs {
  const char* path;
  char* const* argv;
  char* const* envp;
  int devnull;        // >= 10: becomes fds 0, 1 and 2 (2 unless keep_stderr)
  bool keep_stderr;   // fd 2 is the socket the app started with (a journal): the collector's too
  int job_lock;       // >= 10 or -1: becomes kJobLockFd
  char* collector_stack_top;
  int collector_pid;  // set by the intermediate: the collector's pid, or <= 0
  int exec_errno;     // set by the collector's side when execve failed
};

// The collector between clone and execve: only system calls, no allocation, no locks. Every
// signal is blocked on entry; a handler of the app's must never run here, so handled signals go
// back to their defaults (as SIGINT, SIGTERM and SIGPIPE do, even when the app ignores them)
// before the mask is cleared.
// Not instrumented: a sanitizer's bookkeeping of the app's stack (and its report on _exit from a
// stack it does not know) has no place on this borrowed one.
__attribute__((no_sanitize("address", "undefined"))) int CollectorChild(void* p) {
  auto* a = static_cast<LaunchArgs*>(p);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    const bool reset = sig == SIGINT || sig == SIGTERM || sig == SIGPIPE ||
                       (old.sa_handler != SIG_IGN && old.sa_handler != SIG_DFL);
    if (!reset) continue;
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
  }
  // Ignored across the exec: the collector's process group is orphaned once the intermediate is
  // gone, and the kernel sends SIGHUP (then SIGCONT) to an orphaned group with a stopped member;
  // a terminal's hangup must not cost the report either (the collector ends with the app).
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGHUP, &ignore, nullptr);
  setpgid(0, 0);  // its own group: the terminal's Ctrl-C reaches the app, not the collector
  // Nothing of the app's stdio is held, but a socket on fd 2 (systemd's journal): the collector
  // cannot reopen that through /proc, and no reader waits for its end (collector/cli/app_stderr.h).
  for (int fd = 0; fd < 3; ++fd) {
    if (fd == STDERR_FILENO && a->keep_stderr) {
      fcntl(fd, F_SETFD, 0);  // this process's copy of the table: the app's flag is unchanged
    } else {
      dup2(a->devnull, fd);
    }
  }
  if (a->job_lock >= 0) dup2(a->job_lock, kJobLockFd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(a->path, a->argv, a->envp);
  a->exec_errno = errno;
  _exit(127);
}

// The app's only child in all this, and a short-lived one: started with no exit signal, so the
// app's waitpid(-1) and wait() never see it and its end sends the app no SIGCHLD (an exec would
// reset that, which is why it is not the collector itself). It starts the collector and ends as
// soon as the collector has exec'd, which hands the collector to init (or to a subreaper above
// the app); the shim reaps it with __WALL.
__attribute__((no_sanitize("address", "undefined"))) int Intermediate(void* p) {
  auto* a = static_cast<LaunchArgs*>(p);
  const int pid = clone(&CollectorChild, a->collector_stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
  a->collector_pid = a->exec_errno == 0 ? pid : -1;
  _exit(0);
}

}  // namespace

namespace {

// fd 2 is still the file the app started with, and that file is a socket.
bool StderrIsStartupSocket() {
  uint64_t dev = 0, ino = 0;
  struct stat st {};
  return StartupStderr(&dev, &ino) && fstat(STDERR_FILENO, &st) == 0 && S_ISSOCK(st.st_mode) &&
         st.st_dev == dev && st.st_ino == ino;
}

}  // namespace

int LaunchCollector(const char* shm_name, uint32_t app_pid, const char* job_dir) {
  char path[4096];
  if (!CollectorPath(path, sizeof(path))) {
    Warn("collector `brrr` not found next to libbrrr.so; recording into ", shm_name,
         " for a later `brrr attach --shm ", shm_name, "` (or remove it under /dev/shm)");
    return 0;
  }
  char pid_text[24];
  FormatU64(app_pid, pid_text, sizeof(pid_text));
  // The stderr the app started with, for the collector to print to while it is still the same
  // file (never a data file the app reopened on fd 2); "none" when it was closed.
  char stderr_text[48] = "none";
  if (uint64_t dev = 0, ino = 0; StartupStderr(&dev, &ino)) {
    const size_t n = FormatU64(dev, stderr_text, sizeof(stderr_text));
    stderr_text[n] = ':';
    FormatU64(ino, stderr_text + n + 1, sizeof(stderr_text) - n - 1);
  }

  // Environment without LD_PRELOAD / BRRR_SHM (built once, at init: allocation is fine here).
  size_t n = 0;
  while (environ != nullptr && environ[n] != nullptr) ++n;
  char** env = static_cast<char**>(calloc(n + 1, sizeof(char*)));
  if (env == nullptr) return 0;
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (StartsWith(environ[i], "LD_PRELOAD=") || StartsWith(environ[i], "BRRR_SHM=")) continue;
    env[k++] = environ[i];
  }
  env[k] = nullptr;

  char* const argv[] = {path,
                        const_cast<char*>("attach"),
                        const_cast<char*>("--shm"),
                        const_cast<char*>(shm_name),
                        const_cast<char*>("--pid"),
                        pid_text,
                        const_cast<char*>("--stderr"),
                        stderr_text,
                        nullptr};
  const int opened = open("/dev/null", O_RDWR | O_CLOEXEC);
  const int devnull = opened >= 0 ? fcntl(opened, F_DUPFD_CLOEXEC, 10) : -1;
  const int fd_errno = errno;  // EMFILE under a low RLIMIT_NOFILE, the usual cause
  if (opened >= 0) close(opened);
  constexpr size_t kStackBytes = 64 * 1024;  // two stacks: the intermediate's, the collector's
  void* stacks = devnull < 0 ? MAP_FAILED
                             : mmap(nullptr, 2 * kStackBytes, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (devnull < 0 || stacks == MAP_FAILED) {
    const int why = devnull < 0 ? fd_errno : errno;
    if (devnull >= 0) close(devnull);
    free(env);
    char reason[160];
    size_t at = 0;
    text::Append(reason, sizeof(reason), &at,
                 devnull < 0 ? "a file descriptor for /dev/null: " : "its stack: ");
    text::Append(reason, sizeof(reason), &at, strerror(why));
    if (why == EMFILE) text::Append(reason, sizeof(reason), &at, ", the open-files limit (ulimit -n)");
    Warn("cannot start the collector (", reason, "); recording into ", shm_name);
    return 0;
  }
  char* const base = static_cast<char*>(stacks);
  LaunchArgs args{path,           argv, env, devnull, StderrIsStartupSocket(),
                  OpenJobLock(job_dir, app_pid), base + 2 * kStackBytes,
                  0,              0};
  // Every signal stays blocked until the collector's side has reset the app's handlers.
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  const int saved_errno = errno;
  const int intermediate = clone(&Intermediate, base + kStackBytes, CLONE_VM | CLONE_VFORK, &args);
  const int clone_errno = errno;
  if (intermediate > 0) {
    while (waitpid(intermediate, nullptr, __WALL) < 0 && errno == EINTR) {
    }
  }
  errno = saved_errno;
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  munmap(stacks, 2 * kStackBytes);
  close(devnull);
  if (args.job_lock >= 0) close(args.job_lock);  // the collector's copy holds the lock from now on
  free(env);
  if (intermediate <= 0 || args.collector_pid <= 0) {
    Warn("cannot start the collector (",
         strerror(intermediate <= 0 ? clone_errno : args.exec_errno != 0 ? args.exec_errno : EAGAIN),
         "); recording into ", shm_name);
    return 0;
  }
  WatchCollectorProcess(args.collector_pid);
  return args.collector_pid;
}

namespace {

// A pidfd of the collector (it is not our child: waitpid cannot watch it): readable once it ended,
// whatever its pid is reused for later. -1: none (an old kernel, or the app closed it); then its
// /proc state says.
std::atomic<int> g_collector_pidfd{-1};
std::atomic<int> g_pidfd_of{0};

// The third field of /proc/PID/stat ('R', 'S', 'T', 'Z', ...), or 0 when there is no such process.
char ProcState(int pid) {
  char path[48] = "/proc/";
  FormatU64(static_cast<uint64_t>(pid), path + 6, sizeof(path) - 6);
  memcpy(path + strlen(path), "/stat", 6);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[256];
  const ssize_t got = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (got <= 0) return 0;
  buf[got] = '\0';
  const char* paren = strrchr(buf, ')');  // the command name may hold spaces and parentheses
  return paren != nullptr && paren[1] == ' ' ? paren[2] : 0;
}

}  // namespace

void WatchCollectorProcess(int collector_pid) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, collector_pid, 0));
  if (fd >= 0 && fd < 10) {  // keep clear of the low fds the app expects to own
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    fd = high;
  }
  g_pidfd_of.store(collector_pid, std::memory_order_relaxed);
  g_collector_pidfd.store(fd, std::memory_order_release);
}

bool CollectorGone(int collector_pid) {
  if (collector_pid <= 0) return true;
  const int fd = g_collector_pidfd.load(std::memory_order_acquire);
  if (fd >= 0 && g_pidfd_of.load(std::memory_order_relaxed) == collector_pid) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, 0);
    if (r == 0) return false;                                // running
    if (r == 1 && (p.revents & POLLNVAL) == 0) return true;  // ended
    // POLLNVAL: the app closed our fd; its /proc state says instead.
  }
  const char state = ProcState(collector_pid);
  return state == 0 || state == 'Z' || state == 'X';
}

CollectorState PollCollector(int collector_pid) {
  if (CollectorGone(collector_pid)) return CollectorState::kGone;
  const char state = ProcState(collector_pid);  // stopped (SIGSTOP, a debugger): T or t
  return state == 'T' || state == 't' ? CollectorState::kStopped : CollectorState::kRunning;
}

void WarnCollectorGone(const char* shm_name, uint32_t app_pid) {
  char pid_text[24];
  FormatU64(app_pid, pid_text, sizeof(pid_text));
  Warn("the collector died; its report can be recovered with: brrr attach --shm ", shm_name,
       " --pid ", pid_text);
}

void WaitForMapsCaptured(ring::SegmentHeader* header, uint32_t timeout_ms) {
  const timespec step{0, 1'000'000};  // 1 ms
  for (uint32_t waited_ms = 0; waited_ms < timeout_ms; ++waited_ms) {
    if (header->maps_captured.load(std::memory_order_acquire) != 0) return;  // R7
    nanosleep(&step, nullptr);
  }
}

bool WaitForCollector(ring::SegmentHeader* header, int collector_pid, uint32_t timeout_ms) {
  const timespec step{0, 2'000'000};  // 2 ms
  uint32_t stopped_us = 0;
  for (uint32_t waited_us = 0; waited_us < timeout_ms * 1000u; waited_us += 2000) {
    if (header->collector_done.load(std::memory_order_acquire) != 0) return true;  // R6
    switch (PollCollector(collector_pid)) {
      case CollectorState::kGone:
        return header->collector_done.load(std::memory_order_acquire) != 0;
      case CollectorState::kStopped:
        stopped_us += 2000;
        if (stopped_us >= kStoppedCollectorWaitMs * 1000u) return false;
        break;
      case CollectorState::kRunning:
        stopped_us = 0;
        break;
    }
    nanosleep(&step, nullptr);
  }
  return false;
}

}  // namespace brrr::shim
