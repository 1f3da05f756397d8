// The capture-range setting (BRRR_CAPTURE_RANGE, `brrr run --capture-range=`): "cudaProfilerApi"
// records only between cudaProfilerStart and cudaProfilerStop; "nvtx:NAME" only inside NVTX
// ranges whose message is NAME. Header-only and pure: the collector validates the option with it
// and the shim reads the variable with it.
//
// Must never allocate or copy: the parsed name points into the caller's string.
#ifndef BRRR_SHIM_CAPTURE_RANGE_H_
#define BRRR_SHIM_CAPTURE_RANGE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "shim/ring_format.h"

namespace brrr::shim {

struct CaptureRange {
  ring::CaptureMode mode = ring::CaptureMode::kAll;
  const char* nvtx_name = nullptr;  // nvtx mode: the range name (into the parsed text)
  uint32_t nvtx_name_length = 0;    // 1..kMaxNameLength bytes
};

// False for anything but the two forms above (an empty or over-long NAME included).
inline bool ParseCaptureRange(const char* text, CaptureRange* out) {
  if (text == nullptr) return false;
  if (std::strcmp(text, "cudaProfilerApi") == 0) {
    *out = CaptureRange{ring::CaptureMode::kProfilerApi, nullptr, 0};
    return true;
  }
  constexpr char kNvtx[] = "nvtx:";
  if (std::strncmp(text, kNvtx, sizeof(kNvtx) - 1) != 0) return false;
  const char* name = text + sizeof(kNvtx) - 1;
  const size_t length = std::strlen(name);
  if (length == 0 || length > ring::kMaxNameLength) return false;
  *out = CaptureRange{ring::CaptureMode::kNvtx, name, static_cast<uint32_t>(length)};
  return true;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_CAPTURE_RANGE_H_
