// Parsing rules of the settings table. See settings.h.
//
// Must never: allocate, or read past a value's terminating NUL.
#include "shim/settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shim/text_append.h"

namespace brrr::settings {
namespace {

using text::Append;
using text::AppendU64;

}  // namespace

ParseError ParseBool(const char* text, bool* out) {
  if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0 || strcmp(text, "on") == 0) {
    *out = true;
    return ParseError::kOk;
  }
  if (strcmp(text, "0") == 0 || strcmp(text, "false") == 0 || strcmp(text, "off") == 0) {
    *out = false;
    return ParseError::kOk;
  }
  return ParseError::kNotBool;
}

ParseError ParseNumber(const Spec& spec, const char* text, uint64_t* out) {
  if (text[0] < '0' || text[0] > '9') return ParseError::kNotNumber;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = strtoull(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE) return ParseError::kNotNumber;
  const bool power_of_two = spec.kind == Kind::kPowerOfTwo;
  if (power_of_two && !ring::IsPowerOfTwo(v)) return ParseError::kNotPowerOfTwo;
  if (v < spec.lo || v > spec.hi) {
    return power_of_two ? ParseError::kNotPowerOfTwo : ParseError::kOutOfRange;
  }
  *out = v;
  return ParseError::kOk;
}

ParseError ParseChoice(const Spec& spec, const char* text, uint32_t* index) {
  const size_t length = strlen(text);
  uint32_t i = 0;
  for (const char* p = spec.values;; ++i) {
    const char* bar = strchr(p, '|');
    const size_t n = bar != nullptr ? static_cast<size_t>(bar - p) : strlen(p);
    if (n == length && strncmp(p, text, n) == 0) {
      *index = i;
      return ParseError::kOk;
    }
    if (bar == nullptr) return ParseError::kNotChoice;
    p = bar + 1;
  }
}

ParseError ParsePercent(const Spec& spec, const char* text, uint64_t* permille) {
  uint64_t whole = 0, tenths = 0;
  const char* p = text;
  if (*p < '0' || *p > '9') return ParseError::kNotPercent;
  for (; *p >= '0' && *p <= '9'; ++p) {
    whole = whole * 10 + static_cast<uint64_t>(*p - '0');
    if (whole > 1000) return ParseError::kNotPercent;
  }
  if (*p == '.') {
    ++p;
    if (*p < '0' || *p > '9') return ParseError::kNotPercent;
    tenths = static_cast<uint64_t>(*p - '0');
    ++p;
  }
  if (*p == '%') ++p;
  if (*p != '\0') return ParseError::kNotPercent;
  const uint64_t v = whole * 10 + tenths;
  if (v < spec.lo || v > spec.hi) return ParseError::kNotPercent;
  *permille = v;
  return ParseError::kOk;
}

const char* DescribeError(const Spec& spec, ParseError error, char* buf, size_t size) {
  size_t at = 0;
  buf[0] = '\0';
  switch (error) {
    case ParseError::kOk:
      break;
    case ParseError::kNotBool:
      Append(buf, size, &at, "not 1 or 0");
      break;
    case ParseError::kNotNumber:
    case ParseError::kOutOfRange:
      Append(buf, size, &at, error == ParseError::kNotNumber ? "not a whole number" : "not");
      Append(buf, size, &at, error == ParseError::kNotNumber ? " from " : " between ");
      AppendU64(buf, size, &at, spec.lo);
      Append(buf, size, &at, error == ParseError::kNotNumber ? " to " : " and ");
      AppendU64(buf, size, &at, spec.hi);
      break;
    case ParseError::kNotPowerOfTwo:
      Append(buf, size, &at, "not a power of two between ");
      AppendU64(buf, size, &at, spec.lo);
      Append(buf, size, &at, " and ");
      AppendU64(buf, size, &at, spec.hi);
      break;
    case ParseError::kNotPercent:
      Append(buf, size, &at, "not a percentage (like 10% or 2.5%) from ");
      AppendU64(buf, size, &at, spec.lo / 10);
      if (spec.lo % 10 != 0) {
        Append(buf, size, &at, ".");
        AppendU64(buf, size, &at, spec.lo % 10);
      }
      Append(buf, size, &at, "% to ");
      AppendU64(buf, size, &at, spec.hi / 10);
      Append(buf, size, &at, "%");
      break;
    case ParseError::kNotChoice:
      Append(buf, size, &at, "not one of ");
      for (const char* p = spec.values; *p != '\0'; ++p) {
        const char one[2] = {*p == '|' ? ',' : *p, '\0'};
        Append(buf, size, &at, one);
        if (*p == '|') Append(buf, size, &at, " ");
      }
      break;
  }
  return buf;
}

const char* DescribeDefault(const Spec& spec, char* buf, size_t size) {
  size_t at = 0;
  buf[0] = '\0';
  switch (spec.kind) {
    case Kind::kBool:
    case Kind::kNumber:
    case Kind::kPowerOfTwo:
      AppendU64(buf, size, &at, spec.default_number);
      break;
    case Kind::kChoice:
    case Kind::kText:
    case Kind::kDuration:
      Append(buf, size, &at, spec.default_text);
      break;
    case Kind::kPercent:
      if (spec.default_number == 0 && spec.default_text[0] != '\0') {  // "off": below its range
        Append(buf, size, &at, spec.default_text);
        break;
      }
      AppendU64(buf, size, &at, spec.default_number / 10);
      if (spec.default_number % 10 != 0) {
        Append(buf, size, &at, ".");
        AppendU64(buf, size, &at, spec.default_number % 10);
      }
      Append(buf, size, &at, "%");
      break;
  }
  return buf;
}

}  // namespace brrr::settings
