// Recursive-descent strict JSON parser with depth, size and value-count limits.
//
// Must never: recurse without bound, read outside the input, accept non-RFC-8259 input, or take
// more than O(n log n) time on any input.
#include "viewer/format/json_value.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "viewer/utf8.h"

namespace brrr {

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (const JsonMember& member : members) {
    if (member.key == key) return &member.value;
  }
  return nullptr;
}

absl::string_view JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return "boolean";
    case JsonValue::Kind::kNumber:
      return "number";
    case JsonValue::Kind::kString:
      return "string";
    case JsonValue::Kind::kArray:
      return "array";
    case JsonValue::Kind::kObject:
      return "object";
  }
  return "?";
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(absl::string_view text, const JsonLimits& limits) : text_(text), limits_(limits) {}

  absl::StatusOr<JsonValue> ParseDocument() {
    if (text_.size() > limits_.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("JSON: input of ", text_.size(),
                                                     " bytes exceeds the limit of ",
                                                     limits_.max_bytes, " bytes"));
    }
    JsonValue root;
    if (!ParseValue(root, 0)) return Error();
    SkipWhitespace();
    if (pos_ != text_.size()) {
      Fail("unexpected data after the JSON value");
      return Error();
    }
    return root;
  }

 private:
  // Records the first error at the current position; always returns false.
  bool Fail(absl::string_view what) {
    if (error_.empty()) {
      error_ = std::string(what);
      error_pos_ = pos_;
    }
    return false;
  }

  absl::Status Error() const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < error_pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat("JSON: at byte ", error_pos_, " (line ", line,
                                                   ", column ", column, "): ", error_));
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }

  void SkipWhitespace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) {
      ++pos_;
    }
  }

  bool ConsumeLiteral(absl::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) {
      return Fail(absl::StrCat("invalid literal (expected '", literal, "')"));
    }
    pos_ += literal.size();
    return true;
  }

  bool ParseValue(JsonValue& out, int depth) {
    if (++values_ > limits_.max_values) {
      return Fail(absl::StrCat("more than ", limits_.max_values, " values"));
    }
    SkipWhitespace();
    if (AtEnd()) return Fail("unexpected end of input, expected a value");
    switch (Peek()) {
      case '{':
        return ParseObject(out, depth + 1);
      case '[':
        return ParseArray(out, depth + 1);
      case '"':
        out.kind = JsonValue::Kind::kString;
        return ParseString(out.text);
      case 't':
        out.kind = JsonValue::Kind::kBool;
        out.boolean = true;
        return ConsumeLiteral("true");
      case 'f':
        out.kind = JsonValue::Kind::kBool;
        out.boolean = false;
        return ConsumeLiteral("false");
      case 'n':
        out.kind = JsonValue::Kind::kNull;
        return ConsumeLiteral("null");
      default:
        if (Peek() == '-' || IsDigit(Peek())) return ParseNumber(out);
        return Fail(absl::StrCat("unexpected character '", absl::CHexEscape(text_.substr(pos_, 1)),
                                 "', expected a value"));
    }
  }

  bool ParseNumber(JsonValue& out) {
    const size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (AtEnd() || !IsDigit(Peek())) return Fail("invalid number: expected a digit");
    if (Peek() == '0') {
      ++pos_;
      if (!AtEnd() && IsDigit(Peek())) return Fail("invalid number: leading zero");
    } else {
      while (!AtEnd() && IsDigit(Peek())) ++pos_;
    }
    if (!AtEnd() && Peek() == '.') {
      ++pos_;
      if (AtEnd() || !IsDigit(Peek())) return Fail("invalid number: expected a digit after '.'");
      while (!AtEnd() && IsDigit(Peek())) ++pos_;
    }
    if (!AtEnd() && (Peek() == 'e' || Peek() == 'E')) {
      ++pos_;
      if (!AtEnd() && (Peek() == '+' || Peek() == '-')) ++pos_;
      if (AtEnd() || !IsDigit(Peek())) return Fail("invalid number: expected an exponent digit");
      while (!AtEnd() && IsDigit(Peek())) ++pos_;
    }
    out.kind = JsonValue::Kind::kNumber;
    out.text.assign(text_.data() + start, pos_ - start);
    return true;
  }

  // Reads the 4 hex digits of a \u escape at pos_.
  bool ParseHex4(uint32_t& value) {
    if (text_.size() - pos_ < 4) return Fail("truncated \\u escape");
    value = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = HexValue(text_[pos_ + i]);
      if (digit < 0) return Fail("invalid hex digit in \\u escape");
      value = (value << 4) | static_cast<uint32_t>(digit);
    }
    pos_ += 4;
    return true;
  }

  bool ParseEscape(std::string& out) {
    if (AtEnd()) return Fail("unterminated string");
    const char c = Peek();
    ++pos_;
    switch (c) {
      case '"':
        out.push_back('"');
        return true;
      case '\\':
        out.push_back('\\');
        return true;
      case '/':
        out.push_back('/');
        return true;
      case 'b':
        out.push_back('\b');
        return true;
      case 'f':
        out.push_back('\f');
        return true;
      case 'n':
        out.push_back('\n');
        return true;
      case 'r':
        out.push_back('\r');
        return true;
      case 't':
        out.push_back('\t');
        return true;
      case 'u':
        break;
      default:
        --pos_;
        return Fail("invalid escape in string");
    }
    uint32_t cp = 0;
    if (!ParseHex4(cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail("unpaired low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") return Fail("unpaired high surrogate in \\u escape");
      pos_ += 2;
      uint32_t low = 0;
      if (!ParseHex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return Fail("high surrogate not followed by a low one");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(out, cp);
    return true;
  }

  bool ParseString(std::string& out) {
    ++pos_;  // opening quote
    out.clear();
    while (true) {
      if (AtEnd()) return Fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(Peek());
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        ++pos_;
        if (!ParseEscape(out)) return false;
      } else if (c < 0x20) {
        return Fail("raw control character in string (must be escaped)");
      } else if (c < 0x80) {
        out.push_back(static_cast<char>(c));
        ++pos_;
      } else {
        uint32_t cp = 0;
        const size_t length = DecodeUtf8(text_, pos_, cp);
        if (length == 0) return Fail("invalid UTF-8 in string");
        out.append(text_.data() + pos_, length);
        pos_ += length;
      }
    }
  }

  bool ParseArray(JsonValue& out, int depth) {
    if (depth > limits_.max_depth) {
      return Fail(absl::StrCat("nesting deeper than ", limits_.max_depth));
    }
    out.kind = JsonValue::Kind::kArray;
    ++pos_;  // '['
    SkipWhitespace();
    if (!AtEnd() && Peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      out.elements.emplace_back();
      if (!ParseValue(out.elements.back(), depth)) return false;
      SkipWhitespace();
      if (AtEnd()) return Fail("unterminated array");
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == ']') {
        ++pos_;
        return true;
      }
      return Fail("expected ',' or ']' in array");
    }
  }

  bool ParseObject(JsonValue& out, int depth) {
    if (depth > limits_.max_depth) {
      return Fail(absl::StrCat("nesting deeper than ", limits_.max_depth));
    }
    out.kind = JsonValue::Kind::kObject;
    const size_t object_start = pos_;
    ++pos_;  // '{'
    SkipWhitespace();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipWhitespace();
      if (AtEnd() || Peek() != '"') return Fail("expected a string key in object");
      out.members.emplace_back();
      if (!ParseString(out.members.back().key)) return false;
      SkipWhitespace();
      if (AtEnd() || Peek() != ':') return Fail("expected ':' after object key");
      ++pos_;
      if (!ParseValue(out.members.back().value, depth)) return false;
      SkipWhitespace();
      if (AtEnd()) return Fail("unterminated object");
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      return Fail("expected ',' or '}' in object");
    }
    return CheckUniqueKeys(out, object_start);
  }

  bool CheckUniqueKeys(const JsonValue& object, size_t object_start) {
    std::vector<absl::string_view> keys;
    keys.reserve(object.members.size());
    for (const JsonMember& member : object.members) keys.push_back(member.key);
    std::sort(keys.begin(), keys.end());
    const auto duplicate = std::adjacent_find(keys.begin(), keys.end());
    if (duplicate == keys.end()) return true;
    pos_ = object_start;
    return Fail(absl::StrCat("duplicate key \"", absl::CHexEscape(*duplicate), "\" in object"));
  }

  absl::string_view text_;
  JsonLimits limits_;
  size_t pos_ = 0;
  size_t values_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
};

}  // namespace

absl::StatusOr<JsonValue> ParseJson(absl::string_view text, const JsonLimits& limits) {
  return Parser(text, limits).ParseDocument();
}

}  // namespace brrr
