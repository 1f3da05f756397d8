// CRC-32 (IEEE 802.3 / zlib / PNG: polynomial 0xEDB88320 reflected, initial value and final XOR
// 0xFFFFFFFF) used to check .brrr sections; computed by zlib's crc32(). Crc32("123456789") ==
// 0xCBF43926. A thin layer so call sites pass string_views of any length (zlib takes uInt).
//
// Must never: allocate or fail; it is a pure function of its input.
#ifndef BRRR_VIEWER_FORMAT_CRC32_H_
#define BRRR_VIEWER_FORMAT_CRC32_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace brrr {

// Continues a CRC: Crc32(a + b) == Crc32Extend(Crc32(a), b). Crc32Extend(0, x) == Crc32(x).
uint32_t Crc32Extend(uint32_t crc, absl::string_view bytes);

inline uint32_t Crc32(absl::string_view bytes) { return Crc32Extend(0, bytes); }

namespace crc32_internal {
// Crc32Extend feeding zlib at most max_chunk bytes per call (Crc32Extend uses zlib's uInt limit);
// exposed so a test can check the chunking without a 4 GiB buffer. max_chunk must be > 0.
uint32_t ExtendInChunks(uint32_t crc, absl::string_view bytes, size_t max_chunk);
}  // namespace crc32_internal

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_CRC32_H_
