// Collector start-up and the exit-time wait (see collector_launcher.h). Init/exit only.
//
// Must never: leave a zombie of ours behind, wait without a bound, or pass LD_PRELOAD on.
#include "shim/collector_launcher.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim/log.h"

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

int LaunchCollector(const char* shm_name, uint32_t app_pid, const char* job_dir) {
  char path[4096];
  if (!CollectorPath(path, sizeof(path))) {
    Warn("collector `brrr` not found next to libbrrr.so; recording into ", shm_name,
         " for a later `brrr attach --shm ", shm_name, "` (or remove it under /dev/shm)");
    return 0;
  }
  char pid_text[24];
  FormatU64(app_pid, pid_text, sizeof(pid_text));

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

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    free(env);
    return 0;
  }
  // Keep the pipe clear of fds 0-4, which the child's file actions rewire.
  for (int& fd : pipe_fds) {
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    if (high >= 0) {
      close(fd);
      fd = high;
    }
  }
  // The shell starts the collector in the background and prints its pid on fd 1 (the pipe); the
  // collector's own stdout is the app's (fd 4), its stdin /dev/null.
  static const char kScript[] =
      "\"$0\" attach --shm \"$1\" --pid \"$2\" </dev/null >&4 4>&- & echo $!";
  char* const argv[] = {const_cast<char*>("sh"),
                        const_cast<char*>("-c"),
                        const_cast<char*>(kScript),
                        path,
                        const_cast<char*>(shm_name),
                        pid_text,
                        nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, 4);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  const int job_lock = OpenJobLock(job_dir, app_pid);
  if (job_lock >= 0) posix_spawn_file_actions_adddup2(&actions, job_lock, kJobLockFd);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  sigaddset(&default_signals, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &default_signals);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t shell = 0;
  const int rc = posix_spawn(&shell, "/bin/sh", &actions, &attr, argv, env);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(pipe_fds[1]);
  if (job_lock >= 0) close(job_lock);  // the collector's copy holds the lock from now on
  free(env);
  if (rc != 0) {
    close(pipe_fds[0]);
    Warn("cannot start the collector (/bin/sh: ", strerror(rc), "); recording into ", shm_name);
    return 0;
  }
  char buf[32];
  size_t got = 0;
  while (got + 1 < sizeof(buf)) {
    const ssize_t r = read(pipe_fds[0], buf + got, sizeof(buf) - 1 - got);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(pipe_fds[0]);
  buf[got] = '\0';
  // Reap the short-lived shell (ECHILD is fine: the app may ignore SIGCHLD or reap it first).
  while (waitpid(shell, nullptr, 0) < 0 && errno == EINTR) {
  }
  const long pid = strtol(buf, nullptr, 10);
  if (pid <= 0) {
    Warn("cannot start the collector; recording into ", shm_name);
    return 0;
  }
  return static_cast<int>(pid);
}

void WaitForMapsCaptured(ring::SegmentHeader* header, uint32_t timeout_ms) {
  const timespec step{0, 1'000'000};  // 1 ms
  for (uint32_t waited_ms = 0; waited_ms < timeout_ms; ++waited_ms) {
    if (header->maps_captured.load(std::memory_order_acquire) != 0) return;  // R7
    nanosleep(&step, nullptr);
  }
}

void WaitForCollector(ring::SegmentHeader* header, int collector_pid, uint32_t timeout_ms) {
  const timespec step{0, 2'000'000};  // 2 ms
  for (uint32_t waited_us = 0; waited_us < timeout_ms * 1000u; waited_us += 2000) {
    if (header->collector_done.load(std::memory_order_acquire) != 0) return;  // R6
    if (kill(collector_pid, 0) != 0 && errno == ESRCH) return;
    nanosleep(&step, nullptr);
  }
}

}  // namespace brrr::shim
