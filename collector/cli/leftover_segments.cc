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
#include "absl/strings/str_format.h"
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

std::vector<LeftoverSegment> FindLeftoverSegments(const LeftoverScan& scan) {
  std::vector<LeftoverSegment> found;
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
    const time_t age = now - st.st_ctime;
    if (age < scan.min_age.count()) continue;
    const pid_t app = static_cast<pid_t>(header.pid);
    if (alive(creator) || (app != 0 && alive(app))) continue;
    LeftoverSegment& s = found.emplace_back();
    s.path = path;
    s.bytes = static_cast<uint64_t>(st.st_blocks) * 512;
    s.app = app;
    s.collected = header.collector_done.load(std::memory_order_relaxed) != 0;
    s.removable = s.collected || age >= scan.uncollected_keep.count();
  }
  closedir(d);
  return found;
}

LeftoverCleanup RemoveLeftoverSegments(const LeftoverScan& scan) {
  LeftoverCleanup out;
  for (const LeftoverSegment& s : FindLeftoverSegments(scan)) {
    if (s.removable) {
      if (unlink(s.path.c_str()) == 0) {
        ++out.removed;
        out.removed_bytes += s.bytes;
      }
      continue;
    }
    ++out.kept;
    out.kept_bytes += s.bytes;
    if (out.kept_name.empty()) {
      out.kept_name = s.path.substr(s.path.rfind('/'));
      out.kept_app = s.app;
    }
  }
  return out;
}

namespace {

std::string MiB(uint64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

std::string DescribeCleanup(const LeftoverCleanup& c) {
  std::string out;
  if (c.removed > 0) {
    absl::StrAppend(&out, "removed ", c.removed, " leftover shared-memory segment",
                    c.removed == 1 ? "" : "s", " (", MiB(c.removed_bytes),
                    " of /dev/shm) of runs whose processes are gone\n");
  }
  if (c.kept > 0) {
    absl::StrAppend(
        &out, c.kept, " segment", c.kept == 1 ? "" : "s",
        " of runs whose collector died before writing the report ", c.kept == 1 ? "holds " : "hold ",
        MiB(c.kept_bytes), " of /dev/shm; kept for recovery (`brrr attach --shm ", c.kept_name,
        " --pid ", c.kept_app, "`", c.kept == 1 ? "" : " recovers one",
        ") until `brrr clean` or 7 days\n");
  }
  return out;
}

LeftoverScan DefaultLeftoverScan() {
  LeftoverScan scan;
  scan.uid = geteuid();
  return scan;
}

}  // namespace brrr::cli
