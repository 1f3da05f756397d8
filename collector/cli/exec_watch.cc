// Watching for an exec. See exec_watch.h.
#include "collector/cli/exec_watch.h"

#include <fstream>
#include <optional>

#include "absl/strings/str_cat.h"

namespace brrr::cli {

std::optional<bool> MapsListSegment(std::istream& maps, const std::string& shm_name) {
  const std::string path = "/dev/shm" + shm_name;  // glibc's shm_open lives in /dev/shm
  bool any_mapping = false;
  for (std::string line; std::getline(maps, line);) {
    any_mapping = any_mapping || !line.empty();
    const size_t at = line.find(path);
    // The path ends the line, or is followed by " (deleted)" once the name is unlinked.
    if (at != std::string::npos &&
        (at + path.size() == line.size() || line[at + path.size()] == ' ')) {
      return true;
    }
  }
  // No mapping at all: a process whose memory is already gone (it is exiting, and /proc says
  // "running" until it is a zombie) or not set up yet (mid-exec). Neither says "another program".
  if (!any_mapping) return std::nullopt;
  return false;
}

std::optional<bool> ProcessMapsSegment(pid_t pid, const std::string& shm_name) {
  std::ifstream maps(absl::StrCat("/proc/", pid, "/maps"));
  if (!maps.is_open()) return std::nullopt;
  return MapsListSegment(maps, shm_name);
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
  // An exited process (a zombie until its parent reaps it) has no maps either (nullopt above);
  // checked again here, in case a zombie's maps ever read otherwise.
  std::ifstream stat_file(absl::StrCat("/proc/", pid_, "/stat"));
  std::string stat;
  std::getline(stat_file, stat);
  const size_t paren = stat.rfind(')');
  const char state = paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : 0;
  execed_ = state != 0 && state != 'Z' && state != 'X';
  return execed_;
}

}  // namespace brrr::cli
