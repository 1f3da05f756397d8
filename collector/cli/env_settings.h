// The brrr program's reads of BRRR_* settings, by the table's rules (shim/settings.def): the same
// words and limits as the shim, one warning per refused value ("NAME=VALUE: <why>; using the
// default (D)"), and, for the command-line options that mirror a setting, the same rule with an
// error that names the option.
//
// Must never: read a variable that is not in the table (a test greps for it), or let a refused
// value through.
#ifndef BRRR_COLLECTOR_CLI_ENV_SETTINGS_H_
#define BRRR_COLLECTOR_CLI_ENV_SETTINGS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "shim/settings.h"

namespace brrr::cli {

using settings::Setting;

class EnvSettings {
 public:
  using GetEnv = std::function<const char*(const char*)>;
  using Warn = std::function<void(const std::string&)>;

  // `shim_warned`: the shim of the same process already warned about the settings it reads (the
  // collector of a plain preload run), so only those brrr alone reads are warned about here.
  EnvSettings(GetEnv getenv_fn, Warn warn, bool shim_warned = false)
      : getenv_(std::move(getenv_fn)), warn_(std::move(warn)), shim_warned_(shim_warned) {}

  // A kNumber or kPowerOfTwo setting: nullopt when unset, empty or refused (warned).
  std::optional<uint64_t> Number(Setting s) const;
  // A kBool setting: nullopt when unset, empty or refused (warned).
  std::optional<bool> Bool(Setting s) const;
  // A kText, kChoice or kDuration setting: nullopt when unset or empty (its caller checks it).
  std::optional<std::string> Text(Setting s) const;

  // Says "NAME=VALUE: <why>; using the default (D)" for a value its caller refused.
  void WarnRefused(Setting s, const std::string& value, const std::string& why) const;

 private:
  GetEnv getenv_;
  Warn warn_;
  bool shim_warned_ = false;
};

// Says each misspelled BRRR_* name of `environment` (a NULL-terminated "NAME=value" list, as
// environ) once through `warn`, with the nearest setting's name (shim/setting_names.h).
void WarnUnknownSettings(char** environment, const std::function<void(const std::string&)>& warn);

// The value of option `option_name` that mirrors number setting `s` (--ring-records; a percent
// setting's in permille, --sample-device), by the setting's rule; the error names the option: "--ring-records: '1000' is not a power of two
// between 8 and 4194304".
absl::StatusOr<uint64_t> ParseNumberOption(Setting s, const std::string& option_name,
                                           const std::string& text);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_ENV_SETTINGS_H_
