// Starting and waiting for the profiled command, as a shell would: PATH search, exit status 127
// for "not found" and 126 for "cannot execute", 128+N for death by signal N. And forwarding of
// termination signals to it while brrr waits.
//
// Thread-safety: SpawnCommand must be called while the process has a single thread (fork).
// Must never: run anything but async-signal-safe code between fork and exec.
#ifndef BRRR_COLLECTOR_CLI_CHILD_PROCESS_H_
#define BRRR_COLLECTOR_CLI_CHILD_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace brrr::cli {

struct SpawnResult {
  pid_t pid = -1;           // > 0 when the command started
  int exec_errno = 0;       // errno of a failed exec (the child has exited and been reaped)
  int shell_exit_code = 0;  // 127 / 126 when exec failed
  std::string error;        // "CMD: command not found" etc.
};

// fork + execvpe(argv[0], argv, env). Reports exec failures through a close-on-exec pipe. With
// `before_exec`, the child waits (on a second pipe) until the parent has run before_exec(pid):
// what the parent sets up for the child's pid is in place before the child's first instruction.
SpawnResult SpawnCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::function<void(pid_t)>& before_exec = nullptr);

// waitpid, retried on EINTR. Returns the raw wait status, or -1 on error.
int WaitForChild(pid_t pid);

// The status a shell reports: exit code, or 128 + signal.
int ShellExitCode(int wait_status);

// From now on SIGTERM and SIGHUP reach `child`, and so do SIGINT and SIGQUIT when another process
// sent them (a terminal's Ctrl-C already reaches the whole foreground group, the child included);
// brrr itself is not stopped by them.
void ForwardSignalsTo(pid_t child);
// Restores the default dispositions.
void StopForwardingSignals();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_CHILD_PROCESS_H_
