// The settings table (settings.def) as data, and the parsing rules every reader of a setting
// shares: the shim at start-up, the brrr program for the environment and for the command-line
// options that mirror settings. One rule per kind, so `BRRR_X=true` means the same wherever it is
// read, and `--ring-records 1000` is refused exactly as `BRRR_RING_RECORDS=1000` is.
//
// Must never: allocate, lock or call anything but libc's string functions (the shim includes it),
// or accept a value outside the table's limits.
#ifndef BRRR_SHIM_SETTINGS_H_
#define BRRR_SHIM_SETTINGS_H_

#include <cstddef>
#include <cstdint>

#include "shim/segment_layout.h"

namespace brrr::settings {

enum class Setting : uint8_t {
#define BRRR_SETTING(id, ...) k##id,
#include "shim/settings.def"
#undef BRRR_SETTING
};

enum class Kind : uint8_t { kBool, kNumber, kPowerOfTwo, kChoice, kText, kDuration, kPercent };
enum class Reader : uint8_t { kShim, kBrrr, kBoth };
enum class Audience : uint8_t { kUser, kSetByBrrr, kTestOnly };

struct Spec {
  Setting id;
  const char* name;           // "BRRR_RING_RECORDS"
  Kind kind;
  uint64_t default_number;    // kBool, kNumber, kPowerOfTwo; kPercent: in permille
  const char* default_text;   // the others ("" = unset)
  uint64_t lo, hi;            // kNumber, kPowerOfTwo; kPercent: in permille
  const char* values;         // the accepted form, as shown ("1|0", "tsc|monotonic", "N")
  Reader reader;
  Audience audience;
  const char* option;         // "--ring-records", or ""
  const char* meaning;
};

inline constexpr Spec kSpecs[] = {
#define BRRR_SETTING(id, name, kind, number, text, lo, hi, values, reader, audience, option, \
                     meaning)                                                               \
  {Setting::k##id, name,          Kind::kind,         number, text, lo, hi, values,        \
   Reader::reader, Audience::audience, option, meaning},
#include "shim/settings.def"
#undef BRRR_SETTING
};
inline constexpr size_t kSettingCount = sizeof(kSpecs) / sizeof(kSpecs[0]);

constexpr bool SpecsAreInOrder() {
  for (size_t i = 0; i < kSettingCount; ++i) {
    if (static_cast<size_t>(kSpecs[i].id) != i) return false;
  }
  return true;
}
static_assert(SpecsAreInOrder(), "kSpecs[i] describes Setting i");

constexpr const Spec& SpecOf(Setting s) { return kSpecs[static_cast<size_t>(s)]; }

// Why a value was refused; kOk when it was taken.
enum class ParseError : uint8_t {
  kOk, kNotBool, kNotNumber, kOutOfRange, kNotPowerOfTwo, kNotChoice, kNotPercent
};

// kBool: 1/true/on or 0/false/off.
ParseError ParseBool(const char* text, bool* out);
// kNumber and kPowerOfTwo: a whole decimal number (no sign, no spaces) within the spec's limits.
ParseError ParseNumber(const Spec& spec, const char* text, uint64_t* out);
// kChoice: the index of `text` among the spec's '|'-separated values.
ParseError ParseChoice(const Spec& spec, const char* text, uint32_t* index);
// kPercent: "10%", "10", "2.5%" (at most one decimal) within the spec's limits, as permille.
ParseError ParsePercent(const Spec& spec, const char* text, uint64_t* permille);

// What a refused value should have been, for a message: "not 1 or 0", "not a whole number",
// "not between 8 and 4194304", "not a power of two between 8 and 4194304", "not one of tsc,
// monotonic". Written into `buf` (always terminated); returns buf.
const char* DescribeError(const Spec& spec, ParseError error, char* buf, size_t size);

// The default as shown: the number, or the text ("" = unset).
const char* DescribeDefault(const Spec& spec, char* buf, size_t size);

}  // namespace brrr::settings

#endif  // BRRR_SHIM_SETTINGS_H_
