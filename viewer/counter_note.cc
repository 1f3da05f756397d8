// See counter_note.h.
#include "viewer/counter_note.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/text_format.h"

namespace brrr {

namespace {

// "" or "N kernels (T) ran on devices other than device D, which the counters measured: no
// counter figures for them. "
std::string OtherDevicesNote(const KernelCounterJoin& j) {
  if (j.other_device_kernels == 0) return "";
  return absl::StrCat(FormatCount(j.other_device_kernels), " kernels (",
                      FormatDuration(j.other_device_ns), ") ran on devices other than device ",
                      j.device, ", which the counters measured: no counter figures for them. ");
}

}  // namespace

std::string CounterUseNote(const KernelCounterJoin& j) {
  if (!j.unavailable.empty()) {
    return absl::StrCat("Hardware counters not used: ", j.unavailable, ". ", OtherDevicesNote(j));
  }
  if (!j.busy_sm_pct.has_value() && !j.busy_dram_pct.has_value()) return OtherDevicesNote(j);
  const auto pct = [](const std::optional<double>& v) {
    return v.has_value() ? absl::StrFormat("%.1f %%", *v) : std::string("unknown");
  };
  return absl::StrCat("Hardware counters while the GPU was busy: SM ", pct(j.busy_sm_pct),
                      ", DRAM ", pct(j.busy_dram_pct), " of peak (", FormatCount(j.busy_samples),
                      " samples", j.metrics.empty() ? "" : "; metrics: ", j.metrics, "). ",
                      OtherDevicesNote(j));
}

}  // namespace brrr
