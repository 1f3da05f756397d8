// Stack slots -> collector-wide stack ids. See stack_table.h.
//
// Must never: index a slot without the range check, or read beyond kMaxStackEntries entries.
#include "collector/ingest/stack_table.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

namespace brrr::ingest {

StackTable::StackTable(ring::StackSlot* slots, uint32_t slot_count, ReaderStats* stats)
    : slots_(slots), slot_count_(slot_count), stats_(stats), slot_to_id_(slot_count, 0) {}

bool StackTable::TryCopy(uint32_t slot, std::vector<uint64_t>* pcs) {
  ring::StackSlot& s = slots_[slot];
  if (s.ready.load(std::memory_order_acquire) != 1) return false;
  uint32_t depth = s.depth;
  if (depth > ring::kMaxStackEntries) {
    ++stats_->bad_stack_depths;
    depth = ring::kMaxStackEntries;
  }
  pcs->resize(depth);
  if (depth > 0) std::memcpy(pcs->data(), s.pcs, depth * sizeof(uint64_t));
  return true;
}

void StackTable::Publish(uint32_t id, std::vector<uint64_t> pcs, EventSink& sink) {
  pcs_[id - 1] = pcs;
  ready_[id - 1] = true;
  Stack stack;
  stack.id = id;
  stack.pcs = std::move(pcs);
  sink.OnStack(stack);
}

uint32_t StackTable::ResolveNew(uint32_t shim_id, EventSink& sink) {
  // Resolve answered id 0 and the slots already resolved.
  if (shim_id > slot_count_) {
    ++stats_->bad_stack_ids;
    return 0;
  }
  const uint32_t slot = shim_id - 1;
  std::vector<uint64_t> pcs;
  if (TryCopy(slot, &pcs)) {
    auto [it, inserted] = by_content_.try_emplace(pcs, 0);
    if (!inserted) {
      slot_to_id_[slot] = it->second;
      return it->second;
    }
    pcs_.emplace_back();
    ready_.push_back(false);
    const uint32_t id = static_cast<uint32_t>(pcs_.size());
    it->second = id;
    slot_to_id_[slot] = id;
    Publish(id, std::move(pcs), sink);
    return id;
  }
  pcs_.emplace_back();
  ready_.push_back(false);
  const uint32_t id = static_cast<uint32_t>(pcs_.size());
  slot_to_id_[slot] = id;
  pending_slots_.push_back(slot);
  return id;
}

void StackTable::EmitPending(EventSink& sink) {
  if (pending_slots_.empty()) return;
  std::vector<uint32_t> still_pending;
  for (const uint32_t slot : pending_slots_) {
    std::vector<uint64_t> pcs;
    if (!TryCopy(slot, &pcs)) {
      still_pending.push_back(slot);
      continue;
    }
    const uint32_t id = slot_to_id_[slot];
    by_content_.try_emplace(pcs, id);
    Publish(id, std::move(pcs), sink);
  }
  pending_slots_.swap(still_pending);
}

const std::vector<uint64_t>* StackTable::Pcs(uint32_t id) const {
  if (id == 0 || id > pcs_.size() || !ready_[id - 1]) return nullptr;
  return &pcs_[id - 1];
}

}  // namespace brrr::ingest
