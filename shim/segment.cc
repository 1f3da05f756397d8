// Creating, opening and describing the shared-memory segment (see segment.h). Init-time only.
//
// Must never: run on the hot path, or leave a created segment behind when creation fails.
#include "shim/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "shim/clock.h"
#include "shim/log.h"
#include "shim/segment_reserve.h"

namespace brrr::shim {

bool InitSegmentMemory(void* base, uint64_t bytes, const ring::SegmentGeometry& g,
                       SegmentView* out) {
  if (!ring::IsValidGeometry(g)) return false;
  const ring::SegmentLayout l = ring::ComputeLayout(g);
  if (bytes < l.segment_size) return false;
  auto* h = static_cast<ring::SegmentHeader*>(base);
  ring::WriteGeometry(g, h);
  out->base = base;
  out->mapped_bytes = bytes;
  out->header = h;
  out->geometry = g;
  out->layout = l;
  return true;
}

bool ViewSegmentMemory(void* base, uint64_t bytes, SegmentView* out, ring::HeaderCheck* why) {
  const auto* h = static_cast<const ring::SegmentHeader*>(base);
  ring::SegmentGeometry g;
  ring::SegmentLayout l;
  const ring::HeaderCheck check = ring::ValidateHeader(*h, bytes, &g, &l);
  if (why != nullptr) *why = check;
  if (check != ring::HeaderCheck::kOk) return false;
  out->base = base;
  out->mapped_bytes = bytes;
  out->header = static_cast<ring::SegmentHeader*>(base);
  out->geometry = g;
  out->layout = l;
  return true;
}

namespace {

void AppendText(char* buf, size_t cap, size_t* n, const char* s) {
  while (*s != '\0' && *n + 1 < cap) buf[(*n)++] = *s++;
  buf[*n] = '\0';
}

void AppendHex(char* buf, size_t cap, size_t* n, uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) {
    if (*n + 1 >= cap) break;
    buf[(*n)++] = kDigits[(v >> shift) & 0xf];
  }
  buf[*n] = '\0';
}

}  // namespace

bool CreateSharedSegment(const ring::SegmentGeometry& g, char* name, size_t name_cap,
                         SegmentView* out) {
  if (!ring::IsValidGeometry(g) || name_cap < 64) return false;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    uint64_t random = 0;
    if (getrandom(&random, sizeof(random), GRND_NONBLOCK) != sizeof(random)) {
      random = ReadTsc() ^ (reinterpret_cast<uintptr_t>(&random) << 16);
    }
    size_t n = 0;
    char pid[24];
    FormatU64(static_cast<uint64_t>(getpid()), pid, sizeof(pid));
    AppendText(name, name_cap, &n, "/brrr-");
    AppendText(name, name_cap, &n, pid);
    AppendText(name, name_cap, &n, "-");
    AppendHex(name, name_cap, &n, random);
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    Warn("cannot create the shared-memory segment (shm_open: ", strerror(errno),
         "); this run is not profiled");
    return false;
  }
  // Every page reserved now, or a smaller segment, or none: a page touched later never faults.
  const ring::SegmentReservation reserved = ring::ReserveSegment(fd, g);
  char why[512];
  if (ring::DescribeReservation(reserved, why, sizeof(why))[0] != '\0') Warn(why);
  if (!reserved.ok) {
    close(fd);
    shm_unlink(name);
    return false;
  }
  const uint64_t bytes = reserved.bytes;
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    Warn("cannot map the shared-memory segment (mmap: ", strerror(errno),
         "); this run is not profiled");
    shm_unlink(name);
    return false;
  }
  // A fresh shm object is zero-filled: only the geometry needs writing.
  return InitSegmentMemory(base, bytes, reserved.geometry, out);
}

bool OpenSharedSegment(const char* name, SegmentView* out) {
  const int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    Warn("BRRR_SHM=", name, ": cannot open (", strerror(errno), "); this process is not profiled");
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(ring::kSegmentHeaderSize)) {
    close(fd);
    Warn("BRRR_SHM=", name, ": segment too small; this process is not profiled");
    return false;
  }
  const uint64_t bytes = static_cast<uint64_t>(st.st_size);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    Warn("BRRR_SHM=", name, ": cannot map (", strerror(errno), "); this process is not profiled");
    return false;
  }
  ring::HeaderCheck why = ring::HeaderCheck::kOk;
  if (!ViewSegmentMemory(base, bytes, out, &why)) {
    munmap(base, bytes);
    Warn("BRRR_SHM=", name, ": rejected (", ring::HeaderCheckName(why),
         "); this process is not profiled");
    return false;
  }
  return true;
}

bool ClaimSegmentForProcess(ring::SegmentHeader* header, uint32_t pid, uint32_t* owner) {
  std::atomic_ref<uint32_t> field(header->pid);
  uint32_t expected = 0;
  if (field.compare_exchange_strong(expected, pid, std::memory_order_acq_rel)) return true;
  if (owner != nullptr) *owner = expected;
  return expected == pid;
}

void FillProcessInfo(ring::SegmentHeader* header, uint64_t start_mono_ns) {
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  size_t n = 0;
  if (fd >= 0) {
    const size_t cap = sizeof(header->command) - 1;
    while (n < cap) {
      const ssize_t r = read(fd, header->command + n, cap - n);
      if (r <= 0) break;
      n += static_cast<size_t>(r);
    }
    close(fd);
  }
  header->command[n] = '\0';
  header->clock_kind = HostClockKind();
  const ClockPair pair = SampleClockPair();
  header->clock_tsc = pair.tsc;
  header->clock_mono_ns = pair.mono_ns;
  const uint64_t now = MonotonicNs();
  header->start_mono_ns = start_mono_ns != 0 && start_mono_ns <= now ? start_mono_ns : now;
}

}  // namespace brrr::shim
