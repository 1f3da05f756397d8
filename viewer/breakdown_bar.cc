// Proportional cell allocation (largest remainder) and the breakdown bar.
//
// Must never: produce a bar whose length differs from the requested width, or overflow on huge
// or negative inputs (shares are computed in long double).
#include "viewer/breakdown_bar.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace brrr {

std::vector<BarPart> BreakdownParts(const DeviceBreakdown& d) {
  const auto clamp = [](int64_t v) { return v < 0 ? int64_t{0} : v; };
  std::vector<BarPart> parts = {
      {kBusyGlyph, "busy", "#2e9d5b", clamp(d.busy_ns)},
      {kLaunchBoundGlyph, "launch-bound idle", "#f0a030", clamp(d.idle.launch_bound_ns)},
      {kSyncDrainGlyph, "sync drain idle", "#d9453d", clamp(d.idle.sync_drain_ns)},
      {kHostOutsideCudaGlyph, "host outside CUDA", "#6f8fb8", clamp(d.idle.host_outside_cuda_ns)},
      {kStartupGlyph, "start-up", "#c8c8c8", clamp(d.startup_ns)},
      {kTeardownGlyph, "teardown", "#9a9a9a", clamp(d.teardown_ns)},
  };
  long double sum = 0;
  for (const BarPart& p : parts) sum += static_cast<long double>(p.ns);
  const long double wall = static_cast<long double>(clamp(d.wall_ns));
  const int64_t unaccounted = wall > sum ? static_cast<int64_t>(wall - sum) : 0;
  parts.push_back({kUnaccountedGlyph, "unaccounted", "#e8e0ff", unaccounted});
  return parts;
}

std::vector<int> AllocateCells(const std::vector<int64_t>& parts, int width) {
  std::vector<int> cells(parts.size(), 0);
  if (width <= 0) return cells;
  long double total = 0;
  for (int64_t p : parts) total += p > 0 ? static_cast<long double>(p) : 0;
  if (total <= 0) return cells;
  std::vector<long double> remainders(parts.size(), 0);
  int used = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const long double share = parts[i] > 0 ? static_cast<long double>(parts[i]) * width / total : 0;
    cells[i] = std::min(width, static_cast<int>(std::floor(share)));
    remainders[i] = share - cells[i];
    used += cells[i];
  }
  // Hand the cells lost to flooring to the largest remainders (earlier parts win ties).
  std::vector<size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainders[a] > remainders[b]; });
  for (size_t i = 0; used < width && i < order.size(); ++i, ++used) ++cells[order[i]];
  // Rounding in long double can only leave the sum a cell off in pathological cases; fix it so
  // the width is always exact.
  for (; used > width; --used) --*std::max_element(cells.begin(), cells.end());
  for (; used < width; ++used) ++*std::max_element(cells.begin(), cells.end());
  return cells;
}

std::string BreakdownBar(const DeviceBreakdown& device, int width) {
  const std::vector<BarPart> parts = BreakdownParts(device);
  std::vector<int64_t> values;
  for (const BarPart& p : parts) values.push_back(p.ns);
  const std::vector<int> cells = AllocateCells(values, width);
  std::string bar;
  for (size_t i = 0; i < parts.size(); ++i) bar.append(cells[i], parts[i].glyph);
  if (bar.empty() && width > 0) bar.assign(width, ' ');
  return bar;
}

std::string DeviceViewUnknown(const Report& r) {
  if (!r.device_sampling.has_value() || r.device_sampling->busy_pct.has_value()) return "";
  const DeviceSampling& s = *r.device_sampling;
  if (s.budget_pct.has_value()) {
    return absl::StrCat(
        "no device view: the ", absl::StrFormat("%.3g", *s.budget_pct),
        "% cost budget left no traced launch call (", s.windows,
        s.windows == 1 ? " window" : " windows",
        "; brrr's other costs used the budget up, see BRRR'S COST): device busy time, idle "
        "parts and kernels are unknown. Raise --overhead-budget, or trace fully for a short run.");
  }
  return absl::StrCat("no device view: no launch call was traced in a window (", s.windows,
                      s.windows == 1 ? " window" : " windows",
                      "; the run ended before one, or launched nothing inside one): device busy "
                      "time, idle parts and kernels are unknown. Trace short runs fully (the "
                      "default).");
}

std::string DeviceOwners(const DeviceBreakdown& device) {
  std::string out;
  if (!device.host.empty()) absl::StrAppend(&out, " on ", device.host);
  if (device.processes > 1) {
    absl::StrAppend(&out, out.empty() ? " " : ", ", "shared by ", device.processes, " processes");
  }
  return out;
}

}  // namespace brrr
