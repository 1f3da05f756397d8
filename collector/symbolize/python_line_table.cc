// Line-table decoding for CPython 3.9-3.13. See python_line_table.h.
//
// Must never: index `bytes` without checking the position against its size, or let a sum
// overflow (positions and lines are kept in int64 and bounded).
#include "collector/symbolize/python_line_table.h"

#include <cstddef>

namespace brrr::symbolize {
namespace {

// Lines beyond this are treated as damage (CPython's own lines are ints; no source file has
// anywhere near this many lines).
constexpr int64_t kMaxLine = int64_t{1} << 30;

std::optional<uint32_t> ValidLine(int64_t line) {
  if (line <= 0 || line > kMaxLine) return std::nullopt;
  return static_cast<uint32_t>(line);
}

// 3.9, PyCode_Addr2Line: walk (address delta, line delta) pairs until the address passes the
// offset; the line reached is the offset's line. The last line runs to the end of the code.
std::optional<uint32_t> LnotabLine(const LineTable& t, int64_t offset) {
  const absl::Span<const uint8_t> b = t.bytes;
  int64_t line = t.first_line;
  int64_t address = 0;
  for (size_t i = 0; i + 2 <= b.size(); i += 2) {
    address += b[i];
    if (address > offset) return ValidLine(line);
    line += static_cast<int8_t>(b[i + 1]);
    if (line > kMaxLine || line < -kMaxLine) return std::nullopt;
  }
  // Every stored pair was at or before the offset: only a complete table says where it ends.
  if (t.truncated || b.size() % 2 != 0) return std::nullopt;
  return ValidLine(line);
}

// 3.10, PEP 626: consecutive byte ranges [start, start + length) each with a line (delta from
// the previous line; -128 = none). Empty ranges only carry line deltas.
std::optional<uint32_t> Pep626Line(const LineTable& t, int64_t offset) {
  const absl::Span<const uint8_t> b = t.bytes;
  int64_t line = t.first_line;
  int64_t end = 0;
  for (size_t i = 0; i + 2 <= b.size(); i += 2) {
    const int64_t start = end;
    end += b[i];
    const int8_t delta = static_cast<int8_t>(b[i + 1]);
    bool has_line = delta != -128;
    if (has_line) line += delta;
    if (line > kMaxLine || line < -kMaxLine) return std::nullopt;
    if (start == end) continue;
    if (offset >= start && offset < end) {
      if (!has_line) return std::nullopt;
      return ValidLine(line);
    }
  }
  return std::nullopt;  // beyond the table: no line (or the stored part does not reach it)
}

// Location-table varints: 6-bit chunks, least significant first, 0x40 = more follow. Returns
// false when the bytes end first or the value grows past 32 bits.
bool ReadVarint(absl::Span<const uint8_t> b, size_t* pos, size_t limit, uint64_t* value) {
  uint64_t v = 0;
  int shift = 0;
  while (*pos < limit) {
    const uint8_t byte = b[(*pos)++];
    v |= uint64_t{byte & 0x3Fu} << shift;
    if ((byte & 0x40) == 0) {
      *value = v;
      return true;
    }
    shift += 6;
    if (shift > 30) return false;
  }
  return false;
}

// 3.11+: entries of a first byte (bit 7 set; bits 3-6 the code; bits 0-2 the length in code
// units minus one) and the code's payload bytes (bit 7 clear). Codes: 15 no location; 14 long
// form (signed varint line delta, then end line, columns); 13 no columns (signed varint line
// delta); 10-12 one-line forms (line delta = code - 10, two column bytes); 0-9 short forms
// (line delta 0, one column byte).
std::optional<uint32_t> LocationsLine(const LineTable& t, int64_t offset) {
  const absl::Span<const uint8_t> b = t.bytes;
  int64_t line = t.first_line;
  int64_t end = 0;
  size_t pos = 0;
  while (pos < b.size()) {
    const uint8_t first = b[pos];
    if ((first & 0x80) == 0) return std::nullopt;  // not an entry start: damaged
    // The entry's payload runs to the next byte with bit 7 set (or the end of the bytes).
    size_t next = pos + 1;
    while (next < b.size() && (b[next] & 0x80) == 0) ++next;
    const int code = (first >> 3) & 0x0F;
    const int64_t start = end;
    end += ((first & 7) + 1) * 2;
    bool has_line = true;
    if (code == 15) {
      has_line = false;
    } else if (code == 14 || code == 13) {
      size_t p = pos + 1;
      uint64_t raw = 0;
      if (!ReadVarint(b, &p, next, &raw)) return std::nullopt;  // cut or damaged delta
      const int64_t magnitude = static_cast<int64_t>(raw >> 1);
      line += (raw & 1) ? -magnitude : magnitude;
    } else if (code >= 10) {
      line += code - 10;
    }
    if (line > kMaxLine || line < -kMaxLine) return std::nullopt;
    if (offset >= start && offset < end) {
      // The line delta was read in full (a cut one fails ReadVarint above); the entry's columns,
      // possibly cut off a truncated table, are not needed.
      if (!has_line) return std::nullopt;
      return ValidLine(line);
    }
    pos = next;
  }
  return std::nullopt;
}

}  // namespace

std::optional<LineTableFormat> LineTableFormatFor(uint32_t python_version_hex) {
  if ((python_version_hex >> 24) != 3) return std::nullopt;
  const uint32_t minor = (python_version_hex >> 16) & 0xFF;
  if (minor == 9) return LineTableFormat::kLnotab;
  if (minor == 10) return LineTableFormat::kPep626;
  if (minor >= 11 && minor <= 13) return LineTableFormat::kLocations;
  return std::nullopt;
}

std::optional<uint32_t> PythonLine(const LineTable& table, uint32_t offset) {
  const int64_t signed_offset = static_cast<int32_t>(offset);
  if (signed_offset < 0) return ValidLine(table.first_line);
  switch (table.format) {
    case LineTableFormat::kLnotab:
      return LnotabLine(table, signed_offset);
    case LineTableFormat::kPep626:
      return Pep626Line(table, signed_offset);
    case LineTableFormat::kLocations:
      return LocationsLine(table, signed_offset);
  }
  return std::nullopt;
}

}  // namespace brrr::symbolize
