// DecideVerdict (see verdict.h).
//
// Must never: divide by a zero wall time.
#include "collector/analysis/verdict.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

double Percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string Pct(int64_t part, int64_t whole) {
  return absl::StrFormat("%.1f%%", Percent(part, whole));
}

std::string StallClause(const VerdictInputs& in) {
  if (in.top_stall.empty()) return "";
  return absl::StrCat("; top stall: ", in.top_stall, ", ", in.top_stall_calls, " calls, ",
                      FormatDuration(in.top_stall_ns), " blocked");
}

}  // namespace

Verdict DecideVerdict(const VerdictInputs& in) {
  Verdict v;
  if (!in.have_device_records || in.devices.empty()) {
    const auto& h = in.host_split;
    if (h.wall_ns <= 0) {
      v.regime = "input-bound";
      v.why = "no CUDA activity was recorded (inferred from host timing only: no device records)";
      return v;
    }
    const int64_t parts[] = {h.in_or_near_cuda_ns, h.in_stall_ns, h.outside_cuda_ns};
    const int largest = static_cast<int>(std::max_element(parts, parts + 3) - parts);
    static constexpr const char* kRegimes[] = {"launch-bound", "sync-bound", "input-bound"};
    v.regime = kRegimes[largest];
    v.why = absl::StrCat("inferred from host timing only (no device records): the host spent ",
                         Pct(h.in_stall_ns, h.wall_ns), " of wall blocked in synchronizing calls, ",
                         Pct(h.in_or_near_cuda_ns, h.wall_ns), " in or between other CUDA calls, ",
                         Pct(h.outside_cuda_ns, h.wall_ns), " outside CUDA");
    if (largest == 1) v.why += StallClause(in);
    return v;
  }

  int64_t wall = 0, busy = 0, launch = 0, drain = 0, outside = 0;
  for (const DeviceBreakdown& d : in.devices) {
    wall += d.wall_ns;
    busy += d.busy_ns;
    launch += d.idle.launch_bound_ns;
    drain += d.idle.sync_drain_ns;
    outside += d.idle.host_outside_cuda_ns;
  }
  const std::string busy_text =
      absl::StrCat("device busy ", Pct(busy, wall), " of wall (", FormatDuration(busy), " of ",
                   FormatDuration(wall), ")");
  if (wall > 0 &&
      static_cast<double>(busy) >= in.device_bound_fraction * static_cast<double>(wall)) {
    v.regime = "device-bound";
    v.why = busy_text;
    if (!in.top_kernel.empty()) {
      v.why += absl::StrCat("; top kernel ", in.top_kernel, " takes ", Pct(in.top_kernel_ns, busy),
                            " of busy time");
    }
    return v;
  }
  if (launch >= drain && launch >= outside) {
    v.regime = "launch-bound";
    v.why = absl::StrCat(busy_text, "; ", Pct(launch, wall),
                         " of wall idle while the host was launching or between launches");
    if (in.kernel_launches > 0 && in.median_launch_call_ns > 0) {
      v.why += absl::StrCat("; median kernel ", FormatDuration(in.median_kernel_ns),
                            " vs median launch call ", FormatDuration(in.median_launch_call_ns));
    }
  } else if (drain >= outside) {
    v.regime = "sync-bound";
    v.why = absl::StrCat(busy_text, "; ", Pct(drain, wall),
                         " of wall idle because the host was blocked in synchronizations",
                         StallClause(in));
  } else {
    v.regime = "input-bound";
    v.why =
        absl::StrCat(busy_text, "; ", Pct(outside, wall),
                     " of wall idle while the host was outside CUDA (data loading, Python, I/O)");
  }
  return v;
}

}  // namespace brrr
