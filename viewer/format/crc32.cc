// CRC-32 (IEEE, reflected) with a 256-entry table built once at compile time.
//
// Must never: allocate or fail.
#include "viewer/format/crc32.h"

#include <array>

namespace brrr {
namespace {

constexpr uint32_t kPolynomial = 0xEDB88320u;

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (kPolynomial ^ (c >> 1)) : (c >> 1);
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

}  // namespace

uint32_t Crc32Extend(uint32_t crc, absl::string_view bytes) {
  uint32_t c = crc ^ 0xFFFFFFFFu;
  for (char ch : bytes) c = kTable[(c ^ static_cast<unsigned char>(ch)) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace brrr
