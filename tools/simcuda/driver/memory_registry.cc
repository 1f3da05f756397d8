// Ordered-map bookkeeping of device and pinned ranges. Must never touch the bytes it tracks.
#include "memory_registry.h"

namespace simcuda {

bool MemoryRegistry::Insert(const MemoryRange& range) {
  if (range.size == 0 || range.base + range.size < range.base) return false;
  std::lock_guard lock(mu_);
  auto next = ranges_.lower_bound(range.base);
  if (next != ranges_.end() && next->first < range.base + range.size) return false;
  if (next != ranges_.begin()) {
    const auto& prev = std::prev(next)->second;
    if (prev.base + prev.size > range.base) return false;
  }
  ranges_.emplace(range.base, range);
  return true;
}

std::optional<MemoryRange> MemoryRegistry::Erase(const void* base, MemoryKind kind) {
  std::lock_guard lock(mu_);
  const auto it = ranges_.find(reinterpret_cast<uintptr_t>(base));
  if (it == ranges_.end() || it->second.kind != kind) return std::nullopt;
  MemoryRange range = it->second;
  ranges_.erase(it);
  return range;
}

std::optional<MemoryRange> MemoryRegistry::Find(const void* ptr) const {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard lock(mu_);
  auto it = ranges_.upper_bound(p);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  if (p - it->second.base >= it->second.size) return std::nullopt;
  return it->second;
}

MemoryKind MemoryRegistry::KindOf(const void* ptr) const {
  const auto range = Find(ptr);
  return range ? range->kind : MemoryKind::kPageable;
}

}  // namespace simcuda
