// The trace cap from --trace and BRRR_TRACE. See trace_setting.h.
//
// Must never: read anything but BRRR_TRACE.
#include "collector/cli/trace_setting.h"

#include "absl/strings/str_cat.h"
#include "collector/cli/env_settings.h"
#include "viewer/format/trace.h"

namespace brrr::cli {

std::optional<uint64_t> ChooseTraceCap(const std::optional<uint64_t>& option,
                                       const std::function<const char*(const char*)>& getenv_fn,
                                       const std::function<void(const std::string&)>& warn) {
  static_assert(settings::SpecOf(Setting::kTrace).hi == kMaxTraceCap,
                "settings.def's BRRR_TRACE limit is the trace's cap");
  std::optional<uint64_t> cap = option;
  if (!cap.has_value()) cap = EnvSettings(getenv_fn, warn).Number(Setting::kTrace);
  if (!cap.has_value() || *cap == 0) return std::nullopt;
  return cap;
}

}  // namespace brrr::cli
