// See resource_headroom.h. Init only.
#include "shim/resource_headroom.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

namespace brrr::shim {
namespace {

uint64_t Limit(int resource) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return static_cast<uint64_t>(r.rlim_cur);
}

// Small files of /proc read whole into `buf` (NUL-terminated); the bytes read.
size_t ReadSmall(const char* path, char* buf, size_t cap) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t n = 0;
  while (n + 1 < cap) {
    const ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r <= 0) break;
    n += static_cast<size_t>(r);
  }
  close(fd);
  buf[n] = '\0';
  return n;
}

uint64_t VmSizeBytes() {
  char buf[128];
  if (ReadSmall("/proc/self/statm", buf, sizeof(buf)) == 0) return 0;
  return strtoull(buf, nullptr, 10) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// The tasks (threads) of processes whose real uid is `uid`, from /proc/PID/status.
uint64_t TasksOf(uid_t uid) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return 0;
  uint64_t tasks = 0;
  char path[64], buf[4096];
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
    if (ReadSmall(path, buf, sizeof(buf)) == 0) continue;
    const char* u = strstr(buf, "\nUid:");
    const char* t = strstr(buf, "\nThreads:");
    if (u == nullptr || t == nullptr) continue;
    if (static_cast<uid_t>(strtoul(u + 5, nullptr, 10)) != uid) continue;
    tasks += strtoull(t + 9, nullptr, 10);
  }
  closedir(d);
  return tasks;
}

}  // namespace

bool EnoughHeadroom(const HeadroomFacts& f, uint64_t segment_bytes, char* why, size_t cap) {
  if (cap > 0) why[0] = '\0';
  if (f.as_limit != UINT64_MAX) {
    const uint64_t room = f.as_limit > f.as_used ? f.as_limit - f.as_used : 0;
    const uint64_t need = segment_bytes + kOtherAddressSpaceBytes;
    if (need > room / 2) {
      snprintf(why, cap,
               "the address-space limit (ulimit -v: %llu MiB) leaves %llu MiB, and brrr would "
               "take about %llu MiB of it (at most half is its share): not profiled",
               static_cast<unsigned long long>(f.as_limit >> 20),
               static_cast<unsigned long long>(room >> 20),
               static_cast<unsigned long long>(need >> 20));
      return false;
    }
  }
  if (!f.root && f.nproc_limit < kNprocCountedBelow && f.nproc_used > 0) {
    const uint64_t free = f.nproc_limit > f.nproc_used ? f.nproc_limit - f.nproc_used : 0;
    if (free < 2 * kBrrrTasks) {
      snprintf(why, cap,
               "the process limit (ulimit -u: %llu) leaves %llu processes and threads, and brrr "
               "would start about %llu (at most half is its share): not profiled",
               static_cast<unsigned long long>(f.nproc_limit),
               static_cast<unsigned long long>(free),
               static_cast<unsigned long long>(kBrrrTasks));
      return false;
    }
  }
  return true;
}

HeadroomFacts ReadHeadroomFacts() {
  HeadroomFacts f;
  f.as_limit = Limit(RLIMIT_AS);
  if (f.as_limit != UINT64_MAX) f.as_used = VmSizeBytes();
  f.root = geteuid() == 0;
  f.nproc_limit = Limit(RLIMIT_NPROC);
  if (!f.root && f.nproc_limit < kNprocCountedBelow) f.nproc_used = TasksOf(getuid());
  return f;
}

}  // namespace brrr::shim
