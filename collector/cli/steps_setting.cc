// The steps selector from --steps and BRRR_STEPS. See steps_setting.h.
#include "collector/cli/steps_setting.h"

#include "collector/cli/env_settings.h"
#include "shim/ring_format.h"

namespace brrr::cli {

std::optional<std::string> ParseStepsSelector(const std::string& text) {
  constexpr char kPrefix[] = "nvtx:";
  if (text.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::string name = text.substr(sizeof(kPrefix) - 1);
  if (name.empty() || name.size() > ring::kMaxNameLength) return std::nullopt;
  return name;
}

std::string ChooseStepRangeName(const std::string& option,
                                const std::function<const char*(const char*)>& getenv_fn,
                                const std::function<void(const std::string&)>& warn) {
  if (!option.empty()) return ParseStepsSelector(option).value_or("");
  const EnvSettings env(getenv_fn, warn);
  const std::optional<std::string> text = env.Text(Setting::kSteps);
  if (!text.has_value()) return "";
  if (std::optional<std::string> name = ParseStepsSelector(*text)) return *name;
  env.WarnRefused(Setting::kSteps, *text, "not nvtx:NAME");
  return "";
}

}  // namespace brrr::cli
