// A map from CUPTI correlation id to a small value, for work in flight (launch calls waiting for
// their kernel and kernels waiting for their launch call). Correlation ids are dense and
// increasing, so an id usually lands in a direct-mapped slot array (id modulo its size, no
// hashing). When an id's slot is taken by another live id the array doubles (up to kMaxSlots, so
// that the ids in flight fit again); past that, the id goes to a hash map instead. kMaxSlots is
// 2^20: a device far behind its launches (or kernel records that CUPTI hands over late) leaves
// hundreds of thousands of launches waiting for their kernels, and with 2^16 most of them went
// to the hash map, which made a real run's collector spend a quarter of its time in Find. The
// array is as large as the span of ids in flight needs: at most 2^20 slots of ~48 bytes.
//
// Not thread-safe. Must never: return an entry for an id that was not inserted (or was erased),
// or lose an entry on a slot collision.
#ifndef BRRR_COLLECTOR_ANALYSIS_CORRELATION_MAP_H_
#define BRRR_COLLECTOR_ANALYSIS_CORRELATION_MAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace brrr {

template <typename T>
class CorrelationMap {
 public:
  size_t size() const { return slot_count_ + overflow_.size(); }
  size_t OverflowSizeForTest() const { return overflow_.size(); }
  bool empty() const { return size() == 0; }

  // The entry for `id`, or nullptr.
  T* Find(uint32_t id) {
    if (slot_count_ > 0) {
      Slot& slot = slots_[id & mask_];
      if (slot.used && slot.id == id) return &slot.value;
    }
    if (overflow_.empty()) return nullptr;
    auto it = overflow_.find(id);
    return it == overflow_.end() ? nullptr : &it->second;
  }

  // The entry for `id`: the existing one, or a new value-initialized one. Hot callers fill it in
  // field by field: a whole struct built on the stack and copied in is read back with wider loads
  // than it was written with, which the CPU cannot forward from its store buffer (a stall each).
  T& Insert(uint32_t id) {
    if (T* existing = Find(id)) return *existing;
    if (slots_.empty()) Resize(kMinSlots);
    while (slots_[id & mask_].used && slots_.size() < kMaxSlots) Resize(slots_.size() * 2);
    Slot& slot = slots_[id & mask_];
    if (!slot.used) {
      slot.id = id;
      slot.used = true;
      slot.value = T{};
      ++slot_count_;
      return slot.value;
    }
    return overflow_[id];
  }

  // Inserts or overwrites the entry for `id`.
  void Set(uint32_t id, const T& value) { Insert(id) = value; }

  // Erases the entry `found` points to (a pointer Find returned for `id`).
  void Erase(uint32_t id, T* found) {
    if (slot_count_ > 0) {
      Slot& slot = slots_[id & mask_];
      if (slot.used && &slot.value == found) {
        slot.used = false;
        --slot_count_;
        return;
      }
    }
    overflow_.erase(id);
  }
  void Erase(uint32_t id) {
    if (T* found = Find(id)) Erase(id, found);
  }

  // Erases every entry for which pred(id, value) is true.
  template <typename Pred>
  void EraseIf(Pred pred) {
    if (slot_count_ > 0) {
      for (Slot& slot : slots_) {
        if (slot.used && pred(slot.id, slot.value)) {
          slot.used = false;
          --slot_count_;
        }
      }
    }
    absl::erase_if(overflow_, [&](auto& kv) { return pred(kv.first, kv.second); });
  }

  void clear() {
    if (slot_count_ > 0) {
      for (Slot& slot : slots_) slot.used = false;
    }
    slot_count_ = 0;
    overflow_.clear();
  }

 private:
  static constexpr size_t kMinSlots = 1024;  // powers of two
  static constexpr size_t kMaxSlots = size_t{1} << 20;
  struct Slot {
    uint32_t id = 0;
    bool used = false;
    T value{};
  };

  // Re-places every slot entry in an array of `count` slots (those that collide there go to the
  // overflow map).
  void Resize(size_t count) {
    std::vector<Slot> old(count);
    old.swap(slots_);
    mask_ = static_cast<uint32_t>(count - 1);
    slot_count_ = 0;
    for (Slot& entry : old) {
      if (!entry.used) continue;
      Slot& slot = slots_[entry.id & mask_];
      if (slot.used) {
        overflow_[entry.id] = entry.value;
      } else {
        slot = entry;
        ++slot_count_;
      }
    }
  }

  std::vector<Slot> slots_;  // allocated on the first insertion
  uint32_t mask_ = 0;        // slots_.size() - 1
  size_t slot_count_ = 0;
  absl::flat_hash_map<uint32_t, T> overflow_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_CORRELATION_MAP_H_
