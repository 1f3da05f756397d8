// Child process start, wait and signal forwarding. See child_process.h.
//
// Must never: allocate or lock between fork and exec, or leave a zombie behind on exec failure.
#include "collector/cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace brrr::cli {
namespace {

std::atomic<pid_t> g_forward_to{0};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void ForwardHandler(int sig, siginfo_t* info, void*) {
  const pid_t child = g_forward_to.load(std::memory_order_relaxed);
  if (child <= 0) return;
  // A terminal's SIGINT/SIGQUIT (si_code SI_KERNEL) already went to the child's process group.
  if ((sig == SIGINT || sig == SIGQUIT) && info != nullptr && info->si_code == SI_KERNEL) return;
  const int saved = errno;
  kill(child, sig);
  errno = saved;
}

}  // namespace

SpawnResult SpawnCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env,
                         const std::function<void(pid_t)>& before_exec) {
  SpawnResult result;
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = absl::StrCat("pipe: ", strerror(errno));
    return result;
  }
  int go_fds[2] = {-1, -1};  // the parent's "go" after before_exec
  if (before_exec && pipe2(go_fds, O_CLOEXEC) != 0) {
    result.error = absl::StrCat("pipe: ", strerror(errno));
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = absl::StrCat("fork: ", strerror(errno));
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (go_fds[0] >= 0) close(go_fds[0]), close(go_fds[1]);
    return result;
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    if (go_fds[0] >= 0) {
      close(go_fds[1]);
      char go = 0;
      while (read(go_fds[0], &go, 1) < 0 && errno == EINTR) {
      }
      close(go_fds[0]);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvpe(args[0], args.data(), envp.data());
    const int err = errno;
    (void)!write(pipe_fds[1], &err, sizeof(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  close(pipe_fds[1]);
  if (go_fds[0] >= 0) {
    close(go_fds[0]);
    before_exec(pid);
    const char go = 1;
    (void)!write(go_fds[1], &go, 1);
    close(go_fds[1]);
  }
  int err = 0;
  ssize_t got;
  do {
    got = read(pipe_fds[0], &err, sizeof(err));
  } while (got < 0 && errno == EINTR);
  close(pipe_fds[0]);
  if (got == static_cast<ssize_t>(sizeof(err))) {
    WaitForChild(pid);
    result.exec_errno = err;
    result.shell_exit_code = err == ENOENT ? 127 : 126;
    result.error = err == ENOENT ? absl::StrCat(argv[0], ": command not found")
                                 : absl::StrCat(argv[0], ": ", strerror(err));
    return result;
  }
  result.pid = pid;
  return result;
}

int WaitForChild(pid_t pid) {
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, 0);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return -1;
  }
}

int ShellExitCode(int wait_status) {
  if (wait_status < 0) return 1;
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

void ForwardSignalsTo(pid_t child) {
  g_forward_to.store(child, std::memory_order_relaxed);
  struct sigaction action {};
  action.sa_sigaction = ForwardHandler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (const int sig : kForwarded) sigaction(sig, &action, nullptr);
}

void StopForwardingSignals() {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (const int sig : kForwarded) sigaction(sig, &action, nullptr);
  g_forward_to.store(0, std::memory_order_relaxed);
}

}  // namespace brrr::cli
