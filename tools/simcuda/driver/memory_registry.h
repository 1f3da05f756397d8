// Which address ranges are device memory or page-locked (pinned) host memory; everything else is
// pageable host memory. An ordered map of non-overlapping ranges, so that any interior pointer can
// be classified (copy kinds, cudaMemcpyDefault, pageable detection, bounds checks).
// Thread-safe (own lock). Must never allocate or free the memory it describes.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_MEMORY_REGISTRY_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_MEMORY_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace simcuda {

// Values of CUpti_ActivityMemoryKind.
enum class MemoryKind : uint8_t { kPageable = 1, kPinned = 2, kDevice = 3 };

struct MemoryRange {
  uintptr_t base = 0;
  size_t size = 0;
  MemoryKind kind = MemoryKind::kPageable;
  bool owned = false;  // allocated by the engine (vs. registered user memory)
};

class MemoryRegistry {
 public:
  // False if [base, base+size) overlaps a tracked range or size is 0.
  bool Insert(const MemoryRange& range);
  // Removes the range starting exactly at `base` with that kind; returns it.
  std::optional<MemoryRange> Erase(const void* base, MemoryKind kind);
  // The tracked range containing `ptr`, if any.
  std::optional<MemoryRange> Find(const void* ptr) const;
  MemoryKind KindOf(const void* ptr) const;

 private:
  mutable std::mutex mu_;
  std::map<uintptr_t, MemoryRange> ranges_;  // by base
};

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_MEMORY_REGISTRY_H_
