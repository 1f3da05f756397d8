// A minimal JSON emitter: objects, arrays, strings (escaped so the output is always valid UTF-8
// JSON), exact 64-bit integers and booleans, pretty (2-space indent) or compact.
//
// Thread safety: one writer per thread. Callers must balance Begin/End and put a Key before each
// value inside an object; the writer does not validate the nesting.
// Must never: emit invalid JSON for any string input (control characters are escaped, invalid
// UTF-8 bytes become U+FFFD).
#ifndef BRRR_VIEWER_FORMAT_JSON_WRITER_H_
#define BRRR_VIEWER_FORMAT_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace brrr {

// Appends `text` as a quoted JSON string: '"' and '\\' escaped, control characters (< 0x20 and
// 0x7F) as \n, \t, ... or \u00XX, U+2028/U+2029 as \u2028/\u2029 (safe inside <script>), and
// each byte that is not part of valid UTF-8 as \ufffd.
void AppendJsonString(std::string& out, absl::string_view text);

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty) : pretty_(pretty) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(absl::string_view key);
  void String(absl::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Bool(bool value);
  void Null();

  // Key + value in one call.
  void StringMember(absl::string_view key, absl::string_view value) {
    Key(key);
    String(value);
  }
  void IntMember(absl::string_view key, int64_t value) {
    Key(key);
    Int(value);
  }
  void UintMember(absl::string_view key, uint64_t value) {
    Key(key);
    Uint(value);
  }
  void BoolMember(absl::string_view key, bool value) {
    Key(key);
    Bool(value);
  }

  // The document so far; a trailing newline is added in pretty mode.
  std::string Finish();

 private:
  void BeforeValue();
  void Open(char bracket);
  void Close(char bracket);
  void NewLine();

  bool pretty_;
  std::string out_;
  // Per open container: whether it has at least one element yet.
  std::vector<bool> has_elements_;
  bool after_key_ = false;
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_JSON_WRITER_H_
