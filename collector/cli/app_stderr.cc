// Printing to the app's stderr only while it is the app's. See app_stderr.h.
#include "collector/cli/app_stderr.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace brrr::cli {

absl::StatusOr<std::optional<FileIdentity>> ParseStderrIdentity(const std::string& text) {
  if (text == "none") return std::optional<FileIdentity>();
  const std::vector<std::string> parts = absl::StrSplit(text, ':');
  FileIdentity id;
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty() || parts[0][0] == '-' ||
      parts[1][0] == '-' || parts[0][0] == '+' || parts[1][0] == '+' ||
      !absl::SimpleAtoi(parts[0], &id.dev) || !absl::SimpleAtoi(parts[1], &id.ino)) {
    return absl::InvalidArgumentError(absl::StrCat("--stderr: '", text, "' is not DEV:INO or none"));
  }
  return std::optional<FileIdentity>(id);
}

AppStderr::AppStderr(pid_t app_pid, std::optional<std::optional<FileIdentity>> identity)
    : app_pid_(app_pid), identity_(identity) {
  if (identity_.has_value() && identity_->has_value()) {
    // The app's socket, left on our fd 2 by the shim: kept, and fd 2 goes back to /dev/null.
    struct stat st {};
    if (fstat(STDERR_FILENO, &st) == 0 && S_ISSOCK(st.st_mode) &&
        st.st_dev == (*identity_)->dev && st.st_ino == (*identity_)->ino) {
      terminal_ = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
      const int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (devnull >= 0) {
        dup2(devnull, STDERR_FILENO);
        close(devnull);
      }
      if (terminal_ >= 0) return;
    }
  }
  const int fd = OpenAppStderr();
  if (fd >= 0 && isatty(fd)) {
    terminal_ = fd;
  } else if (fd >= 0) {
    close(fd);
  }
}

AppStderr::~AppStderr() {
  if (terminal_ >= 0) close(terminal_);
}

int AppStderr::OpenAppStderr() const {
  if (!identity_.has_value() || !identity_->has_value()) return -1;
  const std::string path = absl::StrCat("/proc/", app_pid_, "/fd/2");
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != (*identity_)->dev ||
                  st.st_ino != (*identity_)->ino)) {
    close(fd);  // fd 2 is now another file: a data file of the app's, never ours to write
    return -1;
  }
  return fd;
}

bool AppStderr::Print(const std::function<void()>& print) const {
  if (!identity_.has_value()) {  // run by hand: our own stderr
    print();
    std::fflush(stderr);
    return true;
  }
  int fd = terminal_ >= 0 ? dup(terminal_) : OpenAppStderr();
  const int devnull = fd >= 0 ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC);
  std::fflush(stderr);
  dup2(fd >= 0 ? fd : devnull, STDERR_FILENO);
  print();
  std::fflush(stderr);
  const int back = open("/dev/null", O_WRONLY | O_CLOEXEC);  // hold nothing of the app's
  if (back >= 0) {
    dup2(back, STDERR_FILENO);
    close(back);
  }
  if (fd >= 0) close(fd);
  if (devnull >= 0) close(devnull);
  return fd >= 0;
}

}  // namespace brrr::cli
