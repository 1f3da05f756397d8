// The process's start time. See process_start.h.
#include "shim/process_start.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

namespace brrr::shim {

bool ParseStatStartTicks(const char* text, size_t length, uint64_t* ticks) {
  if (text == nullptr) return false;
  size_t at = length;  // just past the last ')'
  for (size_t i = length; i > 0; --i) {
    if (text[i - 1] == ')') {
      at = i;
      break;
    }
  }
  if (at == length) return false;
  // After the command come fields 3 (state) to 52, each after one space: each turn moves to the
  // start of the next, up to starttime (22).
  for (int field = 3; field <= 22; ++field) {
    while (at < length && text[at] != ' ') ++at;
    if (at >= length) return false;
    ++at;  // the space
  }
  uint64_t value = 0;
  size_t digits = 0;
  for (; at < length && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
    if (digits == 19) return false;  // more than fits: not a tick count
    value = value * 10 + static_cast<uint64_t>(text[at] - '0');
  }
  // A field cut by the end of the text may be a longer number: only a whole one counts.
  if (digits == 0 || at >= length || (text[at] != ' ' && text[at] != '\n')) return false;
  *ticks = value;
  return true;
}

uint64_t StartMonotonicNs(uint64_t start_ticks, uint64_t ticks_per_second, uint64_t boot_now_ns,
                          uint64_t mono_now_ns) {
  if (ticks_per_second == 0 || start_ticks > UINT64_MAX / 1'000'000'000ull) return 0;
  const uint64_t start_boot_ns =
      start_ticks / ticks_per_second * 1'000'000'000ull +
      start_ticks % ticks_per_second * 1'000'000'000ull / ticks_per_second;
  if (start_boot_ns > boot_now_ns) return 0;
  const uint64_t age = boot_now_ns - start_boot_ns;
  return age < mono_now_ns ? mono_now_ns - age : 0;
}

namespace {

uint64_t ClockNs(clockid_t id) {
  timespec ts;
  if (clock_gettime(id, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

uint64_t ReadProcessStartMonotonicNs() {
  char text[1024];
  const int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t n = 0;
  while (n < sizeof(text)) {
    const ssize_t r = read(fd, text + n, sizeof(text) - n);
    if (r <= 0) break;
    n += static_cast<size_t>(r);
  }
  close(fd);
  uint64_t ticks = 0;
  const long hz = sysconf(_SC_CLK_TCK);
  if (!ParseStatStartTicks(text, n, &ticks) || hz <= 0) return 0;
  const uint64_t boot = ClockNs(CLOCK_BOOTTIME), mono = ClockNs(CLOCK_MONOTONIC);
  if (boot == 0 || mono == 0) return 0;
  return StartMonotonicNs(ticks, static_cast<uint64_t>(hz), boot, mono);
}

}  // namespace brrr::shim
