// CRC-32/IEEE by zlib's crc32(), fed in pieces no longer than zlib's uInt length so payloads over
// 4 GiB are covered whole.
//
// Must never: allocate or fail.
#include "viewer/format/crc32.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace brrr {
namespace crc32_internal {

uint32_t ExtendInChunks(uint32_t crc, absl::string_view bytes, size_t max_chunk) {
  uLong c = crc;
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  size_t left = bytes.size();
  while (left > 0) {
    const size_t n = std::min(left, max_chunk);
    c = crc32(c, p, static_cast<uInt>(n));
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(c);
}

}  // namespace crc32_internal

uint32_t Crc32Extend(uint32_t crc, absl::string_view bytes) {
  return crc32_internal::ExtendInChunks(crc, bytes, std::numeric_limits<uInt>::max());
}

}  // namespace brrr
