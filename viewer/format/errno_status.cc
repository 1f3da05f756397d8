// errno -> absl::Status with the path and the failing step in the message.
//
// Must never: call the non-thread-safe strerror (it uses strerror_r).
#include "viewer/format/errno_status.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace brrr {
namespace {

absl::StatusCode CodeFor(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::StatusCode::kNotFound;
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::StatusCode::kPermissionDenied;
    case EEXIST:
      return absl::StatusCode::kAlreadyExists;
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return absl::StatusCode::kResourceExhausted;
    case EINVAL:
    case EISDIR:
    case ENAMETOOLONG:
      return absl::StatusCode::kInvalidArgument;
    default:
      return absl::StatusCode::kInternal;
  }
}

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r returns a pointer that may or may not be `buf`.
  const char* text = strerror_r(err, buf, sizeof(buf));
  return text != nullptr ? std::string(text) : absl::StrCat("errno ", err);
}

}  // namespace

absl::Status ErrnoStatus(int err, absl::string_view path, absl::string_view what) {
  return absl::Status(CodeFor(err), absl::StrCat(path, ": ", what, ": ", ErrnoText(err)));
}

}  // namespace brrr
