// JSON emission with escaping that always yields valid UTF-8 JSON.
//
// Must never: pass a raw control character or an invalid UTF-8 byte through to the output.
#include "viewer/format/json_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/utf8.h"

namespace brrr {

void AppendJsonString(std::string& out, absl::string_view text) {
  out.push_back('"');
  size_t pos = 0;
  while (pos < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c >= 0x80) {
      uint32_t cp = 0;
      const size_t length = DecodeUtf8(text, pos, cp);
      if (length == 0) {
        out += "\\ufffd";
        ++pos;
      } else if (cp == 0x2028 || cp == 0x2029) {
        absl::StrAppendFormat(&out, "\\u%04x", cp);
        pos += length;
      } else {
        out.append(text.data() + pos, length);
        pos += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++pos;
  }
  out.push_back('"');
}

void JsonWriter::NewLine() {
  if (!pretty_) return;
  out_.push_back('\n');
  out_.append(2 * has_elements_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_elements_.empty()) return;  // top-level value
  if (has_elements_.back()) out_.push_back(',');
  has_elements_.back() = true;
  NewLine();
}

void JsonWriter::Open(char bracket) {
  BeforeValue();
  out_.push_back(bracket);
  has_elements_.push_back(false);
}

void JsonWriter::Close(char bracket) {
  const bool had_elements = !has_elements_.empty() && has_elements_.back();
  if (!has_elements_.empty()) has_elements_.pop_back();
  if (had_elements) NewLine();
  out_.push_back(bracket);
}

void JsonWriter::Key(absl::string_view key) {
  BeforeValue();
  AppendJsonString(out_, key);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
}

void JsonWriter::String(absl::string_view value) {
  BeforeValue();
  AppendJsonString(out_, value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

std::string JsonWriter::Finish() {
  if (pretty_) out_.push_back('\n');
  return std::move(out_);
}

}  // namespace brrr
