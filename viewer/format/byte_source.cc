// MemoryByteSource and FileByteSource (pread on a regular file).
//
// Must never: read past size(), or loop forever on a file that shrinks while it is read.
#include "viewer/format/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "viewer/format/errno_status.h"

namespace brrr {

absl::Status MemoryByteSource::ReadAt(uint64_t offset, size_t n, std::string& out) {
  if (offset > bytes_.size() || n > bytes_.size() - offset) {
    return absl::OutOfRangeError(absl::StrCat("read of ", n, " bytes at ", offset,
                                              " past the end (", bytes_.size(), " bytes)"));
  }
  out.assign(bytes_.data() + offset, n);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FileByteSource>> FileByteSource::Open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, path, "cannot open");
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoStatus(err, path, "cannot stat");
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  return std::unique_ptr<FileByteSource>(
      new FileByteSource(fd, static_cast<uint64_t>(st.st_size), path));
}

FileByteSource::~FileByteSource() { close(fd_); }

absl::Status FileByteSource::ReadAt(uint64_t offset, size_t n, std::string& out) {
  if (offset > size_ || n > size_ - offset) {
    return absl::OutOfRangeError(absl::StrCat(path_, ": read of ", n, " bytes at byte ", offset,
                                              " past the end (", size_, " bytes)"));
  }
  out.resize(n);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = pread(fd_, out.data() + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, path_, "cannot read");
    }
    if (got == 0) {
      return absl::DataLossError(absl::StrCat(path_, ": truncated at byte ", offset + done,
                                              " while reading (the file ",
                                              "shrank after it was opened)"));
    }
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

}  // namespace brrr
