// Mapping of shared-memory segments. See shm_mapping.h.
//
// Must never: leak an fd or a mapping on an error path.
#include "collector/ingest/shm_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shim/ring_format.h"
#include "shim/segment_layout.h"

namespace brrr::ingest {

bool IsValidShmName(const std::string& name) {
  if (name.size() < 2 || name.size() > 250 || name[0] != '/') return false;
  return name.find('/', 1) == std::string::npos && name.find('\0') == std::string::npos;
}

absl::StatusOr<std::unique_ptr<ShmMapping>> ShmMapping::MapFd(int fd, uint64_t size,
                                                              const std::string& name) {
  if (size == 0) return absl::InvalidArgumentError(absl::StrCat(name, ": empty segment"));
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    return absl::InternalError(absl::StrCat(name, ": mmap: ", strerror(errno)));
  }
  return std::unique_ptr<ShmMapping>(new ShmMapping(base, size, name));
}

absl::StatusOr<std::unique_ptr<ShmMapping>> ShmMapping::OpenExisting(const std::string& name) {
  if (!IsValidShmName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "' is not a shared-memory name (expected /name)"));
  }
  const int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(name, ": shm_open: ", strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return absl::InternalError(absl::StrCat(name, ": fstat: ", strerror(err)));
  }
  if (st.st_size < static_cast<off_t>(ring::kSegmentHeaderSize) ||
      static_cast<uint64_t>(st.st_size) > ring::kMaxSegmentBytes) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": size ", st.st_size, " is not a brrr segment's"));
  }
  auto mapping = MapFd(fd, static_cast<uint64_t>(st.st_size), name);
  close(fd);
  return mapping;
}

ShmMapping::~ShmMapping() {
  if (base_ != nullptr) munmap(base_, size_);
}

}  // namespace brrr::ingest
