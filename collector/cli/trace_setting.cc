// The trace cap from --trace and BRRR_TRACE. See trace_setting.h.
//
// Must never: read anything but BRRR_TRACE.
#include "collector/cli/trace_setting.h"

#include "absl/strings/str_cat.h"
#include "collector/cli/command_line.h"
#include "viewer/format/trace.h"

namespace brrr::cli {

std::optional<uint64_t> ChooseTraceCap(const std::optional<uint64_t>& option,
                                       const std::function<const char*(const char*)>& getenv_fn,
                                       const std::function<void(const std::string&)>& warn) {
  if (option.has_value()) return option;
  const char* v = getenv_fn("BRRR_TRACE");
  if (v == nullptr || v[0] == '\0' || std::string(v) == "0") return std::nullopt;
  auto cap = ParseTraceCap(v, absl::StrCat("BRRR_TRACE=", v));
  if (cap.ok()) return *cap;
  warn(absl::StrCat("BRRR_TRACE=", v, ": not 0 or a number of events between 1 and ", kMaxTraceCap,
                    "; using default (", kDefaultTraceCap, " events)"));
  return kDefaultTraceCap;
}

}  // namespace brrr::cli
