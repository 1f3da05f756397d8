// See counter_note.h.
#include "viewer/counter_note.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/text_format.h"

namespace brrr {

std::string CounterUseNote(const KernelCounterJoin& j) {
  if (!j.unavailable.empty()) {
    return absl::StrCat("Hardware counters not used: ", j.unavailable, ". ");
  }
  if (!j.busy_sm_pct.has_value() && !j.busy_dram_pct.has_value()) return "";
  const auto pct = [](const std::optional<double>& v) {
    return v.has_value() ? absl::StrFormat("%.1f %%", *v) : std::string("unknown");
  };
  return absl::StrCat("Hardware counters while the GPU was busy: SM ", pct(j.busy_sm_pct),
                      ", DRAM ", pct(j.busy_dram_pct), " of peak (", FormatCount(j.busy_samples),
                      " samples). ");
}

}  // namespace brrr
