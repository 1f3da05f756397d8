// Leftover segments. See leftover_segments.h.
#include "collector/cli/leftover_segments.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <ctime>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "shim/ring_format.h"

namespace brrr::cli {
namespace {

bool Alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

// "brrr-<pid>-<hex>" -> pid; 0 when the name is not of that form.
pid_t CreatorOf(const std::string& name) {
  const std::vector<std::string> parts = absl::StrSplit(name, '-');
  if (parts.size() != 3 || parts[0] != "brrr" || parts[2].empty()) return 0;
  for (char c : parts[2]) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return 0;
  }
  uint32_t pid = 0;
  if (!absl::SimpleAtoi(parts[1], &pid) || pid == 0 || parts[1][0] == '+') return 0;
  return static_cast<pid_t>(pid);
}

}  // namespace

LeftoverScan DefaultLeftoverScan() {
  LeftoverScan scan;
  scan.uid = geteuid();
  return scan;
}

std::vector<std::string> FindLeftoverSegments(const LeftoverScan& scan) {
  std::vector<std::string> found;
  DIR* d = opendir(scan.dir.c_str());
  if (d == nullptr) return found;
  const auto alive = scan.alive ? scan.alive : std::function<bool(pid_t)>(&Alive);
  const time_t now = time(nullptr);
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    const pid_t creator = CreatorOf(name);
    if (creator == 0 || "/" + name == scan.keep) continue;
    const std::string path = absl::StrCat(scan.dir, "/", name);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    ring::SegmentHeader header{};
    const bool readable =
        fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == scan.uid &&
        static_cast<size_t>(st.st_size) >= sizeof(header) &&
        pread(fd, &header, sizeof(header), 0) == static_cast<ssize_t>(sizeof(header));
    close(fd);
    if (!readable || header.magic != ring::kMagic) continue;
    if (now - st.st_ctime < scan.min_age.count()) continue;
    const pid_t app = static_cast<pid_t>(header.pid);
    if (alive(creator) || (app != 0 && alive(app))) continue;
    found.push_back(path);
  }
  closedir(d);
  return found;
}

size_t RemoveLeftoverSegments(const LeftoverScan& scan) {
  size_t removed = 0;
  for (const std::string& path : FindLeftoverSegments(scan)) {
    if (unlink(path.c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace brrr::cli
