// stderr warnings for the shim (see log.h).
//
// Must never: allocate or use stdio (it may run in a fork child or during exit).
#include "shim/log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace brrr::shim {
namespace {

// The last warning's text (LastWarning), guarded by a flag taken by exchange: a writer or reader
// that finds it taken skips (no waiting).
char g_last[512];
std::atomic<bool> g_last_busy{false};

// 0 = not noted yet, 1 = fd 2 was open (identity below), 2 = it was closed.
std::atomic<int> g_stderr_state{0};
uint64_t g_stderr_dev = 0;
uint64_t g_stderr_ino = 0;

bool SameAsStartup() {
  uint64_t dev = 0, ino = 0;
  if (!StartupStderr(&dev, &ino)) return false;
  struct stat st {};
  return fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

}  // namespace

bool StartupStderr(uint64_t* dev, uint64_t* ino) {
  int state = g_stderr_state.load(std::memory_order_acquire);
  if (state == 0) {
    struct stat st {};
    const bool open = fstat(STDERR_FILENO, &st) == 0;
    if (open) {
      g_stderr_dev = st.st_dev;
      g_stderr_ino = st.st_ino;
    }
    int expected = 0;
    g_stderr_state.compare_exchange_strong(expected, open ? 1 : 2, std::memory_order_acq_rel);
    state = g_stderr_state.load(std::memory_order_acquire);
  }
  if (state != 1) return false;
  *dev = g_stderr_dev;
  *ino = g_stderr_ino;
  return true;
}

void Warn(const char* a, const char* b, const char* c, const char* d, const char* e) {
  char line[1024];
  size_t n = 0;
  auto append = [&](const char* s) {
    if (s == nullptr) return;
    const size_t len = strnlen(s, sizeof(line));
    const size_t room = sizeof(line) - 1 - n;
    const size_t take = len < room ? len : room;
    memcpy(line + n, s, take);
    n += take;
  };
  append("brrr: ");
  append(a);
  append(b);
  append(c);
  append(d);
  append(e);
  if (!g_last_busy.exchange(true, std::memory_order_acquire)) {
    const size_t text = n - 6;  // after "brrr: "
    const size_t keep = text < sizeof(g_last) - 1 ? text : sizeof(g_last) - 1;
    memcpy(g_last, line + 6, keep);
    g_last[keep] = '\0';
    g_last_busy.store(false, std::memory_order_release);
  }
  line[n++] = '\n';
  if (!SameAsStartup()) return;
  size_t off = 0;
  while (off < n) {
    const ssize_t w = write(STDERR_FILENO, line + off, n - off);
    if (w <= 0) return;
    off += static_cast<size_t>(w);
  }
}

void LastWarning(char* out, size_t cap) {
  if (cap == 0) return;
  out[0] = '\0';
  if (g_last_busy.exchange(true, std::memory_order_acquire)) return;
  const size_t len = strnlen(g_last, sizeof(g_last));
  const size_t keep = len < cap - 1 ? len : cap - 1;
  memcpy(out, g_last, keep);
  out[keep] = '\0';
  g_last_busy.store(false, std::memory_order_release);
}

void WarnOnce(std::atomic<bool>& flag, const char* a, const char* b, const char* c, const char* d,
              const char* e) {
  if (flag.exchange(true, std::memory_order_relaxed)) return;
  Warn(a, b, c, d, e);
}

size_t FormatU64(uint64_t v, char* buf, size_t cap) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (cap == 0) return 0;
  size_t out = 0;
  while (n > 0 && out + 1 < cap) buf[out++] = tmp[--n];
  buf[out] = '\0';
  return out;
}

size_t FormatI64(int64_t v, char* buf, size_t cap) {
  if (v >= 0) return FormatU64(static_cast<uint64_t>(v), buf, cap);
  if (cap < 2) return FormatU64(0, buf, cap);
  buf[0] = '-';
  return 1 + FormatU64(0 - static_cast<uint64_t>(v), buf + 1, cap - 1);
}

}  // namespace brrr::shim
