// Choosing and writing a report's file. See report_path.h.
#include "collector/cli/report_path.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collector/cli/output_path.h"
#include "viewer/format/brrr_file.h"

namespace brrr::cli {
namespace {

constexpr int kMaxSiblings = 1000;

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0 || errno != ENOENT; }

// 0 when a file can be created in the directory of `path` (a temporary one, removed at once).
int ProbeDirectory(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string probe = slash == std::string::npos ? std::string(".") : path.substr(0, slash + 1);
  if (probe.empty()) probe = "/";
  if (probe.back() != '/') probe += '/';
  probe += ".brrr-probe-XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0) return errno;
  close(fd);
  unlink(probe.c_str());
  return 0;
}

// `wanted` or its first free sibling, in a writable directory; else the errno.
absl::StatusOr<std::string> FreeNameIn(const std::string& wanted) {
  if (const int error = ProbeDirectory(wanted); error != 0) {
    return absl::PermissionDeniedError(std::strerror(error));
  }
  for (int n = 0; n <= kMaxSiblings; ++n) {
    const std::string candidate = n == 0 ? wanted : NumberedSibling(wanted, n);
    if (!Exists(candidate)) return candidate;
  }
  return absl::AlreadyExistsError(absl::StrCat(kMaxSiblings, " numbered siblings exist already"));
}

}  // namespace

std::string NumberedSibling(const std::string& path, int n) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)) {
    return absl::StrCat(path.substr(0, dot), "-", n, path.substr(dot));
  }
  return absl::StrCat(path, "-", n);
}

absl::StatusOr<ClaimedPath> ClaimReportPath(const std::string& wanted, pid_t pid) {
  auto chosen = FreeNameIn(wanted);
  if (chosen.ok()) {
    ClaimedPath out{*chosen, ""};
    if (*chosen != wanted) {
      out.note = absl::StrCat(wanted, " exists already (kept); this report goes to ", *chosen);
    }
    return out;
  }
  const std::string why = std::string(chosen.status().message());
  const std::string base = ExpandOutputPattern(kDefaultOutputPattern, pid);
  const char* tmp = std::getenv("TMPDIR");
  for (const std::string& fallback :
       {base, absl::StrCat(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp", "/", base)}) {
    if (fallback == wanted) continue;
    if (auto other = FreeNameIn(fallback); other.ok()) {
      return ClaimedPath{*other, absl::StrCat("cannot write ", wanted, " (", why,
                                              "); the report goes to ", *other)};
    }
  }
  return absl::UnavailableError(
      absl::StrCat("cannot write ", wanted, " (", why, ") nor anywhere else"));
}

absl::Status ReportDestination::Write(const Report& report, const Trace* trace,
                                      std::string* moved) {
  if (written_) return WriteBrrrFile(path_, report, trace, Replace::kYes);
  const std::string first = path_;
  for (int n = 1; n <= kMaxSiblings; ++n) {
    const absl::Status s = WriteBrrrFile(path_, report, trace, Replace::kNo);
    if (!absl::IsAlreadyExists(s)) {
      written_ = s.ok();
      if (s.ok() && moved != nullptr && path_ != first) {
        *moved = absl::StrCat(first, " was written meanwhile (kept); this report goes to ", path_);
      }
      return s;
    }
    path_ = NumberedSibling(first, n);
  }
  return absl::AlreadyExistsError(absl::StrCat(first, " and its numbered siblings exist already"));
}

}  // namespace brrr::cli
