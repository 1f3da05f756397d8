// Sampled launch sites (see launch_site_stats.h).
//
// Must never: call the symbolizer for stack id 0, or overflow an estimate (it saturates).
#include "collector/analysis/launch_site_stats.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "absl/strings/str_join.h"
#include "collector/analysis/call_joiner.h"

namespace brrr {

void LaunchSiteStats::Add(uint32_t stack_id) {
  auto it = sites_.find(stack_id);
  if (it == sites_.end()) {
    if (sites_.size() >= max_sites_) stack_id = 0;
    it = sites_.try_emplace(stack_id, 0).first;
  }
  ++it->second;
  ++sampled_;
}

void LaunchSiteStats::AddKernels(uint32_t stack_id, uint32_t name_id, uint32_t device_id,
                                 int64_t device_ns, uint32_t kernels) {
  KernelKey key{stack_id, name_id, device_id};
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    if (kernels_.size() >= max_sites_) key.stack_id = 0;
    it = kernels_.try_emplace(key).first;
  }
  it->second.kernels += kernels;
  it->second.device_ns += std::max<int64_t>(device_ns, 0);
}

namespace {

uint64_t Scaled(uint64_t sampled, uint32_t sample_period) {
  uint64_t estimate = 0;
  if (__builtin_mul_overflow(sampled, uint64_t{sample_period}, &estimate)) {
    return std::numeric_limits<uint64_t>::max();
  }
  return estimate;
}

int64_t Scaled(int64_t sampled, uint32_t sample_period) {
  int64_t estimate = 0;
  if (__builtin_mul_overflow(sampled, int64_t{sample_period}, &estimate)) {
    return std::numeric_limits<int64_t>::max();
  }
  return estimate;
}

template <typename T>
T Saturated(T a, T b) {
  T sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<T>::max() : sum;
}

// A site's kernel rows (sampled counts) scaled by the sample period, most device time first, at
// most `keep` of them and one "(other kernels)" row per device for the rest.
std::vector<LaunchKernel> TopKernels(std::map<std::pair<std::string, uint32_t>, LaunchKernel> rows,
                                     uint32_t sample_period, size_t keep) {
  std::vector<LaunchKernel> out;
  for (auto& [key, row] : rows) {
    row.kernels = Scaled(row.kernels, sample_period);
    row.device_ns = Scaled(row.device_ns, sample_period);
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const LaunchKernel& a, const LaunchKernel& b) {
    return std::tie(b.device_ns, a.name, a.device) < std::tie(a.device_ns, b.name, b.device);
  });
  if (out.size() <= keep) return out;
  std::map<uint32_t, LaunchKernel> other;  // by device
  for (size_t i = keep; i < out.size(); ++i) {
    LaunchKernel& o = other[out[i].device];
    o.name = "(other kernels)";
    o.device = out[i].device;
    o.kernels = Saturated(o.kernels, out[i].kernels);
    o.device_ns = Saturated(o.device_ns, out[i].device_ns);
  }
  out.resize(keep);
  for (auto& [device, row] : other) out.push_back(std::move(row));
  return out;
}

}  // namespace

std::vector<LaunchSite> LaunchSiteStats::Top(
    size_t limit, uint32_t sample_period,
    const std::function<std::vector<std::string>(uint32_t)>& symbolize,
    const std::function<std::string(uint32_t)>& kernel_name) const {
  std::vector<LaunchSite> out;
  if (sample_period == 0) return out;
  absl::flat_hash_map<std::string, size_t> row_of;
  absl::flat_hash_map<uint32_t, size_t> row_of_stack_id;
  std::vector<uint64_t> sampled;
  const auto row_for = [&](uint32_t stack_id) {
    if (auto known = row_of_stack_id.find(stack_id); known != row_of_stack_id.end()) {
      return known->second;
    }
    LaunchSite site;
    if (stack_id != 0 && symbolize) site.stack = symbolize(stack_id);
    auto [it, inserted] = row_of.try_emplace(absl::StrJoin(site.stack, "\n"), out.size());
    if (inserted) {
      out.push_back(std::move(site));
      sampled.push_back(0);
    }
    row_of_stack_id[stack_id] = it->second;
    return it->second;
  };
  for (const auto& [stack_id, count] : sites_) sampled[row_for(stack_id)] += count;
  // Each row's kernels by (name, device): ids whose names are alike are one row.
  std::vector<std::map<std::pair<std::string, uint32_t>, LaunchKernel>> kernels;
  for (const auto& [key, work] : kernels_) {
    const size_t row = row_for(key.stack_id);
    if (kernels.size() <= row) kernels.resize(out.size());
    std::string name = key.name_id == CallJoiner::kSeveralKernelNames ? "(several kernels)"
                       : kernel_name                                  ? kernel_name(key.name_id)
                                                                      : std::string();
    if (name.empty()) name = "(kernel name not kept)";
    LaunchKernel& k = kernels[row][{name, key.device_id}];
    k.name = name;
    k.device = key.device_id;
    k.kernels = Saturated(k.kernels, work.kernels);
    k.device_ns = Saturated(k.device_ns, work.device_ns);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].launches = Scaled(sampled[i], sample_period);
    if (i < kernels.size()) out[i].kernels = TopKernels(std::move(kernels[i]), sample_period, kKernelsPerSite);
  }
  std::sort(out.begin(), out.end(), [](const LaunchSite& a, const LaunchSite& b) {
    if (a.launches != b.launches) return a.launches > b.launches;
    return a.stack < b.stack;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace brrr
