// The brrr program's reads of settings. See env_settings.h.
//
// Must never: read anything but the variable it is asked for (WarnUnknownSettings: the names
// of the environment it is given).
#include "collector/cli/env_settings.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shim/setting_names.h"

namespace brrr::cli {
namespace {

std::string Why(Setting s, settings::ParseError e) {
  char buf[192];
  return settings::DescribeError(settings::SpecOf(s), e, buf, sizeof(buf));
}

}  // namespace

void EnvSettings::WarnRefused(Setting s, const std::string& value, const std::string& why) const {
  char shown[64];
  const settings::Spec& spec = settings::SpecOf(s);
  if (shim_warned_ && spec.reader != settings::Reader::kBrrr) return;  // said once, by the shim
  const std::string default_text = settings::DescribeDefault(spec, shown, sizeof(shown));
  warn_(absl::StrCat(spec.name, "=", value, ": ", why, "; using the default",
                     default_text.empty() ? "" : absl::StrCat(" (", default_text, ")")));
}

std::optional<std::string> EnvSettings::Text(Setting s) const {
  const char* v = getenv_(settings::SpecOf(s).name);
  if (v == nullptr || v[0] == '\0') return std::nullopt;
  return std::string(v);
}

std::optional<uint64_t> EnvSettings::Number(Setting s) const {
  const std::optional<std::string> text = Text(s);
  if (!text.has_value()) return std::nullopt;
  uint64_t v = 0;
  if (const auto e = settings::ParseNumber(settings::SpecOf(s), text->c_str(), &v);
      e != settings::ParseError::kOk) {
    WarnRefused(s, *text, Why(s, e));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> EnvSettings::Bool(Setting s) const {
  const std::optional<std::string> text = Text(s);
  if (!text.has_value()) return std::nullopt;
  bool v = false;
  if (const auto e = settings::ParseBool(text->c_str(), &v); e != settings::ParseError::kOk) {
    WarnRefused(s, *text, Why(s, e));
    return std::nullopt;
  }
  return v;
}

absl::StatusOr<uint64_t> ParseNumberOption(Setting s, const std::string& option_name,
                                           const std::string& text) {
  uint64_t v = 0;
  const settings::Spec& spec = settings::SpecOf(s);
  if (const auto e = spec.kind == settings::Kind::kPercent
                         ? settings::ParsePercent(spec, text.c_str(), &v)
                         : settings::ParseNumber(spec, text.c_str(), &v);
      e != settings::ParseError::kOk) {
    return absl::InvalidArgumentError(absl::StrCat(option_name, ": '", text, "' is ", Why(s, e)));
  }
  return v;
}

void WarnUnknownSettings(char** environment, const std::function<void(const std::string&)>& warn) {
  for (char** e = environment; e != nullptr && *e != nullptr; ++e) {
    char name[80];
    if (!settings::UnknownSettingEntry(*e, name, sizeof(name))) continue;
    const char* near = settings::NearestSettingName(name);
    warn(absl::StrCat(name, " is not a brrr setting: ignored",
                      near != nullptr ? absl::StrCat(" (did you mean ", near, "?)") : ""));
  }
}

}  // namespace brrr::cli
