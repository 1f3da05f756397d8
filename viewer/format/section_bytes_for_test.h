// Test support: a .brrr section built byte by byte the way BRRR_FORMAT.md describes it (type u32,
// length u64, CRC-32 of those 12 bytes extended over the payload, then the payload), independently
// of the writer, for tests that hand-craft or damage files.
//
// Must never: be used by the writer or the reader themselves (the point is to check them).
#ifndef BRRR_VIEWER_FORMAT_SECTION_BYTES_FOR_TEST_H_
#define BRRR_VIEWER_FORMAT_SECTION_BYTES_FOR_TEST_H_

#include <cstdint>
#include <string>

#include "viewer/format/byte_order.h"
#include "viewer/format/crc32.h"

namespace brrr {

inline std::string Section(uint32_t type, const std::string& payload) {
  std::string header;
  AppendLe32(header, type);
  AppendLe64(header, payload.size());
  std::string out = header;
  AppendLe32(out, Crc32(header + payload));
  return out + payload;
}

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_SECTION_BYTES_FOR_TEST_H_
