// libFuzzer target for the Python line-table decoder: the input is a line table of any of the
// three formats (byte 0: format and truncation; bytes 1-8: first line and offset; the rest: the
// table, copied to a buffer of exactly its size so that any read past it is a sanitizer error).
// Traps when the decoder answers line 0 or a line beyond its limit. Built only with clang and
// -DBRRR_FUZZ=ON; python_line_table_test.cc runs real and damaged tables under gtest.
//
// Must never: depend on anything but the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include "collector/symbolize/python_line_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  using brrr::symbolize::LineTableFormat;
  brrr::symbolize::LineTable table;
  table.format = static_cast<LineTableFormat>(data[0] % 3);
  table.truncated = (data[0] & 0x80) != 0;
  uint32_t offset = 0;
  std::memcpy(&table.first_line, data + 1, 4);
  std::memcpy(&offset, data + 5, 4);
  const size_t length = size - 9;
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[length]);
  if (length > 0) std::memcpy(bytes.get(), data + 9, length);
  table.bytes = absl::MakeConstSpan(bytes.get(), length);
  const std::optional<uint32_t> line = brrr::symbolize::PythonLine(table, offset);
  if (line.has_value() && (*line == 0 || *line > (1u << 30))) __builtin_trap();
  return 0;
}
