// Claiming a report's file. See report_path.h.
#include "collector/cli/report_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "collector/cli/output_path.h"

namespace brrr::cli {
namespace {

constexpr int kMaxSiblings = 1000;

// NAME.brrr -> NAME-n.brrr; a name without the extension gets "-n" at its end.
std::string Sibling(const std::string& path, int n) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)) {
    return absl::StrCat(path.substr(0, dot), "-", n, path.substr(dot));
  }
  return absl::StrCat(path, "-", n);
}

// Creates `path` exclusively, 0600. 0 on success, else errno.
int CreateExclusive(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return errno;
  fchmod(fd, 0600);  // whatever the umask
  close(fd);
  return 0;
}

// `wanted` or its first free sibling; the errno of the failure that is not EEXIST otherwise.
absl::StatusOr<std::string> ClaimNameOrSibling(const std::string& wanted) {
  for (int n = 0; n <= kMaxSiblings; ++n) {
    const std::string candidate = n == 0 ? wanted : Sibling(wanted, n);
    const int error = CreateExclusive(candidate);
    if (error == 0) return candidate;
    if (error != EEXIST) {
      return absl::Status(absl::StatusCode::kPermissionDenied, std::strerror(error));
    }
  }
  return absl::AlreadyExistsError(absl::StrCat(kMaxSiblings, " numbered siblings exist already"));
}

}  // namespace

absl::StatusOr<ClaimedPath> ClaimReportPath(const std::string& wanted, pid_t pid) {
  auto claimed = ClaimNameOrSibling(wanted);
  if (claimed.ok()) {
    ClaimedPath out{*claimed, ""};
    if (*claimed != wanted) {
      out.note = absl::StrCat(wanted, " exists already (kept); this report goes to ", *claimed);
    }
    return out;
  }
  const std::string why = std::string(claimed.status().message());
  const std::string base = ExpandOutputPattern(kDefaultOutputPattern, pid);
  const char* tmp = std::getenv("TMPDIR");
  for (const std::string& fallback :
       {base, absl::StrCat(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp", "/", base)}) {
    if (fallback == wanted) continue;
    if (auto other = ClaimNameOrSibling(fallback); other.ok()) {
      return ClaimedPath{*other, absl::StrCat("cannot write ", wanted, " (", why,
                                              "); the report goes to ", *other)};
    }
  }
  return absl::UnavailableError(
      absl::StrCat("cannot write ", wanted, " (", why, ") nor anywhere else"));
}

}  // namespace brrr::cli
