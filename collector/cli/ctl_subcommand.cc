// `brrr ctl PID pause|resume|snapshot`: controls a running profiled app through its segment's
// control words (ring_format.h): PID is the app's pid or that of the `brrr run` that started it;
// when it belongs to a `brrr run` job, every process of the job (SegmentHeader.job_id).
// Finds the segment under /dev/shm ("brrr-<pid>-..." by its name, else by the pid in its header),
// maps its header read-write and stores the request; pause and resume wait (bounded) until the
// shim says it applied it. Only the segment's owner can open it (mode 0600): another user is
// refused with the reason.
//
// Must never: trust the segment's header beyond its magic, version and size checks, or write
// anything but the control words.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "collector/cli/subcommands.h"
#include "shim/ring_format.h"

namespace brrr::cli {
namespace {

constexpr char kShmDir[] = "/dev/shm";

struct Candidate {
  std::string name;  // "/brrr-..."
  bool by_name = false;
};

// The pid in a segment name "brrr-PID-SALT" (0 when it is not one).
uint32_t PidOfName(const std::string& file) {
  if (file.rfind("brrr-", 0) != 0) return 0;
  const size_t dash = file.find('-', 5);
  uint32_t pid = 0;
  if (dash == std::string::npos || !absl::SimpleAtoi(file.substr(5, dash - 5), &pid)) return 0;
  return pid;
}

class MappedHeader {
 public:
  ~MappedHeader() {
    if (base_ != nullptr) munmap(base_, ring::kSegmentHeaderSize);
  }
  // 0 on success, else the errno of the failing step (EINVAL: not a valid segment).
  int Open(const std::string& name) {
    const int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) return errno;
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(ring::kSegmentHeaderSize)) {
      close(fd);
      return EINVAL;
    }
    void* p = mmap(nullptr, ring::kSegmentHeaderSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return errno;
    base_ = p;
    const ring::SegmentHeader& h = header();
    if (h.magic != ring::kMagic || h.version != ring::kVersion ||
        h.header_size != ring::kSegmentHeaderSize) {
      return EINVAL;
    }
    return 0;
  }
  ring::SegmentHeader& header() { return *static_cast<ring::SegmentHeader*>(base_); }

 private:
  void* base_ = nullptr;
};

// Waits up to 2 s (the shim applies requests every kControlPollMs) for `paused` == want.
bool WaitPaused(ring::SegmentHeader& h, bool want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    if ((h.paused.load(std::memory_order_acquire) != 0) == want) return true;
    if (h.finished.load(std::memory_order_acquire) != 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

int CtlSubcommand(const std::vector<std::string>& args) {
  uint32_t pid = 0;
  if (args.size() != 2 || !absl::SimpleAtoi(args[0], &pid) || pid == 0 ||
      (args[1] != "pause" && args[1] != "resume" && args[1] != "snapshot")) {
    std::fprintf(stderr, "brrr ctl: usage: brrr ctl PID pause|resume|snapshot\n");
    return kUsageExitCode;
  }
  const std::string action = args[1];
  std::vector<Candidate> candidates;
  if (DIR* dir = opendir(kShmDir)) {
    while (dirent* e = readdir(dir)) {
      const std::string file = e->d_name;
      if (file.rfind("brrr-", 0) != 0) continue;
      candidates.push_back({"/" + file, PidOfName(file) == pid});
    }
    closedir(dir);
  }
  // The process's own segments first; then, when it belongs to a `brrr run` job, every other
  // process of the job (the same job id in its header).
  int refused = 0;
  std::set<uint64_t> jobs;
  for (const Candidate& c : candidates) {
    MappedHeader mapped;
    const int err = mapped.Open(c.name);
    if (err == EACCES || err == EPERM) {
      if (c.by_name) refused = err;
      continue;
    }
    if (err != 0) continue;
    const ring::SegmentHeader& h = mapped.header();
    if ((c.by_name || h.pid == pid) && h.job_id != 0) jobs.insert(h.job_id);
  }
  int done = 0;
  for (const Candidate& c : candidates) {
    MappedHeader mapped;
    if (mapped.Open(c.name) != 0) continue;
    ring::SegmentHeader& h = mapped.header();
    const bool own = c.by_name || h.pid == pid;
    if (!own && (h.job_id == 0 || jobs.count(h.job_id) == 0)) continue;
    if (h.finished.load(std::memory_order_acquire) != 0) continue;
    if (!own && h.pid == 0) continue;  // a segment whose process has not started its shim
    ++done;
    if (action == "snapshot") {
      h.snapshot_requests.fetch_add(1, std::memory_order_acq_rel);
      std::fprintf(stderr, "brrr ctl: snapshot asked of process %u (%s)\n", h.pid, c.name.c_str());
      continue;
    }
    const bool pause = action == "pause";
    h.control_pause.store(pause ? 1 : 0, std::memory_order_release);
    if (!WaitPaused(h, pause)) {
      std::fprintf(stderr, "brrr ctl: process %u did not confirm %s within 2 s\n", h.pid,
                   action.c_str());
      return 1;
    }
    std::fprintf(stderr, "brrr ctl: process %u %s\n", h.pid, pause ? "paused" : "recording");
  }
  if (done > 0) return 0;
  if (refused != 0) {
    std::fprintf(stderr,
                 "brrr ctl: process %u's profile belongs to another user (%s): only the job's "
                 "owner can control it\n",
                 pid, std::strerror(refused));
    return 1;
  }
  std::fprintf(stderr, "brrr ctl: no running profiled process %u (no brrr segment of it in %s)\n",
               pid, kShmDir);
  return 1;
}

}  // namespace brrr::cli
