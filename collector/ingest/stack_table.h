// The collector's view of the shim's stack table: turns a shim stack id (StackSlot index + 1) into
// a collector-wide stack id, copying the slot's PCs out of shared memory once and handing each
// stack to the EventSink exactly once (OnStack). Identical stacks in two slots share one id. A
// slot referenced before it is ready (rule R4) gets its id at once and is emitted when it becomes
// ready (EmitPending).
//
// Thread-safety: none; used by the reader on the drain thread.
// Must never: read a slot before acquire-loading ready == 1, or trust depth.
#ifndef BRRR_COLLECTOR_INGEST_STACK_TABLE_H_
#define BRRR_COLLECTOR_INGEST_STACK_TABLE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/events.h"
#include "collector/ingest/reader_stats.h"
#include "shim/ring_format.h"

namespace brrr::ingest {

class StackTable {
 public:
  // `slots` points at `slot_count` StackSlots in shared memory (bounds already validated).
  StackTable(ring::StackSlot* slots, uint32_t slot_count, ReaderStats* stats);

  // Collector-wide id for `shim_id`; 0 when shim_id is 0 or out of range (counted). Inline: a
  // slot already resolved (every record but a stack's first) is one lookup.
  uint32_t Resolve(uint32_t shim_id, EventSink& sink) {
    if (shim_id == 0) return 0;
    if (shim_id <= slot_count_ && slot_to_id_[shim_id - 1] != 0) return slot_to_id_[shim_id - 1];
    return ResolveNew(shim_id, sink);
  }

  // Emits every referenced stack whose slot has become ready since.
  void EmitPending(EventSink& sink);

  // PCs of a collector-wide id, innermost first; nullptr when unknown or not yet ready.
  const std::vector<uint64_t>* Pcs(uint32_t id) const;

  // Number of collector-wide ids handed out.
  uint32_t size() const { return static_cast<uint32_t>(pcs_.size()); }

 private:
  // Resolve of a slot not resolved yet (or out of range).
  uint32_t ResolveNew(uint32_t shim_id, EventSink& sink);
  bool TryCopy(uint32_t slot, std::vector<uint64_t>* pcs);
  void Publish(uint32_t id, std::vector<uint64_t> pcs, EventSink& sink);

  ring::StackSlot* slots_;
  uint32_t slot_count_;
  ReaderStats* stats_;
  std::vector<uint32_t> slot_to_id_;        // 0 = not referenced yet
  std::vector<std::vector<uint64_t>> pcs_;  // by id - 1
  std::vector<bool> ready_;                 // by id - 1
  std::vector<uint32_t> pending_slots_;     // referenced, not yet ready
  absl::flat_hash_map<std::vector<uint64_t>, uint32_t> by_content_;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_STACK_TABLE_H_
