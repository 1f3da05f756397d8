// A small table by a segment's kernel-name id (DeviceOp.name_id): what a per-kernel statistic
// decided about a name, kept so that the next kernel of that name finds it by the id instead of
// hashing or scanning the name. Ids 0 (none) and those at or above kMaxId get no slot: their
// callers go by the name.
//
// Not thread-safe. Must never: grow past kMaxId entries.
#ifndef BRRR_COLLECTOR_ANALYSIS_NAME_ID_TABLE_H_
#define BRRR_COLLECTOR_ANALYSIS_NAME_ID_TABLE_H_

#include <cstdint>
#include <vector>

namespace brrr {

template <typename T>
class NameIdTable {
 public:
  static constexpr uint32_t kMaxId = 1 << 16;

  // The slot of `name_id` (value-initialized the first time), or null when it gets none.
  T* Slot(uint32_t name_id) {
    if (name_id == 0 || name_id >= kMaxId) return nullptr;
    if (name_id >= slots_.size()) slots_.resize(name_id + 1, T{});
    return &slots_[name_id];
  }
  // The slot of `name_id` if it has one already, else null.
  const T* Find(uint32_t name_id) const {
    return name_id != 0 && name_id < slots_.size() ? &slots_[name_id] : nullptr;
  }

 private:
  std::vector<T> slots_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_NAME_ID_TABLE_H_
