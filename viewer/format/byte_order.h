// Little-endian encoding and decoding of fixed-width integers for the .brrr file format.
// The format is little-endian on every host; these helpers make that explicit and never depend on
// the host's byte order or alignment.
//
// Must never: read or write outside the buffer it is given (callers check lengths first).
#ifndef BRRR_VIEWER_FORMAT_BYTE_ORDER_H_
#define BRRR_VIEWER_FORMAT_BYTE_ORDER_H_

#include <cstdint>
#include <string>

namespace brrr {

inline void AppendLe32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline void AppendLe64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// `p` must point at 4 (LoadLe32) or 8 (LoadLe64) readable bytes.
inline uint32_t LoadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

inline uint64_t LoadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_BYTE_ORDER_H_
