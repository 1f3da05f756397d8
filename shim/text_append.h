// Text into a fixed buffer without allocating, for the shim and the code it shares with the brrr
// program (settings messages, segment warnings): append a string or a decimal number, always
// NUL-terminated, silently cut at the buffer's end.
//
// Must never: allocate, write past `size`, or leave the buffer unterminated.
#ifndef BRRR_SHIM_TEXT_APPEND_H_
#define BRRR_SHIM_TEXT_APPEND_H_

#include <cstddef>
#include <cstdint>

namespace brrr::text {

// Appends `s` at buf[*at] (size > 0), keeping room for the terminator; *at advances.
inline void Append(char* buf, size_t size, size_t* at, const char* s) {
  while (*s != '\0' && *at + 1 < size) buf[(*at)++] = *s++;
  buf[*at < size ? *at : size - 1] = '\0';
}

// Appends `v` in decimal.
inline void AppendU64(char* buf, size_t size, size_t* at, uint64_t v) {
  char reversed[24];
  size_t n = 0;
  do {
    reversed[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  char text[24];
  for (size_t i = 0; i < n; ++i) text[i] = reversed[n - 1 - i];
  text[n] = '\0';
  Append(buf, size, at, text);
}

}  // namespace brrr::text

#endif  // BRRR_SHIM_TEXT_APPEND_H_
