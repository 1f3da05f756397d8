// See unprofiled_notes.h.
#include "collector/cli/unprofiled_notes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "collector/analysis/regime.h"
#include "collector/cli/job_directory.h"

namespace brrr::cli {
namespace {

// A note's text: at most kMaxUnprofiledNoteBytes, control characters as spaces, trimmed.
std::string ReadNote(int dir_fd, const char* name) {
  const int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return "";
  struct stat st {};
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
    char buf[kMaxUnprofiledNoteBytes];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) text.assign(buf, static_cast<size_t>(n));
  }
  close(fd);
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::vector<std::string> ReadUnprofiledNotes(const std::string& job_dir) {
  std::vector<std::string> names;
  DIR* d = opendir(job_dir.c_str());
  if (d == nullptr) return {};
  while (const dirent* e = readdir(d)) {
    if (absl::StartsWith(e->d_name, kUnprofiledNotePrefix)) names.emplace_back(e->d_name);
  }
  std::sort(names.begin(), names.end());
  if (names.size() > kMaxUnprofiledNotes) names.resize(kMaxUnprofiledNotes);
  std::vector<std::string> reasons;
  for (const std::string& name : names) {
    std::string why = ReadNote(dirfd(d), name.c_str());
    reasons.push_back(why.empty() ? std::string("not profiled (no reason given)") : std::move(why));
  }
  closedir(d);
  return reasons;
}

void NoteUnprofiledProcesses(const std::vector<std::string>& reasons, Report& report) {
  if (reasons.empty()) return;
  if (!report.coverage.has_value()) report.coverage.emplace();
  Coverage& c = *report.coverage;
  for (const std::string& why : reasons) {
    c.gaps.push_back(absl::StrCat("a process ran unprofiled, in no figure: ", why));
  }
  c.complete = false;
  if (report.verdict.regime == RegimeName(Regime::kNoCudaWork)) {
    report.verdict.regime = std::string(RegimeName(Regime::kUnprofiled));
    report.verdict.why = absl::StrCat(
        reasons.size() == 1 ? "a process" : absl::StrCat(reasons.size(), " processes"),
        " ran unprofiled (", reasons.front(),
        "): whatever CUDA work it did is not in this report; no profiled process used CUDA");
    report.verdict.advice.clear();
  }
}

}  // namespace brrr::cli
