// Replaces a file's contents atomically: the bytes go to a new temporary file in the same
// directory (O_CREAT|O_EXCL, mode 0600 enforced with fchmod whatever the umask), are fsync'ed, and
// the temporary file is renamed over the destination. Readers see the old file or the new one,
// never a partial one.
//
// Must never: leave the temporary file behind on failure; follow or truncate an existing file in
// place; create a file other users can read.
#ifndef BRRR_VIEWER_FORMAT_ATOMIC_FILE_H_
#define BRRR_VIEWER_FORMAT_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace brrr {

enum class Replace { kYes, kNo };

// Replace::kNo: an existing file at `path` is kept and the error is AlreadyExists (the rename
// is renameat2's RENAME_NOREPLACE, or link + unlink where the filesystem lacks it).
absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes,
                                 Replace replace = Replace::kYes);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_ATOMIC_FILE_H_
