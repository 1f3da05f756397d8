// Tests of reading CPython str/bytes objects as raw memory: every compact storage kind to UTF-8
// (checked against hand-written UTF-8), truncation at character boundaries, lone surrogates, and
// objects that must be refused (wrong type, not compact, absurd length, bad kind).
#include "shim/python_strings.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace brrr::shim {
namespace {

class PythonStringsTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  const PythonLayout& l() const { return *PythonLayoutFor(GetParam()); }

  // A compact str with `kind`-byte storage of `units`.
  template <typename Unit>
  const void* Make(const std::vector<Unit>& units, bool ascii) {
    const uint32_t header = ascii ? l().ascii_size : l().compact_size;
    storage_.assign((header + units.size() * sizeof(Unit) + 16) / 8 + 1, 0);
    char* o = reinterpret_cast<char*>(storage_.data());
    memcpy(o + l().object_type, &type_ptr_, sizeof(type_ptr_));
    const int64_t length = static_cast<int64_t>(units.size());
    memcpy(o + l().unicode_length, &length, sizeof(length));
    const uint32_t state = static_cast<uint32_t>(sizeof(Unit)) << l().state_kind_shift |
                           1u << l().state_compact_bit | (ascii ? 1u << l().state_ascii_bit : 0);
    memcpy(o + l().unicode_state, &state, sizeof(state));
    if (!units.empty()) memcpy(o + header, units.data(), units.size() * sizeof(Unit));
    return o;
  }
  std::string Utf8(const void* obj, uint32_t cap = 1024) {
    char out[1024];
    const int64_t n = UnicodeToUtf8(obj, l(), type_ptr_, out, cap);
    if (n < 0) return "<refused>";
    return std::string(out, static_cast<size_t>(n));
  }
  void SetState(const void* obj, uint32_t state) {
    memcpy(static_cast<char*>(const_cast<void*>(obj)) + l().unicode_state, &state, 4);
  }

  std::vector<uint64_t> storage_;
  const void* type_ptr_ = reinterpret_cast<const void*>(0x7000);
};

TEST_P(PythonStringsTest, EveryCompactKindBecomesUtf8) {
  EXPECT_EQ(Utf8(Make<uint8_t>({'t', 'r', 'a', 'i', 'n', '.', 'p', 'y'}, true)), "train.py");
  // latin-1: é (U+00E9) -> C3 A9
  EXPECT_EQ(Utf8(Make<uint8_t>({'c', 'a', 'f', 0xE9}, false)), "caf\xC3\xA9");
  // UCS-2: 日本 (U+65E5 U+672C) -> E6 97 A5, E6 9C AC
  EXPECT_EQ(Utf8(Make<uint16_t>({0x65E5, 0x672C, '/'}, false)), "\xE6\x97\xA5\xE6\x9C\xAC/");
  // UCS-4: 🐍 (U+1F40D) -> F0 9F 90 8D
  EXPECT_EQ(Utf8(Make<uint32_t>({'a', 0x1F40D}, false)), "a\xF0\x9F\x90\x8D");
  // A lone surrogate (surrogateescape'd file name byte) -> U+FFFD
  EXPECT_EQ(Utf8(Make<uint16_t>({'x', 0xDC80}, false)), "x\xEF\xBF\xBD");
  EXPECT_EQ(Utf8(Make<uint8_t>({}, true)), "");
}

TEST_P(PythonStringsTest, TruncationNeverSplitsACharacter) {
  const void* s = Make<uint32_t>({'a', 0x1F40D, 'b'}, false);
  EXPECT_EQ(Utf8(s, 4), "a");  // the 4-byte snake does not fit after 'a'
  EXPECT_EQ(Utf8(s, 5), "a\xF0\x9F\x90\x8D");
  EXPECT_EQ(Utf8(Make<uint8_t>({'a', 'b', 'c', 'd'}, true), 3), "abc");
  EXPECT_EQ(Utf8(Make<uint8_t>({0xE9, 0xE9}, false), 3), "\xC3\xA9");
}

TEST_P(PythonStringsTest, RefusesWhatIsNotASaneCompactStr) {
  const void* s = Make<uint8_t>({'a'}, true);
  char out[16];
  EXPECT_LT(UnicodeToUtf8(s, l(), reinterpret_cast<const void*>(0x8000), out, 16), 0);  // type
  EXPECT_LT(UnicodeToUtf8(nullptr, l(), type_ptr_, out, 16), 0);
  EXPECT_LT(UnicodeToUtf8(static_cast<const char*>(s) + 4, l(), type_ptr_, out, 16), 0);
  SetState(s, 1u << l().state_kind_shift);  // not compact
  EXPECT_EQ(Utf8(s), "<refused>");
  SetState(s, 3u << l().state_kind_shift | 1u << l().state_compact_bit);  // kind 3
  EXPECT_EQ(Utf8(s), "<refused>");
  s = Make<uint8_t>({'a'}, true);
  const int64_t huge = int64_t{1} << 40;
  memcpy(static_cast<char*>(const_cast<void*>(s)) + l().unicode_length, &huge, 8);
  EXPECT_EQ(Utf8(s), "<refused>");
}

TEST_P(PythonStringsTest, BytesObjectsCopyAtMostCap) {
  std::vector<uint64_t> b(16, 0);
  char* o = reinterpret_cast<char*>(b.data());
  const void* bytes_type = reinterpret_cast<const void*>(0x9000);
  memcpy(o + l().object_type, &bytes_type, 8);
  const int64_t size = 6;
  memcpy(o + l().var_size, &size, 8);
  memcpy(o + l().bytes_sval, "\x01\x02\x03\x04\x05\x06", 6);
  char out[8];
  uint32_t full = 0;
  EXPECT_EQ(CopyBytesObject(o, l(), bytes_type, out, 4, &full), 4);
  EXPECT_EQ(full, 6u);
  EXPECT_EQ(std::string(out, 4), "\x01\x02\x03\x04");
  EXPECT_LT(CopyBytesObject(o, l(), type_ptr_, out, 4, &full), 0);
  const int64_t negative = -1;
  memcpy(o + l().var_size, &negative, 8);
  EXPECT_LT(CopyBytesObject(o, l(), bytes_type, out, 4, &full), 0);
}

INSTANTIATE_TEST_SUITE_P(Versions, PythonStringsTest, ::testing::Values(9u, 11u, 12u, 13u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return "Py3_" + std::to_string(i.param);
                         });

}  // namespace
}  // namespace brrr::shim
