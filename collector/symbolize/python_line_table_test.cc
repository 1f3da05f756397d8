// Tests for the line-table decoder against the interpreters themselves: testdata/
// python_line_tables.py runs under every CPython on the machine (Debian's python3 and pyenv's
// 3.9-3.13) and prints real line tables with PyCode_Addr2Line's answer for every offset; the
// decoder must give the same line everywhere, and after truncation or damage either the same line
// or unknown.
#include "collector/symbolize/python_line_table.h"

#include <glob.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace brrr::symbolize {
namespace {

struct DumpedCode {
  std::string name;
  uint32_t version = 0;
  uint32_t first_line = 0;
  std::vector<uint8_t> table;
  std::vector<std::pair<int32_t, int32_t>> lines;  // (offset, CPython's line; -1 = none)
};

std::vector<uint8_t> FromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  if (hex == "-") return out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<DumpedCode> Dump(const std::string& python) {
  const std::string command = python + " " BRRR_LINE_TABLE_SCRIPT;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string text;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) text.append(buffer, n);
  if (pclose(pipe) != 0) return {};
  std::vector<DumpedCode> codes;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (word == "code") {
      DumpedCode code;
      std::string hex;
      in >> code.name >> code.version >> code.first_line >> hex;
      code.table = FromHex(hex);
      codes.push_back(std::move(code));
    } else if (word != "end" && !codes.empty()) {
      int32_t line = 0;
      in >> line;
      codes.back().lines.emplace_back(std::stoi(word), line);
    }
  }
  return codes;
}

std::vector<std::string> Pythons() {
  std::vector<std::string> found;
  if (FILE* f = std::fopen("/usr/bin/python3", "r")) {
    std::fclose(f);
    found.push_back("/usr/bin/python3");
  }
  glob_t g{};
  if (glob("/root/.pyenv/versions/3.*/bin/python3", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string path = g.gl_pathv[i];
      for (const char* minor : {"/3.9.", "/3.10.", "/3.11.", "/3.12.", "/3.13."}) {
        if (path.find(minor) != std::string::npos) found.push_back(path);
      }
    }
  }
  globfree(&g);
  return found;
}

std::optional<uint32_t> Expected(int32_t cpython_line) {
  if (cpython_line <= 0) return std::nullopt;
  return static_cast<uint32_t>(cpython_line);
}

LineTable TableOf(const DumpedCode& code, size_t stored) {
  LineTable t;
  t.format = *LineTableFormatFor(code.version);
  t.bytes = absl::MakeConstSpan(code.table.data(), stored);
  t.truncated = stored < code.table.size();
  t.first_line = code.first_line;
  return t;
}

class RealCPython : public ::testing::TestWithParam<std::string> {};

TEST_P(RealCPython, DecoderAgreesWithPyCodeAddr2LineAtEveryOffset) {
  const std::vector<DumpedCode> codes = Dump(GetParam());
  ASSERT_GE(codes.size(), 10u) << "the dump script failed under " << GetParam();
  size_t lines_checked = 0;
  for (const DumpedCode& code : codes) {
    ASSERT_TRUE(LineTableFormatFor(code.version).has_value()) << std::hex << code.version;
    const LineTable table = TableOf(code, code.table.size());
    for (const auto& [offset, line] : code.lines) {
      EXPECT_EQ(PythonLine(table, static_cast<uint32_t>(offset)), Expected(line))
          << GetParam() << " " << code.name << " offset " << offset;
      lines_checked += line > 0;
    }
  }
  // The functions span hundreds of lines and long bodies: most offsets have a line.
  EXPECT_GT(lines_checked, 500u);
}

TEST_P(RealCPython, TruncatedTableGivesTheRightLineOrUnknown) {
  const std::vector<DumpedCode> codes = Dump(GetParam());
  ASSERT_FALSE(codes.empty());
  size_t known_after_cut = 0;
  for (const DumpedCode& code : codes) {
    for (size_t stored = 0; stored < code.table.size(); ++stored) {
      const LineTable table = TableOf(code, stored);
      for (const auto& [offset, line] : code.lines) {
        if (offset < 0) continue;
        const std::optional<uint32_t> got = PythonLine(table, static_cast<uint32_t>(offset));
        if (got.has_value()) {
          ++known_after_cut;
          EXPECT_EQ(got, Expected(line))
              << GetParam() << " " << code.name << " cut to " << stored << " offset " << offset;
        }
      }
    }
  }
  // Cutting the end of a table keeps the lines of the offsets its start covers.
  EXPECT_GT(known_after_cut, 1000u);
}

TEST_P(RealCPython, DamagedTablesNeverReadOutsideTheirBytes) {
  // Under ASan a read past the copy below fails the test; the answers themselves cannot be
  // checked (damage that stays well-formed changes lines), only that the decoder stays inside.
  const std::vector<DumpedCode> codes = Dump(GetParam());
  ASSERT_FALSE(codes.empty());
  std::mt19937 random(8);
  for (const DumpedCode& code : codes) {
    for (int round = 0; round < 50; ++round) {
      std::vector<uint8_t> damaged = code.table;
      if (damaged.empty()) break;
      for (int flips = 0; flips < 3; ++flips) damaged[random() % damaged.size()] = random();
      LineTable table = TableOf(code, code.table.size());
      table.bytes = absl::MakeConstSpan(damaged);
      table.truncated = round % 2;
      for (const auto& [offset, line] : code.lines) {
        const std::optional<uint32_t> got = PythonLine(table, static_cast<uint32_t>(offset));
        if (got.has_value()) {
          EXPECT_GT(*got, 0u);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Interpreters, RealCPython, ::testing::ValuesIn(Pythons()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RealCPython);

TEST(PythonLineTableTest, VersionsOutsideThreeNineToThreeThirteenHaveNoFormat) {
  EXPECT_FALSE(LineTableFormatFor(0x030800F0).has_value());
  EXPECT_FALSE(LineTableFormatFor(0x030E00A0).has_value());
  EXPECT_FALSE(LineTableFormatFor(0).has_value());
  EXPECT_EQ(LineTableFormatFor(0x030900F0), LineTableFormat::kLnotab);
  EXPECT_EQ(LineTableFormatFor(0x030A0DF0), LineTableFormat::kPep626);
  EXPECT_EQ(LineTableFormatFor(0x030D00F0), LineTableFormat::kLocations);
}

TEST(PythonLineTableTest, LocationEntryWithoutItsStartBitIsUnknown) {
  // A valid one-line entry (code 11: line + 1, two column bytes) then a byte that starts no
  // entry where the next entry should be.
  const uint8_t bytes[] = {0x80 | (11 << 3) | 1, 0x04, 0x08, 0x05};
  LineTable t{LineTableFormat::kLocations, absl::MakeConstSpan(bytes), false, 10};
  EXPECT_EQ(PythonLine(t, 0), 11u);
  EXPECT_EQ(PythonLine(t, 2), 11u);
  EXPECT_EQ(PythonLine(t, 4), std::nullopt);
}

TEST(PythonLineTableTest, LongFormLineDeltaCutMidVarintIsUnknown) {
  // Code 14 with a line delta of +100 (zigzag 200 = 0x08 | 0x40, then 0x03) cut after one byte.
  const uint8_t bytes[] = {0x80 | (14 << 3), 0x48};
  LineTable t{LineTableFormat::kLocations, absl::MakeConstSpan(bytes), true, 1};
  EXPECT_EQ(PythonLine(t, 0), std::nullopt);
  const uint8_t whole[] = {0x80 | (14 << 3), 0x48, 0x03, 0x00, 0x01, 0x01};
  t.bytes = absl::MakeConstSpan(whole);
  t.truncated = false;
  EXPECT_EQ(PythonLine(t, 0), 101u);
}

}  // namespace
}  // namespace brrr::symbolize
