// Name slots -> strings. See name_table.h.
//
// Must never: index a slot without the range check, or copy more than kMaxNameLength bytes.
#include "collector/ingest/name_table.h"

#include <atomic>

namespace brrr::ingest {

const std::string& NameTable::Lookup(uint32_t name_id) {
  if (name_id == 0) return empty_;
  if (name_id > slot_count_) {
    ++stats_->bad_name_ids;
    return empty_;
  }
  const size_t index = name_id - 1;
  if (index < cache_.size() && cache_[index].has_value()) return *cache_[index];
  ring::NameSlot& slot = slots_[name_id - 1];
  if (slot.ready.load(std::memory_order_acquire) != 1) return empty_;
  uint32_t length = slot.length;
  if (length > ring::kMaxNameLength) {
    ++stats_->bad_name_lengths;
    length = ring::kMaxNameLength;
  }
  std::string name(slot.text, length);
  for (char& c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = '?';
  }
  if (index >= cache_.size()) cache_.resize(index + 1);
  return cache_[index].emplace(std::move(name));
}

}  // namespace brrr::ingest
