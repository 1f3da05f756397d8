// Decodes a CPython code object's line table (as the shim copies it into a CodeSlot) to find the
// source line of an instruction offset, for the three formats CPython 3.9-3.13 use:
//   3.9         co_lnotab: (bytecode delta u8, line delta s8) pairs
//   3.10        co_linetable, PEP 626: (byte range length u8, line delta s8; -128 = no line) pairs
//   3.11-3.13   co_linetable, the location table (PEP 657; CPython's Objects/locations.md)
// Offsets are byte offsets from the start of the bytecode, as PyCode_Addr2Line takes them; the
// answer is the line PyCode_Addr2Line gives, or unknown.
//
// Must never: read outside `table`, or give a line the interpreter would not: a truncated table
// whose stored part does not cover the offset, a malformed entry or an impossible line gives
// unknown (nullopt).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_PYTHON_LINE_TABLE_H_
#define BRRR_COLLECTOR_SYMBOLIZE_PYTHON_LINE_TABLE_H_

#include <cstdint>
#include <optional>

#include "absl/types/span.h"

namespace brrr::symbolize {

enum class LineTableFormat : uint8_t {
  kLnotab,     // 3.9
  kPep626,     // 3.10
  kLocations,  // 3.11, 3.12, 3.13
};

// The format of a PY_VERSION_HEX; nullopt outside 3.9-3.13.
std::optional<LineTableFormat> LineTableFormatFor(uint32_t python_version_hex);

struct LineTable {
  LineTableFormat format = LineTableFormat::kLocations;
  absl::Span<const uint8_t> bytes;  // the stored line-table bytes
  bool truncated = false;           // the code object's table was longer than `bytes`
  uint32_t first_line = 0;          // co_firstlineno
};

// The line of the instruction at byte `offset`, or nullopt when unknown. An offset that is
// negative as an int32 (an instruction pointer just before the first instruction) is the first
// line, as in PyCode_Addr2Line.
std::optional<uint32_t> PythonLine(const LineTable& table, uint32_t offset);

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_PYTHON_LINE_TABLE_H_
