// Watching for an exec. See exec_watch.h.
#include "collector/cli/exec_watch.h"

#include <fstream>
#include <optional>

#include "absl/strings/str_cat.h"

namespace brrr::cli {

std::optional<bool> ProcessMapsSegment(pid_t pid, const std::string& shm_name) {
  std::ifstream maps(absl::StrCat("/proc/", pid, "/maps"));
  if (!maps.is_open()) return std::nullopt;
  const std::string path = "/dev/shm" + shm_name;  // glibc's shm_open lives in /dev/shm
  for (std::string line; std::getline(maps, line);) {
    const size_t at = line.find(path);
    // The path ends the line, or is followed by " (deleted)" once the name is unlinked.
    if (at != std::string::npos &&
        (at + path.size() == line.size() || line[at + path.size()] == ' ')) {
      return true;
    }
  }
  return false;
}

ExecWatch::ExecWatch(pid_t pid, std::string shm_name, std::chrono::milliseconds period)
    : pid_(pid), shm_name_(std::move(shm_name)), period_(period),
      next_(std::chrono::steady_clock::now()) {}

bool ExecWatch::Execed() {
  if (execed_) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_) return false;
  next_ = now + period_;
  // The shim maps the segment before it starts the collector and never unmaps it: a live process
  // (its maps readable) without the mapping runs another program. A process that is gone has no
  // maps to read, and one whose maps cannot be read says nothing.
  const std::optional<bool> maps = ProcessMapsSegment(pid_, shm_name_);
  if (!maps.has_value() || *maps) return false;
  // An exited process (a zombie until its parent reaps it) has empty maps too: it did not exec.
  std::ifstream stat_file(absl::StrCat("/proc/", pid_, "/stat"));
  std::string stat;
  std::getline(stat_file, stat);
  const size_t paren = stat.rfind(')');
  const char state = paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : 0;
  execed_ = state != 0 && state != 'Z' && state != 'X';
  return execed_;
}

}  // namespace brrr::cli
