// The settings table as text. See settings_listing.h.
#include "collector/cli/settings_listing.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "viewer/text_format.h"
#include "shim/settings.h"

namespace brrr::cli {
namespace {

// 26 columns of name, 14 of default, a space after each: the text's column.
constexpr absl::string_view kIndent = "                                          ";
static_assert(kIndent.size() == 26 + 1 + 14 + 1);
constexpr size_t kSettingsColumns = 100;  // settings_listing.h

const char* ReaderText(settings::Reader reader) {
  switch (reader) {
    case settings::Reader::kShim:
      return "libbrrr.so";
    case settings::Reader::kBrrr:
      return "brrr";
    case settings::Reader::kBoth:
      return "libbrrr.so and brrr";
  }
  return "";
}

const char* AudienceText(settings::Audience audience) {
  switch (audience) {
    case settings::Audience::kUser:
      return "";
    case settings::Audience::kSetByBrrr:
      return "; set by brrr run for its command";
    case settings::Audience::kTestOnly:
      return "; test builds only";
  }
  return "";
}

std::string LimitsText(const settings::Spec& spec) {
  switch (spec.kind) {
    case settings::Kind::kNumber:
      return absl::StrCat(spec.values, " from ", spec.lo, " to ", spec.hi);
    case settings::Kind::kPowerOfTwo:
      return absl::StrCat(spec.values, ", a power of two from ", spec.lo, " to ", spec.hi);
    case settings::Kind::kDuration:
      return absl::StrCat(spec.values, " (10s, 500ms, 2m, 1h; 0 = off)");
    case settings::Kind::kPercent:
      return absl::StrCat(spec.values, " (10% or 2.5%) from ", spec.lo / 10,
                          spec.lo % 10 != 0 ? absl::StrCat(".", spec.lo % 10) : "", "% to ",
                          spec.hi / 10, "%");
    case settings::Kind::kBool:
    case settings::Kind::kChoice:
    case settings::Kind::kText:
      return spec.values;
  }
  return spec.values;
}

}  // namespace

std::vector<SettingEntry> SettingEntries() {
  std::vector<SettingEntry> entries;
  for (const settings::Spec& spec : settings::kSpecs) {
    char buf[64];
    SettingEntry e;
    e.name = spec.name;
    e.shown_default = settings::DescribeDefault(spec, buf, sizeof(buf));
    if (e.shown_default.empty()) e.shown_default = "(unset)";
    e.text = absl::StrFormat(
        "%s [%s%s; read by %s%s]", spec.meaning, LimitsText(spec),
        spec.option[0] != '\0' ? absl::StrCat("; or ", spec.option) : "", ReaderText(spec.reader),
        AudienceText(spec.audience));
    e.test_only = spec.audience == settings::Audience::kTestOnly;
    entries.push_back(std::move(e));
  }
  return entries;
}

std::string SettingsListing() {
  std::string out;
  for (const SettingEntry& e : SettingEntries()) {
    // The name and default, then the text wrapped in the column after them; a name or default
    // wider than its column puts the text on the lines below.
    const std::string head = absl::StrFormat("%-26s %-14s ", e.name, e.shown_default);
    std::string wrapped;
    AppendWrapped(wrapped, e.text, kIndent, kSettingsColumns);
    if (head.size() == kIndent.size()) {
      absl::StrAppend(&out, head, wrapped.substr(kIndent.size()));
    } else {
      absl::StrAppend(&out, absl::StripTrailingAsciiWhitespace(head), "\n", wrapped);
    }
  }
  return out;
}

}  // namespace brrr::cli
