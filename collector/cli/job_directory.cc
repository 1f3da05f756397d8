// The job directory of `brrr run`. See job_directory.h.
//
// Must never: block on a lock (LOCK_NB, polled against the deadline), or trust a name in the
// directory that is not "<digits>.lock" / "<digits>.brrr" / "<digits>.live".
#include "collector/cli/job_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace brrr::cli {
namespace {

bool IsDirectory(const char* path) {
  struct stat st {};
  return path != nullptr && path[0] == '/' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// "<digits><suffix>" -> pid; 0 otherwise.
uint32_t PidOf(absl::string_view name, absl::string_view suffix) {
  if (!absl::EndsWith(name, suffix)) return 0;
  name.remove_suffix(suffix.size());
  if (name.empty() || name.size() > 10) return 0;
  uint32_t pid = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return 0;
  }
  return absl::SimpleAtoi(name, &pid) ? pid : 0;
}

struct Listing {
  std::map<uint32_t, bool> locks;  // pid -> still held
  std::map<uint32_t, std::string> reports;
};

Listing List(const std::string& dir) {
  Listing out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = readdir(d)) {
    const absl::string_view name(e->d_name);
    if (uint32_t pid = PidOf(name, ".lock"); pid != 0) out.locks[pid] = true;
    if (uint32_t pid = PidOf(name, ".brrr"); pid != 0) out.reports[pid] = dir + "/" + e->d_name;
  }
  closedir(d);
  return out;
}

// True when the lock of `pid` is free (its collector is done or gone) or the file is gone.
bool LockFree(const std::string& dir, uint32_t pid) {
  const std::string path = absl::StrCat(dir, "/", pid, ".lock");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno == ENOENT;
  const bool free = flock(fd, LOCK_SH | LOCK_NB) == 0;
  close(fd);
  return free;
}

}  // namespace

absl::StatusOr<std::string> CreateJobDirectory(const GetEnv& getenv_fn) {
  std::string base = "/tmp";
  if (const char* xdg = getenv_fn("XDG_RUNTIME_DIR"); IsDirectory(xdg)) {
    base = xdg;
  } else if (const char* tmp = getenv_fn("TMPDIR"); IsDirectory(tmp)) {
    base = tmp;
  }
  std::string path = base + "/brrr-job-XXXXXX";
  if (mkdtemp(path.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a job directory under ", base, ": ", std::strerror(errno)));
  }
  return path;
}

JobFiles CollectJobFiles(const std::string& dir, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Listing listing = List(dir);
  for (;;) {
    bool any_held = false;
    for (auto& [pid, held] : listing.locks) {
      if (held) held = !LockFree(dir, pid);
      any_held |= held;
    }
    if (!any_held || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::map<uint32_t, bool> locks = listing.locks;
  listing = List(dir);  // files written meanwhile
  JobFiles files;
  for (const auto& [pid, path] : listing.reports) files.reports.push_back(path);
  for (const auto& [pid, held] : locks) {
    if (held) {
      files.unfinished.push_back(pid);
    } else if (listing.reports.count(pid) == 0) {
      files.missing.push_back(pid);
    }
  }
  return files;
}

void RemoveJobDirectory(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d != nullptr) {
    while (const dirent* e = readdir(d)) {
      const absl::string_view name(e->d_name);
      if (PidOf(name, ".lock") != 0 || PidOf(name, ".brrr") != 0 || PidOf(name, ".live") != 0 ||
          absl::StartsWith(name, kUnprofiledNotePrefix) ||
          (absl::StartsWith(name, ".") && absl::StrContains(name, ".tmp-"))) {
        unlinkat(dirfd(d), e->d_name, 0);
      }
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

}  // namespace brrr::cli
