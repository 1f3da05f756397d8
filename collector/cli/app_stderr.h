// Where `brrr attach`, started by the shim with its own fds 0-2 on /dev/null, prints: the app's
// stderr, reopened through /proc/PID/fd/2 for each message and closed right after, and only while
// it is still the file the app started with (the shim passes its device and inode, --stderr
// DEV:INO). So the collector never holds the app's stdio (a reader of the app's stderr sees EOF
// as soon as the app closes it), and never writes into a data file the app reopened on fd 2.
// A terminal is the exception: no reader waits for its EOF, so it is kept from the start and the
// report reaches it even when the app was killed before the collector finished. So is a socket
// (systemd's journal): /proc/PID/fd/2 cannot open one, so the shim leaves it on the collector's
// own fd 2 (shim/collector_launcher.cc), which is kept when it is the file the app started with.
// Without --stderr (a user running `brrr attach` by hand) it prints to its own stderr.
//
// Thread-safety: one thread (the collector's main thread) prints.
// Must never: keep the app's stderr open between messages, or print into a file that is not the
// one the app started with.
#ifndef BRRR_COLLECTOR_CLI_APP_STDERR_H_
#define BRRR_COLLECTOR_CLI_APP_STDERR_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace brrr::cli {

struct FileIdentity {
  uint64_t dev = 0;
  uint64_t ino = 0;
};

// The --stderr value: "DEV:INO", or "none" (the app started with fd 2 closed: print nowhere).
absl::StatusOr<std::optional<FileIdentity>> ParseStderrIdentity(const std::string& text);

class AppStderr {
 public:
  // `identity` unset: print to our own stderr. Set to nullopt: the app had none; print nowhere.
  // Call while the app lives (a terminal is kept from here on).
  AppStderr(pid_t app_pid, std::optional<std::optional<FileIdentity>> identity);
  ~AppStderr();
  AppStderr(const AppStderr&) = delete;
  AppStderr& operator=(const AppStderr&) = delete;

  // Runs `print` (which writes to stderr) with fd 2 on the app's stderr when that is still the
  // file it started with, else on /dev/null. True when it reached the app's stderr.
  bool Print(const std::function<void()>& print) const;

 private:
  // The app's fd 2 reopened, when it is still the file it started with; -1 otherwise.
  int OpenAppStderr() const;

  pid_t app_pid_;
  std::optional<std::optional<FileIdentity>> identity_;
  int terminal_ = -1;  // the app's stderr when it is a terminal or a socket: kept
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_APP_STDERR_H_
