// The shared-memory meeting point of a collective group. See nccl_group.h.
//
// Must never: unmap the file (a device thread may still be waiting in it while the process
// exits), or index a slot or start past the layout.
#include "nccl_group.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "clock.h"
#include "sim_config.h"

namespace simcuda {

namespace {

// Collectives a rank may be ahead of the slowest one (one per stream that carries collectives:
// a stream's next collective cannot start before its current one ends).
constexpr uint64_t kStartRing = 256;
constexpr uint64_t kPollNs = 20'000;

}  // namespace

struct NcclSlot {
  std::atomic<int32_t> pid;                  // 0: free
  std::atomic<uint64_t> arrived;             // collectives started so far
  std::atomic<uint64_t> starts[kStartRing];  // start of collective k at [k % kStartRing]
};

struct NcclGroupLayout {
  NcclSlot slots[config::kMaxNcclRanks];
};

namespace {

bool Alive(int32_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

// A rank named by the launcher's environment, if one is below `size`.
std::optional<uint32_t> LauncherRank(uint32_t size) {
  for (const char* var : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    const char* text = std::getenv(var);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    errno = 0;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (errno == 0 && *end == '\0' && value < size) return static_cast<uint32_t>(value);
  }
  return std::nullopt;
}

}  // namespace

std::unique_ptr<NcclGroup> NcclGroup::Join(const std::string& name, uint32_t size,
                                           std::optional<uint32_t> rank, uint64_t timeout_ns,
                                           std::string* error) {
  if (size < 2 || size > config::kMaxNcclRanks || (rank && *rank >= size)) {
    *error = "bad group size or rank";
    return nullptr;
  }
  std::unique_ptr<NcclGroup> group(new NcclGroup());
  group->path_ = "/simcuda-nccl-" + std::to_string(getuid()) + "-" + name;
  group->size_ = size;
  group->timeout_ns_ = timeout_ns;
  const int fd = shm_open(group->path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot open /dev/shm" + group->path_ + ": " + std::strerror(errno);
    return nullptr;
  }
  group->fd_ = fd;
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
    *error = "/dev/shm" + group->path_ + " is not this user's alone";
    return nullptr;
  }
  flock(fd, LOCK_EX);
  if (static_cast<size_t>(st.st_size) < sizeof(NcclGroupLayout) &&
      ftruncate(fd, sizeof(NcclGroupLayout)) != 0) {
    *error = "cannot size /dev/shm" + group->path_ + ": " + std::strerror(errno);
    flock(fd, LOCK_UN);
    return nullptr;
  }
  void* map = mmap(nullptr, sizeof(NcclGroupLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    *error = "cannot map /dev/shm" + group->path_ + ": " + std::strerror(errno);
    flock(fd, LOCK_UN);
    return nullptr;
  }
  auto* layout = static_cast<NcclGroupLayout*>(map);
  group->layout_ = layout;
  // A file left by a job whose processes are all gone starts over.
  bool any_alive = false;
  for (const NcclSlot& slot : layout->slots) any_alive |= Alive(slot.pid.load());
  if (!any_alive) std::memset(static_cast<void*>(layout), 0, sizeof(NcclGroupLayout));

  const auto free_slot = [&](uint32_t r) { return !Alive(layout->slots[r].pid.load()); };
  std::optional<uint32_t> chosen = rank;
  if (chosen && !free_slot(*chosen)) {
    *error = "rank " + std::to_string(*chosen) + " is taken by pid " +
             std::to_string(layout->slots[*chosen].pid.load());
    flock(fd, LOCK_UN);
    return nullptr;
  }
  if (!chosen) {
    if (auto launcher = LauncherRank(size); launcher && free_slot(*launcher)) chosen = launcher;
  }
  for (uint32_t r = 0; !chosen && r < size; ++r) {
    if (free_slot(r)) chosen = r;
  }
  if (!chosen) {
    *error = "all " + std::to_string(size) + " ranks are taken by live processes";
    flock(fd, LOCK_UN);
    return nullptr;
  }
  NcclSlot& slot = layout->slots[*chosen];
  slot.arrived.store(0);
  slot.pid.store(static_cast<int32_t>(getpid()));
  group->rank_ = *chosen;
  flock(fd, LOCK_UN);
  return group;
}

NcclGroup::~NcclGroup() {
  // Deliberately leaves the mapping (see the top of this file); the descriptor is only for locks.
}

std::optional<uint64_t> NcclGroup::Arrive(uint64_t index, uint64_t start_ns, std::string* missing) {
  NcclSlot& own = layout_->slots[rank_];
  own.starts[index % kStartRing].store(start_ns, std::memory_order_relaxed);
  own.arrived.store(index + 1, std::memory_order_release);
  const uint64_t deadline = NowNs() + timeout_ns_;
  for (;;) {
    bool all = true;
    for (uint32_t r = 0; r < size_ && all; ++r) {
      all = layout_->slots[r].arrived.load(std::memory_order_acquire) > index;
    }
    if (all) {
      uint64_t last = 0;
      for (uint32_t r = 0; r < size_; ++r) {
        const uint64_t s = layout_->slots[r].starts[index % kStartRing].load();
        if (s > last) last = s;
      }
      return last;
    }
    if (NowNs() >= deadline) break;
    const timespec pause{0, static_cast<long>(kPollNs)};
    nanosleep(&pause, nullptr);
  }
  missing->clear();
  for (uint32_t r = 0; r < size_; ++r) {
    if (layout_->slots[r].arrived.load() > index) continue;
    if (!missing->empty()) missing->append(", ");
    missing->append(std::to_string(r));
  }
  return std::nullopt;
}

void NcclGroup::Leave() {
  if (left_ || layout_ == nullptr) return;
  left_ = true;
  flock(fd_, LOCK_EX);
  layout_->slots[rank_].pid.store(0);
  bool anyone = false;
  for (uint32_t r = 0; r < config::kMaxNcclRanks; ++r) {
    anyone |= Alive(layout_->slots[r].pid.load());
  }
  if (!anyone) shm_unlink(path_.c_str());
  flock(fd_, LOCK_UN);
}

}  // namespace simcuda
