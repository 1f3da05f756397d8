// KernelStats: name interning with a one-entry cache (launch loops repeat one kernel), the cap,
// and demangling at report time.
//
// Must never: pass a name that is not NUL-terminated to the demangler.
#include "collector/analysis/kernel_stats.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/kernel_class.h"

namespace brrr {

std::string DemangleKernelName(std::string_view name) {
  std::string owned(name);
  if (owned.size() < 2 || owned[0] != '_' || owned[1] != 'Z') return owned;
  int status = 0;
  char* demangled = abi::__cxa_demangle(owned.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return owned;
  }
  std::string out(demangled);
  std::free(demangled);
  return out;
}

KernelStats::KernelStats(size_t max_names) : max_names_(std::max<size_t>(max_names, 1)) {}

size_t KernelStats::IndexOf(std::string_view name) {
  if (last_index_ != SIZE_MAX && entries_[last_index_].name == name) return last_index_;
  auto it = index_.find(absl::string_view(name.data(), name.size()));
  if (it != index_.end()) return last_index_ = it->second;
  if (entries_.size() >= max_names_) {
    if (other_index_ == SIZE_MAX) {
      other_index_ = entries_.size();
      entries_.push_back({"<other>", 0, 0});
    }
    ++folded_launches_;
    return other_index_;  // not cached: the next kernel is probably another unknown name
  }
  const size_t index = entries_.size();
  entries_.push_back({std::string(name), 0, 0});
  index_.emplace(entries_.back().name, index);
  return last_index_ = index;
}

size_t KernelStats::IndexOfNewId(std::string_view name, uint32_t name_id) {
  uint32_t* slot = index_by_name_id_.Slot(name_id);  // IndexOf found none under this id
  const size_t index = IndexOf(name);
  // "<other>" is not kept: each launch folded into it is counted there.
  if (slot != nullptr && index != other_index_) *slot = static_cast<uint32_t>(index + 1);
  return index;
}

std::string KernelStats::NameOf(uint32_t name_id) const {
  const uint32_t* slot = index_by_name_id_.Find(name_id);
  if (slot == nullptr || *slot == 0) return "";
  return DemangleKernelName(entries_[*slot - 1].name);
}

std::vector<KernelStat> KernelStats::Top(size_t limit) const {
  // Merge entries whose names demangle alike (a mangled and a plain spelling of one kernel).
  absl::flat_hash_map<std::string, KernelStat> merged;
  for (const Entry& entry : entries_) {
    std::string name = (&entry - entries_.data()) == static_cast<ptrdiff_t>(other_index_)
                           ? entry.name
                           : DemangleKernelName(entry.name);
    if (name.empty()) name = "<unnamed>";
    KernelStat& stat = merged[name];
    stat.name = name;
    stat.launches += entry.launches;
    stat.device_ns += entry.device_ns;
  }
  std::vector<KernelStat> out;
  out.reserve(merged.size());
  for (auto& [name, stat] : merged) {
    stat.mean_ns = stat.launches ? stat.device_ns / static_cast<int64_t>(stat.launches) : 0;
    out.push_back(std::move(stat));
  }
  std::sort(out.begin(), out.end(), [](const KernelStat& a, const KernelStat& b) {
    return a.device_ns != b.device_ns ? a.device_ns > b.device_ns : a.name < b.name;
  });
  if (out.size() > limit) out.resize(limit);
  for (KernelStat& stat : out) {
    stat.kernel_class = stat.name == "<other>" || stat.name == "<unnamed>"
                            ? std::string(KernelClassName(KernelClass::kOther))
                            : std::string(KernelClassName(ClassifyKernel(stat.name)));
  }
  return out;
}

std::vector<KernelClassStat> KernelStats::Classes() const {
  constexpr size_t kClasses = static_cast<size_t>(KernelClass::kCount);
  uint64_t launches[kClasses] = {};
  int64_t device_ns[kClasses] = {};
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& entry = entries_[i];
    const KernelClass c = i == other_index_ ? KernelClass::kOther : ClassifyKernel(entry.name);
    launches[static_cast<size_t>(c)] += entry.launches;
    device_ns[static_cast<size_t>(c)] += entry.device_ns;
  }
  std::vector<KernelClassStat> out;
  for (size_t c = 0; c < kClasses; ++c) {
    if (launches[c] == 0) continue;
    out.push_back(
        {std::string(KernelClassName(static_cast<KernelClass>(c))), launches[c], device_ns[c]});
  }
  std::sort(out.begin(), out.end(), [](const KernelClassStat& a, const KernelClassStat& b) {
    return a.device_ns != b.device_ns ? a.device_ns > b.device_ns : a.kernel_class < b.kernel_class;
  });
  return out;
}

}  // namespace brrr
