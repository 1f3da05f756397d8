// The strict JSON reader for documents from outside (.brrr files, `brrr report --json` output fed
// back): nlohmann::json's SAX parser with a handler that enforces what nlohmann alone lets through.
// nlohmann rejects comments, trailing commas, NaN/Infinity literals, leading zeros, raw control
// characters, invalid UTF-8, unpaired surrogate escapes, numbers that overflow a double (1e999)
// and anything after the top-level value; we add: no NUL byte anywhere (nlohmann would end the
// input there), no duplicate object keys, nesting at most max_depth deep, at most max_values
// values, and an input of at most max_bytes.
//
// Thread safety: reentrant.
// Must never: throw, crash, or allocate beyond what the limits allow, whatever the input.
#ifndef BRRR_VIEWER_FORMAT_STRICT_JSON_H_
#define BRRR_VIEWER_FORMAT_STRICT_JSON_H_

#include <cstddef>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace brrr {

struct JsonLimits {
  size_t max_bytes = 16u << 20;  // input size
  int max_depth = 64;            // nesting of arrays and objects
  size_t max_values = 1u << 20;  // values of any kind in the document
};

// The document as an nlohmann::json tree (objects sorted by key; integers that fit int64 or
// uint64 held exactly as such, other numbers as finite doubles). Errors read
// "JSON: at byte N (line L, column C): <what>", N counted from 0.
absl::StatusOr<nlohmann::json> ParseStrictJson(absl::string_view text,
                                               const JsonLimits& limits = {});

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_STRICT_JSON_H_
