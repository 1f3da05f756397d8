// The shim's only way to talk to the user: one line on stderr per problem, written with write(2)
// (no stdio, no allocation, usable from any thread, a fork child or an atexit handler).
//
// Must never: be called on the hot path, allocate, lock, or print the same problem twice (use a
// WarnOnce flag per call site).
#ifndef BRRR_SHIM_LOG_H_
#define BRRR_SHIM_LOG_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace brrr::shim {

// Writes "brrr: " + the non-null parts + "\n" to stderr in one write(2), but only while fd 2 is
// still the file the process started with (StartupStderr): never into a file the app reopened
// on fd 2, and without holding a copy of it (a reader sees EOF as soon as the app closes it).
void Warn(const char* a, const char* b = nullptr, const char* c = nullptr, const char* d = nullptr,
          const char* e = nullptr);

// The identity (device, inode) of fd 2 when the shim was loaded, noted on the first call (the
// shim's constructor makes it). False when fd 2 was closed then: the shim says nothing at all.
bool StartupStderr(uint64_t* dev, uint64_t* ino);

// The text of the last Warn (without "brrr: " and the newline) into `out`, NUL-terminated; "" when
// none, or when another thread is writing one right now.
void LastWarning(char* out, size_t cap);

// Warn, but only the first time `flag` is seen clear.
void WarnOnce(std::atomic<bool>& flag, const char* a, const char* b = nullptr,
              const char* c = nullptr, const char* d = nullptr, const char* e = nullptr);

// Decimal text of `v` into `buf` (NUL terminated); returns the length. `cap` >= 21 always fits.
size_t FormatU64(uint64_t v, char* buf, size_t cap);
size_t FormatI64(int64_t v, char* buf, size_t cap);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_LOG_H_
