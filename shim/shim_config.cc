// Environment parsing for the shim (see shim_config.h).
//
// Must never: allocate (strtoull only), or reject the run: bad values fall back to defaults.
#include "shim/shim_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shim/log.h"

namespace brrr::shim {
namespace {

void WarnBad(const char* name, const char* value, const char* why) {
  Warn(name, "=", value, ": ", why);
}

// Parses a whole decimal number in [lo, hi]; warns and returns false otherwise.
bool ParseUnsigned(const char* name, const char* value, uint64_t lo, uint64_t hi, uint64_t* out) {
  if (value == nullptr) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = strtoull(value, &end, 10);
  if (value[0] < '0' || value[0] > '9' || end == value || *end != '\0' || errno == ERANGE) {
    WarnBad(name, value, "not a non-negative integer; using default");
    return false;
  }
  if (v < lo || v > hi) {
    WarnBad(name, value, "out of range; using default");
    return false;
  }
  *out = v;
  return true;
}

uint32_t RoundUpPowerOfTwo(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return static_cast<uint32_t>(p);
}

bool ParseBool(const char* name, const char* value, bool fallback) {
  if (value == nullptr) return fallback;
  if (strcmp(value, "1") == 0 || strcmp(value, "true") == 0 || strcmp(value, "on") == 0)
    return true;
  if (strcmp(value, "0") == 0 || strcmp(value, "false") == 0 || strcmp(value, "off") == 0)
    return false;
  WarnBad(name, value,
          fallback ? "not 0 or 1; using default (1)" : "not 0 or 1; using default (0)");
  return fallback;
}

}  // namespace

ShimConfig ReadShimConfig(GetEnvFn get_env) {
  ShimConfig c;
  uint64_t v = 0;
  if (ParseUnsigned("BRRR_RING_RECORDS", get_env("BRRR_RING_RECORDS"), ring::kMinRingCapacity,
                    ring::kMaxRingCapacity, &v)) {
    c.geometry.ring_capacity = RoundUpPowerOfTwo(v);
  }
  if (ParseUnsigned("BRRR_MAX_THREADS", get_env("BRRR_MAX_THREADS"), ring::kMinMaxThreads,
                    ring::kMaxMaxThreads, &v)) {
    c.geometry.max_threads = static_cast<uint32_t>(v);
  }
  if (ParseUnsigned("BRRR_DEVICE_RECORDS", get_env("BRRR_DEVICE_RECORDS"), ring::kMinDeviceCapacity,
                    ring::kMaxDeviceCapacity, &v)) {
    c.geometry.device_capacity = RoundUpPowerOfTwo(v);
  }
  if (!ring::IsValidGeometry(c.geometry)) {
    Warn(
        "BRRR_RING_RECORDS x BRRR_MAX_THREADS: segment would exceed the size limit; using "
        "defaults");
    c.geometry = ring::SegmentGeometry{};
  }
  c.stacks = ParseBool("BRRR_STACKS", get_env("BRRR_STACKS"), true);
  c.cupti = ParseBool("BRRR_CUPTI", get_env("BRRR_CUPTI"), true);
  c.callbacks = ParseBool("BRRR_CALLBACKS", get_env("BRRR_CALLBACKS"), true);
  c.follow_fork = ParseBool("BRRR_FOLLOW_FORK", get_env("BRRR_FOLLOW_FORK"), false);
  if (const char* clock = get_env("BRRR_CLOCK"); clock != nullptr) {
    if (strcmp(clock, "monotonic") == 0) {
      c.allow_tsc = false;
    } else if (strcmp(clock, "tsc") != 0) {
      WarnBad("BRRR_CLOCK", clock, "not tsc or monotonic; using default (tsc when invariant)");
    }
  }
  if (ParseUnsigned("BRRR_REPORT_WAIT_MS", get_env("BRRR_REPORT_WAIT_MS"), 0, 600'000, &v)) {
    c.report_wait_ms = static_cast<uint32_t>(v);
  }
  c.python = ParseBool("BRRR_PYTHON", get_env("BRRR_PYTHON"), true);
  if (ParseUnsigned("BRRR_LAUNCH_SAMPLE", get_env("BRRR_LAUNCH_SAMPLE"), 0, 1u << 30, &v)) {
    c.launch_sample_period = static_cast<uint32_t>(v);
  }
  if (ParseUnsigned("BRRR_PY_STALL_US", get_env("BRRR_PY_STALL_US"), 0, 10'000'000, &v)) {
    c.python_stall_us = static_cast<uint32_t>(v);
  }
  if (const char* range = get_env("BRRR_CAPTURE_RANGE"); range != nullptr && range[0] != '\0') {
    if (!ParseCaptureRange(range, &c.capture)) {
      WarnBad("BRRR_CAPTURE_RANGE", range,
              "not cudaProfilerApi or nvtx:NAME; recording everything");
    }
  }
  if (const char* start = get_env("BRRR_START"); start != nullptr && start[0] != '\0') {
    if (strcmp(start, "paused") == 0) {
      c.start_paused = true;
    } else if (strcmp(start, "recording") != 0) {
      WarnBad("BRRR_START", start, "not paused or recording; recording from the start");
    }
  }
  if (ParseUnsigned("BRRR_FLUSH_MS", get_env("BRRR_FLUSH_MS"), 0, 3'600'000, &v)) {
    c.flush_ms = static_cast<uint32_t>(v);
  }
  if (const char* shm = get_env("BRRR_SHM"); shm != nullptr && shm[0] != '\0') {
    if (shm[0] == '/' && strlen(shm) < 200 && strchr(shm + 1, '/') == nullptr) {
      c.shm_name = shm;
    } else {
      WarnBad("BRRR_SHM", shm, "not a shared-memory name (\"/name\"); creating a new segment");
    }
  }
  return c;
}

}  // namespace brrr::shim
