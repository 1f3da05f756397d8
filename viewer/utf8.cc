// Strict UTF-8 decoding of single code points.
//
// Must never: read outside the view; accept overlong forms, surrogates or values above U+10FFFF.
#include "viewer/utf8.h"

namespace brrr {

size_t DecodeUtf8(absl::string_view text, size_t pos, uint32_t& code_point) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[pos + i]); };
  const size_t left = text.size() - pos;
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) {
    code_point = b0;
    return 1;
  }
  size_t length;
  uint32_t cp;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;  // continuation byte or 0xF8..0xFF in lead position
  }
  if (left < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  code_point = cp;
  return length;
}

}  // namespace brrr
