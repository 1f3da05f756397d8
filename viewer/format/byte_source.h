// Random-access read-only bytes for the .brrr reader: either a buffer in memory or an open file
// read with pread. Lets the reader skip large unknown sections of a file without reading them.
//
// Thread safety: a ByteSource is not shared between threads.
// Must never: read past size(); allocate more than the caller asked for.
#ifndef BRRR_VIEWER_FORMAT_BYTE_SOURCE_H_
#define BRRR_VIEWER_FORMAT_BYTE_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace brrr {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly `n` bytes at `offset` into `out` (replacing its contents). The caller guarantees
  // offset + n <= size(); a short read (file shrank) is an error.
  virtual absl::Status ReadAt(uint64_t offset, size_t n, std::string& out) = 0;
};

class MemoryByteSource final : public ByteSource {
 public:
  explicit MemoryByteSource(absl::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  absl::Status ReadAt(uint64_t offset, size_t n, std::string& out) override;

 private:
  absl::string_view bytes_;
};

class FileByteSource final : public ByteSource {
 public:
  // Opens `path` read-only; it must be a regular file.
  static absl::StatusOr<std::unique_ptr<FileByteSource>> Open(const std::string& path);
  ~FileByteSource() override;
  FileByteSource(const FileByteSource&) = delete;
  FileByteSource& operator=(const FileByteSource&) = delete;

  uint64_t size() const override { return size_; }
  absl::Status ReadAt(uint64_t offset, size_t n, std::string& out) override;

 private:
  FileByteSource(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  int fd_;
  uint64_t size_;
  std::string path_;
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_BYTE_SOURCE_H_
