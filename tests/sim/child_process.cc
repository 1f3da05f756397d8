// Implements RunChild with posix_spawn (safe in a process whose CUDA threads are running), pipes
// for stdout/stderr and poll for the deadline. Must never kill anything but its own child.
#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "host_clock.h"

extern char** environ;

namespace brrr::simtest {
namespace {

std::vector<std::string> MergedEnvironment(
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string line = *entry;
    bool replaced = false;
    for (const auto& [name, value] : env) {
      if (line.rfind(name + "=", 0) == 0) replaced = true;
    }
    if (!replaced) merged.push_back(line);
  }
  for (const auto& [name, value] : env) merged.push_back(name + "=" + value);
  return merged;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::string ChildResult::Describe() const {
  std::string how;
  if (!started) {
    how = "did not start";
  } else if (timed_out) {
    how = "timed out (killed)";
  } else if (exited) {
    how = "exited with " + std::to_string(exit_code);
  } else {
    how =
        std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  return how + "; stderr: [" + err + "]; stdout: [" + out + "]";
}

ChildResult RunChild(const std::vector<std::string>& argv,
                     const std::vector<std::pair<std::string, std::string>>& env,
                     std::chrono::milliseconds timeout) {
  ChildResult result;
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

  std::vector<std::string> args = argv;
  std::vector<std::string> environment = MergedEnvironment(env);
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_env = CStrings(environment);
  pid_t pid = -1;
  const int spawn_error =
      posix_spawn(&pid, c_args[0], &actions, nullptr, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawn_error != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = std::string("posix_spawn: ") + strerror(spawn_error);
    return result;
  }
  result.started = true;

  const uint64_t deadline = MonotonicNs() + static_cast<uint64_t>(timeout.count()) * kMillisecond;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_pipes = 2;
  while (open_pipes > 0) {
    const uint64_t now = MonotonicNs();
    if (now >= deadline) {
      result.timed_out = true;
      break;
    }
    const int wait_ms = static_cast<int>((deadline - now) / kMillisecond) + 1;
    const int ready = poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char chunk[4096];
      const ssize_t n = read(fds[i].fd, chunk, sizeof(chunk));
      if (n > 0) {
        sinks[i]->append(chunk, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }

  int status = 0;
  if (result.timed_out) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return result;
  }
  // The pipes closed: the child is exiting (or closed them itself); give it until the deadline.
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return result;
    if (MonotonicNs() >= deadline) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return result;
    }
    usleep(1000);
  }
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace brrr::simtest
