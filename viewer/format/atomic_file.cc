// Atomic 0600 file replacement: temp file in the same directory, fchmod, writes, fsync, rename,
// fsync of the directory (best effort).
//
// Must never: leave a temporary file behind on failure, or block forever (no locks, bounded
// retries).
#include "viewer/format/atomic_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "viewer/format/errno_status.h"

namespace brrr {
namespace {

// "dir/name" -> {"dir", "name"}; "name" -> {".", "name"}; "/name" -> {"/", "name"}.
std::pair<std::string, std::string> SplitDirectory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  if (slash == 0) return {"/", path.substr(1)};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

// A name no other writer (thread or process) picks at the same time.
std::string TemporaryName(const std::string& dir, const std::string& base) {
  static std::atomic<uint64_t> counter{0};
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const uint64_t salt =
      static_cast<uint64_t>(now.tv_nsec) ^ (counter.fetch_add(1, std::memory_order_relaxed) << 32);
  return absl::StrCat(dir, "/.", base, ".tmp-", getpid(), "-", absl::Hex(salt));
}

absl::Status WriteAll(int fd, absl::string_view bytes, const std::string& name) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, name, "cannot write");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// Moves `temp` to `path` without ever replacing a file there: 0, or errno (EEXIST when one is).
int RenameNoReplace(const std::string& temp, const std::string& path) {
  if (renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  if (link(temp.c_str(), path.c_str()) != 0) return errno;  // a filesystem without the flag
  unlink(temp.c_str());
  return 0;
}

}  // namespace

namespace {

// ".html" of "out.html"; "" when the name has none (a directory's name, usually).
std::string Extension(const std::string& base) {
  const size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? std::string() : base.substr(dot);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Create(const std::string& path,
                                                                           Replace replace) {
  if (path.empty()) return absl::InvalidArgumentError("cannot write a file with an empty path");
  auto [dir, base] = SplitDirectory(path);
  struct stat existing {};
  if (base.empty() || (stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode))) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory; give a file's name (e.g. ", path,
                     path.back() == '/' ? "" : "/", "report", Extension(base), ")"));
  }
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = TemporaryName(dir, base);
    fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno != EEXIST && errno != EINTR) {
      return ErrnoStatus(errno, temp, "cannot create");
    }
  }
  if (fd < 0) return ErrnoStatus(EEXIST, temp, "cannot create a unique temporary file");
  if (fchmod(fd, 0600) != 0) {  // the umask may have removed bits; never add group/other bits
    const absl::Status status = ErrnoStatus(errno, temp, "cannot set mode 0600");
    close(fd);
    unlink(temp.c_str());
    return status;
  }
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(dir), std::move(temp), fd, replace));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (done_) return;
  close(fd_);
  unlink(temp_.c_str());
}

void AtomicFileWriter::Append(absl::string_view bytes) {
  if (!status_.ok() || done_) return;
  status_ = WriteAll(fd_, bytes, temp_);
  if (status_.ok()) bytes_written_ += bytes.size();
}

absl::Status AtomicFileWriter::Commit() {
  if (done_) return absl::FailedPreconditionError(absl::StrCat(path_, ": already finished"));
  done_ = true;
  absl::Status status = status_;
  if (status.ok() && fsync(fd_) != 0) status = ErrnoStatus(errno, temp_, "cannot fsync");
  if (close(fd_) != 0 && status.ok()) status = ErrnoStatus(errno, temp_, "cannot close");
  if (status.ok() && replace_ == Replace::kYes && rename(temp_.c_str(), path_.c_str()) != 0) {
    status = ErrnoStatus(errno, path_, absl::StrCat("cannot rename ", temp_, " to it"));
  }
  if (status.ok() && replace_ == Replace::kNo) {
    if (const int error = RenameNoReplace(temp_, path_); error == EEXIST) {
      status = absl::AlreadyExistsError(absl::StrCat(path_, ": exists already (kept)"));
    } else if (error != 0) {
      status = ErrnoStatus(error, path_, absl::StrCat("cannot move ", temp_, " to it"));
    }
  }
  if (!status.ok()) {
    unlink(temp_.c_str());
    return status;
  }
  // Make the rename itself durable; failure here does not undo a completed write.
  const int dir_fd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes,
                                 Replace replace) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
      AtomicFileWriter::Create(path, replace);
  if (!writer.ok()) return writer.status();
  (*writer)->Append(bytes);
  return (*writer)->Commit();
}

}  // namespace brrr
