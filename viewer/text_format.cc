// Durations, counts, percentages and safe, width-limited text for the terminal report.
//
// Must never: emit control characters or broken UTF-8.
#include "viewer/text_format.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "viewer/utf8.h"

namespace brrr {
namespace {

// Three significant digits of `value` (>= 0) followed by `unit`.
std::string ThreeDigits(double value, absl::string_view unit) {
  if (value < 9.995) return absl::StrFormat("%.2f %s", value, unit);
  if (value < 99.95) return absl::StrFormat("%.1f %s", value, unit);
  return absl::StrFormat("%.0f %s", value, unit);
}

// Byte offsets where each code point of `text` starts.
std::vector<size_t> CodePointStarts(absl::string_view text) {
  std::vector<size_t> starts;
  size_t pos = 0;
  while (pos < text.size()) {
    starts.push_back(pos);
    uint32_t cp = 0;
    const size_t length = DecodeUtf8(text, pos, cp);
    pos += length == 0 ? 1 : length;
  }
  return starts;
}

}  // namespace

std::string FormatDuration(int64_t ns) {
  const bool negative = ns < 0;
  // Magnitude as unsigned so INT64_MIN is representable.
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  const double v = static_cast<double>(magnitude);
  std::string text;
  if (magnitude < 1000) {
    text = absl::StrCat(magnitude, " ns");
  } else if (v < 999'500.0) {
    text = ThreeDigits(v / 1e3, "us");
  } else if (v < 999'500'000.0) {
    text = ThreeDigits(v / 1e6, "ms");
  } else {
    text = ThreeDigits(v / 1e9, "s");
  }
  return negative ? absl::StrCat("-", text) : text;
}

std::string FormatCount(uint64_t n) {
  const std::string digits = absl::StrCat(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string FormatPercent(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return absl::StrFormat("%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string TerminalSafe(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    uint32_t cp = 0;
    const size_t length = DecodeUtf8(text, pos, cp);
    if (length == 0) {
      out.push_back('?');
      ++pos;
      continue;
    }
    if (cp == '\t' || cp == '\n' || cp == '\r') {
      out.push_back(' ');
    } else if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
      out.push_back('?');
    } else {
      out.append(text.data() + pos, length);
    }
    pos += length;
  }
  return out;
}

size_t DisplayWidth(absl::string_view text) { return CodePointStarts(text).size(); }

namespace {

// Where a C++ symbol's scope ends and its arguments start: `name_start` just past the last "::"
// outside template arguments and parentheses, before `args`, the first '(' at that depth (its
// size when none). Brackets that do not balance leave both at what was found so far.
struct SymbolParts {
  size_t name_start = 0;
  size_t args = 0;
};

SymbolParts SplitSymbol(absl::string_view text) {
  SymbolParts parts;
  parts.args = text.size();
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      ++depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (c == '(' && depth == 0) {
      // "(anonymous namespace)::" is a scope, not arguments.
      const size_t close = text.find(')', i);
      if (close != absl::string_view::npos && text.substr(close + 1, 2) == "::") {
        i = close + 2;
        parts.name_start = i + 1;
        continue;
      }
      parts.args = i;
      break;
    } else if (c == ':' && depth == 0 && i + 1 < text.size() && text[i + 1] == ':') {
      parts.name_start = i + 2;
      ++i;
    }
  }
  return parts;
}

// A function's name in `width` columns, its own name kept longest (text_format.h, kSymbol).
std::string FitSymbol(absl::string_view text, size_t width) {
  const SymbolParts parts = SplitSymbol(text);
  const absl::string_view name = text.substr(parts.name_start, parts.args - parts.name_start);
  const absl::string_view args = text.substr(parts.args);
  if (parts.name_start > 0) {
    std::string unscoped = absl::StrCat("...::", name, args);
    if (DisplayWidth(unscoped) <= width) return unscoped;
  }
  if (!args.empty()) {
    std::string no_args = absl::StrCat(name, "(...)");
    if (DisplayWidth(no_args) <= width) return no_args;
  }
  return FitWidth(name, width, Elide::kEnd);
}

}  // namespace

std::string FitWidth(absl::string_view text, size_t width, Elide elide) {
  const std::vector<size_t> starts = CodePointStarts(text);
  if (starts.size() <= width) return std::string(text);
  constexpr absl::string_view kEllipsis = "...";
  if (width <= kEllipsis.size()) return std::string(kEllipsis.substr(0, width));
  if (elide == Elide::kSymbol) return FitSymbol(text, width);
  const size_t keep = width - kEllipsis.size();
  if (elide == Elide::kEnd) return absl::StrCat(text.substr(0, starts[keep]), kEllipsis);
  const size_t head = (keep + 1) / 2;
  const size_t tail = keep - head;
  const absl::string_view tail_text =
      tail == 0 ? absl::string_view() : text.substr(starts[starts.size() - tail]);
  return absl::StrCat(text.substr(0, starts[head]), kEllipsis, tail_text);
}

std::string PadRight(absl::string_view text, size_t width) {
  const size_t w = DisplayWidth(text);
  return absl::StrCat(text, std::string(w < width ? width - w : 0, ' '));
}

std::string PadLeft(absl::string_view text, size_t width) {
  const size_t w = DisplayWidth(text);
  return absl::StrCat(std::string(w < width ? width - w : 0, ' '), text);
}

void AppendWrapped(std::string& out, absl::string_view text, absl::string_view indent,
                   size_t width) {
  const size_t room = width > indent.size() + 10 ? width - indent.size() : 10;
  std::string line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const std::string w = FitWidth(word, room, Elide::kMiddle);
    if (!line.empty() && DisplayWidth(line) + 1 + DisplayWidth(w) > room) {
      absl::StrAppend(&out, indent, line, "\n");
      line.clear();
    }
    if (!line.empty()) line.push_back(' ');
    line += w;
  }
  if (!line.empty()) absl::StrAppend(&out, indent, line, "\n");
}

}  // namespace brrr
