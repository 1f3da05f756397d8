// Turns a failed system call's errno into an absl::Status whose message names the file and the
// step that failed, e.g. "/tmp/x.brrr: cannot open: No such file or directory".
//
// Must never: lose the errno text or the path; callers pass errno right after the failing call.
#ifndef BRRR_VIEWER_FORMAT_ERRNO_STATUS_H_
#define BRRR_VIEWER_FORMAT_ERRNO_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace brrr {

absl::Status ErrnoStatus(int err, absl::string_view path, absl::string_view what);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_ERRNO_STATUS_H_
