// A shared-memory segment mapped into the collector: owns the mapping (munmap on destruction).
// Opening an existing segment maps it read-write (the reader stores read_index, frees retired
// rings and sets collector_done) but says nothing about its contents: those are validated by the
// SegmentReader.
//
// Thread-safety: immutable after construction; the mapped bytes are shared with another process.
// Must never: trust the segment's size as written inside it (the file's real size bounds access).
#ifndef BRRR_COLLECTOR_INGEST_SHM_MAPPING_H_
#define BRRR_COLLECTOR_INGEST_SHM_MAPPING_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace brrr::ingest {

class ShmMapping {
 public:
  // Maps `size` bytes of an open shared-memory fd read-write. Does not take the fd.
  static absl::StatusOr<std::unique_ptr<ShmMapping>> MapFd(int fd, uint64_t size,
                                                           const std::string& name);
  // shm_open()s an existing segment by name ("/brrr-..."), read-write, and maps all of it.
  static absl::StatusOr<std::unique_ptr<ShmMapping>> OpenExisting(const std::string& name);

  ~ShmMapping();
  ShmMapping(const ShmMapping&) = delete;
  ShmMapping& operator=(const ShmMapping&) = delete;

  void* base() const { return base_; }
  uint64_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  ShmMapping(void* base, uint64_t size, std::string name)
      : base_(base), size_(size), name_(std::move(name)) {}

  void* base_;
  uint64_t size_;
  std::string name_;
};

// True when `name` is a plausible shm name: starts with '/', no other '/', 2..250 bytes.
bool IsValidShmName(const std::string& name);

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_SHM_MAPPING_H_
