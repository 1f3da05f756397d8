// Strict UTF-8 decoding of one code point (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF), for the terminal renderer's safe text (text_format.h).
//
// Must never: read outside `text`.
#ifndef BRRR_VIEWER_UTF8_H_
#define BRRR_VIEWER_UTF8_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace brrr {

// Decodes the code point starting at text[pos]. Returns its length in bytes (1..4) and stores it
// in `code_point`, or returns 0 when the bytes there are not valid UTF-8. Requires pos < size.
size_t DecodeUtf8(absl::string_view text, size_t pos, uint32_t& code_point);

}  // namespace brrr

#endif  // BRRR_VIEWER_UTF8_H_
