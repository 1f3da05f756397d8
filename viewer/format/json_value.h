// A small strict JSON parser (RFC 8259) into a tree of JsonValue, for reading reports back.
// Strict: no comments, no trailing commas, no NaN/Infinity, no leading zeros, no raw control
// characters or invalid UTF-8 in strings, no unpaired surrogate escapes, no duplicate object keys,
// nothing after the top-level value. Numbers keep their literal text so 64-bit integers stay exact.
//
// Thread safety: ParseJson is reentrant. JsonValue is a plain value type.
// Must never: crash, recurse deeper than max_depth, or allocate beyond what the limits allow,
// whatever the input.
#ifndef BRRR_VIEWER_FORMAT_JSON_VALUE_H_
#define BRRR_VIEWER_FORMAT_JSON_VALUE_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace brrr {

struct JsonMember;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;                 // kString: the decoded string; kNumber: the literal as written
  std::vector<JsonValue> elements;  // kArray
  std::vector<JsonMember> members;  // kObject, in document order

  // The member named `key` of an object, or nullptr (also when this is not an object).
  const JsonValue* Find(absl::string_view key) const;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

// "null", "boolean", "number", "string", "array", "object".
absl::string_view JsonKindName(JsonValue::Kind kind);

struct JsonLimits {
  size_t max_bytes = 16u << 20;  // input size
  int max_depth = 64;            // nesting of arrays and objects
  size_t max_values = 1u << 20;  // values of any kind in the document
};

// Errors read "JSON: at byte N (line L, column C): <what>".
absl::StatusOr<JsonValue> ParseJson(absl::string_view text, const JsonLimits& limits = {});

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_JSON_VALUE_H_
