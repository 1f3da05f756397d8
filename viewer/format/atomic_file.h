// Replaces a file's contents atomically: the bytes go to a new temporary file in the same
// directory (O_CREAT|O_EXCL, mode 0600 enforced with fchmod whatever the umask), are fsync'ed, and
// the temporary file is renamed over the destination. Readers see the old file or the new one,
// never a partial one. All at once (WriteFileAtomically), or piece by piece (AtomicFileWriter: an
// output written as it is made, never whole in memory).
//
// Must never: leave the temporary file behind on failure; follow or truncate an existing file in
// place; create a file other users can read.
#ifndef BRRR_VIEWER_FORMAT_ATOMIC_FILE_H_
#define BRRR_VIEWER_FORMAT_ATOMIC_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "viewer/format/byte_sink.h"

namespace brrr {

enum class Replace { kYes, kNo };

// Replace::kNo: an existing file at `path` is kept and the error is AlreadyExists (the rename
// is renameat2's RENAME_NOREPLACE, or link + unlink where the filesystem lacks it).
absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes,
                                 Replace replace = Replace::kYes);

// The temporary file, open for appending; Commit() puts it in place. Destroyed without a
// successful Commit(), it removes the temporary file and `path` is as it was.
class AtomicFileWriter final : public ByteSink {
 public:
  static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Create(const std::string& path,
                                                                  Replace replace = Replace::kYes);
  ~AtomicFileWriter() override;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // Writes at once (no buffer of its own: callers append pieces of a useful size). After an
  // error, nothing more is written; Commit() returns that error.
  void Append(absl::string_view bytes) override;
  // fsync, close and rename (as `replace` says); on any error the temporary file is removed.
  absl::Status Commit();
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  AtomicFileWriter(std::string path, std::string dir, std::string temp, int fd, Replace replace)
      : path_(std::move(path)),
        dir_(std::move(dir)),
        temp_(std::move(temp)),
        fd_(fd),
        replace_(replace) {}

  std::string path_, dir_, temp_;
  int fd_;
  Replace replace_;
  absl::Status status_;
  uint64_t bytes_written_ = 0;
  bool done_ = false;  // committed or failed: the temporary file is gone or renamed
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_ATOMIC_FILE_H_
