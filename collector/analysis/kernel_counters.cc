// KernelCounters (see kernel_counters.h): the two windows, the join of whichever arrives second,
// and the per-name sums.
//
// Must never: divide by a zero active share, or leave a held item unbounded.
#include "collector/analysis/kernel_counters.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collector/analysis/kernel_stats.h"

namespace brrr {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Below this active share a sample is mostly idle: dividing by it would magnify noise.
constexpr double kMinActivePct = 1.0;

// `value` over the active part of the interval (capped at 100 %); `lower` set when there is no
// active share to divide by.
double Normalize(double value, double active, bool* lower) {
  if (!std::isfinite(value) || value < 0) return kNaN;
  if (!std::isfinite(active) || active < kMinActivePct) {
    *lower = true;
    return value;
  }
  return std::min(100.0, value * 100.0 / std::min(active, 100.0));
}

}  // namespace

KernelCounters::KernelCounters(Options options) : options_(options) {
  options_.max_samples = std::max<size_t>(options_.max_samples, 1);
  options_.max_kernels = std::max<size_t>(options_.max_kernels, 1);
  options_.max_names = std::max<size_t>(options_.max_names, 1);
}

uint32_t KernelCounters::Intern(std::string_view name) {
  if (last_name_ != UINT32_MAX && names_[last_name_] == name) return last_name_;
  auto it = index_.find(absl::string_view(name.data(), name.size()));
  if (it != index_.end()) return last_name_ = it->second;
  if (names_.size() >= options_.max_names) {
    if (other_ == UINT32_MAX) {
      other_ = static_cast<uint32_t>(names_.size());
      names_.emplace_back("<other>");
      figures_.emplace_back();
    }
    return other_;
  }
  const uint32_t index = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  figures_.emplace_back();
  index_.emplace(names_.back(), index);
  return last_name_ = index;
}

void KernelCounters::Attribute(uint32_t name, int64_t overlap, const HeldSample& s, bool shared) {
  Figures& f = figures_[name];
  f.covered_ns += overlap;
  if (shared) f.shared_ns += overlap;
  if (s.lower_bound) f.lower_bound_ns += overlap;
  if (!std::isnan(s.sm)) {
    f.sm_sum += s.sm * static_cast<double>(overlap);
    f.sm_ns += overlap;
  }
  if (!std::isnan(s.dram)) {
    f.dram_sum += s.dram * static_cast<double>(overlap);
    f.dram_ns += overlap;
  }
}

void KernelCounters::JoinArrivingKernel(uint32_t name, int64_t start, int64_t end,
                                        HeldSample& s) {
  const int64_t overlap = std::min(end, s.end_ns) - std::max(start, s.start_ns);
  if (overlap <= 0) return;
  if (s.kernels == 0) {
    s.first_name = name;
    s.first_overlap = overlap;
    Attribute(name, overlap, s, /*shared=*/false);
  } else {
    // The sample covered another kernel too: so far unshared, the first one's time becomes shared.
    if (s.kernels == 1) figures_[s.first_name].shared_ns += s.first_overlap;
    Attribute(name, overlap, s, /*shared=*/true);
  }
  ++s.kernels;
}

void KernelCounters::AddKernel(std::string_view name, int64_t start_ns, int64_t end_ns,
                               uint32_t device_id) {
  if (end_ns < start_ns) end_ns = start_ns;
  const uint32_t index = Intern(name);
  figures_[index].kernel_ns += end_ns - start_ns;
  ++totals_.kernels;
  auto row = std::find_if(by_device_.begin(), by_device_.end(),
                          [&](const DeviceKernels& d) { return d.device == device_id; });
  if (row == by_device_.end()) {
    if (by_device_.size() < kMaxDevices) {
      row = by_device_.insert(by_device_.end(), DeviceKernels{device_id, 0, 0});
    } else {
      row = by_device_.end() - 1;
    }
  }
  ++row->kernels;
  row->device_ns += end_ns - start_ns;
  if (start_ns < evicted_samples_end_) ++totals_.kernels_late;
  // Held samples overlapping [start, end): they start before `end`, and (no two overlapping)
  // the scan back can stop once a sample starts a longest sample before `start`.
  auto it = std::lower_bound(samples_.begin(), samples_.end(), end_ns,
                             [](const HeldSample& s, int64_t t) { return s.start_ns < t; });
  // (Every held sample is of the sampled device.)
  const bool on_sampled_device = device_id == sampled_device();
  while (on_sampled_device && it != samples_.begin()) {
    --it;
    if (it->start_ns + longest_sample_ns_ <= start_ns) break;
    JoinArrivingKernel(index, start_ns, end_ns, *it);
  }
  const HeldKernel held{start_ns, end_ns, index, device_id};
  if (kernels_.empty() || kernels_.back().start_ns <= start_ns) {
    kernels_.push_back(held);
  } else {
    kernels_.insert(std::upper_bound(kernels_.begin(), kernels_.end(), start_ns,
                                     [](int64_t t, const HeldKernel& k) { return t < k.start_ns; }),
                    held);
  }
  longest_kernel_ns_ = std::max(longest_kernel_ns_, end_ns - start_ns);
  if (kernels_.size() > options_.max_kernels) {
    evicted_kernels_end_ = std::max(evicted_kernels_end_, kernels_.front().end_ns);
    kernels_.pop_front();
  }
}

void KernelCounters::AddSample(const Sample& sample) {
  if (!(sample.end_ns > sample.start_ns) ||
      (!samples_.empty() && sample.start_ns < samples_.back().start_ns) ||
      (device_.has_value() && sample.device_id != *device_)) {
    ++totals_.samples_skipped;
    return;
  }
  device_ = sample.device_id;
  ++totals_.samples;
  if (sample.start_ns < evicted_kernels_end_) ++totals_.samples_late;
  HeldSample h{};
  h.start_ns = sample.start_ns;
  h.end_ns = sample.end_ns;
  h.lower_bound = false;
  h.sm = Normalize(sample.sm_pct, sample.active_pct, &h.lower_bound);
  h.dram = Normalize(sample.dram_pct, sample.active_pct, &h.lower_bound);
  // Held kernels overlapping it: they start before its end, and no earlier than the longest
  // kernel before its start.
  scratch_.clear();
  const int64_t from = sample.start_ns - longest_kernel_ns_;
  for (auto it = std::lower_bound(kernels_.begin(), kernels_.end(), from,
                                  [](const HeldKernel& k, int64_t t) { return k.start_ns < t; });
       it != kernels_.end() && it->start_ns < sample.end_ns; ++it) {
    if (it->device != sample.device_id) continue;
    const int64_t overlap =
        std::min(sample.end_ns, it->end_ns) - std::max(sample.start_ns, it->start_ns);
    if (overlap > 0) scratch_.emplace_back(it->name, overlap);
  }
  const bool shared = scratch_.size() > 1;
  for (const auto& [name, overlap] : scratch_) Attribute(name, overlap, h, shared);
  h.kernels = static_cast<uint32_t>(scratch_.size());
  if (h.kernels == 1) {
    h.first_name = scratch_[0].first;
    h.first_overlap = scratch_[0].second;
  }
  samples_.push_back(h);
  longest_sample_ns_ = std::max(longest_sample_ns_, sample.end_ns - sample.start_ns);
  if (samples_.size() > options_.max_samples) {
    evicted_samples_end_ = std::max(evicted_samples_end_, samples_.front().end_ns);
    samples_.pop_front();
  }
}

KernelCounters::OtherDeviceKernels KernelCounters::OtherDevices() const {
  OtherDeviceKernels other;
  for (const DeviceKernels& d : by_device_) {
    if (d.device == sampled_device()) continue;
    other.kernels += d.kernels;
    other.device_ns += d.device_ns;
  }
  return other;
}

std::vector<std::pair<std::string, KernelCounters::Figures>> KernelCounters::ByName() const {
  std::vector<std::pair<std::string, Figures>> out;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (figures_[i].kernel_ns > 0 || figures_[i].covered_ns > 0) {
      out.emplace_back(names_[i], figures_[i]);
    }
  }
  return out;
}

void AttachKernelCounters(const KernelCounters& counters, std::vector<KernelStat>* top) {
  absl::flat_hash_map<std::string, KernelCounters::Figures> merged;
  for (const auto& [name, f] : counters.ByName()) {
    std::string demangled = name == "<other>" ? name : DemangleKernelName(name);
    if (demangled.empty()) demangled = "<unnamed>";
    KernelCounters::Figures& m = merged[demangled];
    m.kernel_ns += f.kernel_ns;
    m.covered_ns += f.covered_ns;
    m.shared_ns += f.shared_ns;
    m.lower_bound_ns += f.lower_bound_ns;
    m.sm_sum += f.sm_sum;
    m.sm_ns += f.sm_ns;
    m.dram_sum += f.dram_sum;
    m.dram_ns += f.dram_ns;
  }
  for (KernelStat& k : *top) {
    auto it = merged.find(k.name);
    if (it == merged.end() || it->second.kernel_ns <= 0) continue;
    const KernelCounters::Figures& f = it->second;
    const double kernel_ns = static_cast<double>(f.kernel_ns);
    k.counter_coverage = std::min(1.0, static_cast<double>(f.covered_ns) / kernel_ns);
    if (f.covered_ns <= 0) continue;
    if (f.sm_ns > 0) k.achieved_sm_pct = f.sm_sum / static_cast<double>(f.sm_ns);
    if (f.dram_ns > 0) k.achieved_dram_pct = f.dram_sum / static_cast<double>(f.dram_ns);
    k.counter_shared =
        std::min(1.0, static_cast<double>(f.shared_ns) / static_cast<double>(f.covered_ns));
    k.counter_lower_bound = f.lower_bound_ns > 0;
  }
}

}  // namespace brrr
