// Reading CPython `str` and `bytes` objects as raw memory, without the interpreter: a compact str
// (ASCII, or latin-1 / UCS-2 / UCS-4 storage) becomes UTF-8, a bytes object its raw bytes. Used
// once per code object when its file and function names cross to the collector.
//
// Must never: follow a pointer whose object type is not the expected one, read past the object's
// stated length, write past `cap`, split a UTF-8 sequence when truncating, or call into Python.
#ifndef BRRR_SHIM_PYTHON_STRINGS_H_
#define BRRR_SHIM_PYTHON_STRINGS_H_

#include <cstdint>
#include <cstring>

#include "shim/python_layouts.h"

namespace brrr::shim {

// Strings longer than this are not believed (no file path or function name is 16 M characters).
inline constexpr uint64_t kMaxBelievedLength = 1u << 24;

inline bool AlignedNonNull(const void* p) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(p);
  // Non-null, 8-byte aligned (CPython objects are), below the 47-bit user-space limit.
  return v != 0 && (v & 7u) == 0 && v < (uintptr_t{1} << 47);
}

template <typename T>
inline T LoadAt(const void* base, uint32_t offset) {
  T v;
  memcpy(&v, static_cast<const char*>(base) + offset, sizeof(T));
  return v;
}

// Appends code point `c` as UTF-8 to out[*n..cap); false (nothing written) when it does not fit.
// Lone surrogates (possible in file names decoded with surrogateescape) become U+FFFD.
inline bool AppendUtf8(uint32_t c, char* out, uint32_t cap, uint32_t* n) {
  if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
  char b[4];
  uint32_t len = 0;
  if (c < 0x80) {
    b[len++] = static_cast<char>(c);
  } else if (c < 0x800) {
    b[len++] = static_cast<char>(0xC0 | (c >> 6));
    b[len++] = static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    b[len++] = static_cast<char>(0xE0 | (c >> 12));
    b[len++] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    b[len++] = static_cast<char>(0x80 | (c & 0x3F));
  } else {
    b[len++] = static_cast<char>(0xF0 | (c >> 18));
    b[len++] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    b[len++] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    b[len++] = static_cast<char>(0x80 | (c & 0x3F));
  }
  if (*n + len > cap) return false;
  memcpy(out + *n, b, len);
  *n += len;
  return true;
}

// Writes the UTF-8 form of the str object `obj` (at most `cap` bytes, cut at a character
// boundary) to `out`. Returns the bytes written, or -1 when `obj` is not a compact str of
// `unicode_type` that looks sane (then nothing is promised about `out`).
inline int64_t UnicodeToUtf8(const void* obj, const PythonLayout& l, const void* unicode_type,
                             char* out, uint32_t cap) {
  if (!AlignedNonNull(obj)) return -1;
  if (LoadAt<const void*>(obj, l.object_type) != unicode_type) return -1;
  const int64_t length = LoadAt<int64_t>(obj, l.unicode_length);
  if (length < 0 || static_cast<uint64_t>(length) > kMaxBelievedLength) return -1;
  const uint32_t state = LoadAt<uint32_t>(obj, l.unicode_state);
  const uint32_t kind = (state >> l.state_kind_shift) & 7u;
  const bool compact = ((state >> l.state_compact_bit) & 1u) != 0;
  const bool ascii = ((state >> l.state_ascii_bit) & 1u) != 0;
  if (!compact) return -1;  // legacy (non-compact) strings: never made for code objects
  const char* data = static_cast<const char*>(obj) + (ascii ? l.ascii_size : l.compact_size);
  uint32_t n = 0;
  if (ascii) {
    if (kind != 1) return -1;
    const uint64_t take = static_cast<uint64_t>(length) < cap ? static_cast<uint64_t>(length) : cap;
    memcpy(out, data, take);
    return static_cast<int64_t>(take);
  }
  for (int64_t i = 0; i < length; ++i) {
    uint32_t c = 0;
    switch (kind) {
      case 1:
        c = static_cast<unsigned char>(data[i]);
        break;
      case 2: {
        uint16_t u;
        memcpy(&u, data + 2 * i, 2);
        c = u;
        break;
      }
      case 4:
        memcpy(&c, data + 4 * i, 4);
        break;
      default:
        return -1;
    }
    if (!AppendUtf8(c, out, cap, &n)) break;
  }
  return n;
}

// Copies at most `cap` bytes of the bytes object `obj` to `out`; *full_length gets its real size.
// Returns the bytes copied, or -1 when `obj` is not a sane object of `bytes_type`.
inline int64_t CopyBytesObject(const void* obj, const PythonLayout& l, const void* bytes_type,
                               char* out, uint32_t cap, uint32_t* full_length) {
  if (!AlignedNonNull(obj)) return -1;
  if (LoadAt<const void*>(obj, l.object_type) != bytes_type) return -1;
  const int64_t size = LoadAt<int64_t>(obj, l.var_size);
  if (size < 0 || static_cast<uint64_t>(size) > kMaxBelievedLength) return -1;
  *full_length = static_cast<uint32_t>(size);
  const uint32_t take = static_cast<uint64_t>(size) < cap ? static_cast<uint32_t>(size) : cap;
  memcpy(out, static_cast<const char*>(obj) + l.bytes_sval, take);
  return take;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PYTHON_STRINGS_H_
