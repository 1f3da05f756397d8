// The collector's view of the shim's name table (kernel names): NameSlot index + 1 -> string,
// copied out of shared memory once the slot is ready and cached (a vector by id: every kernel
// record looks its name up).
//
// Thread-safety: none; used by the reader on the drain thread.
// Must never: read a slot before acquire-loading ready == 1, or trust length.
#ifndef BRRR_COLLECTOR_INGEST_NAME_TABLE_H_
#define BRRR_COLLECTOR_INGEST_NAME_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collector/ingest/reader_stats.h"
#include "shim/ring_format.h"

namespace brrr::ingest {

class NameTable {
 public:
  // `slots` points at `slot_count` NameSlots in shared memory (bounds already validated).
  NameTable(ring::NameSlot* slots, uint32_t slot_count, ReaderStats* stats)
      : slots_(slots), slot_count_(slot_count), stats_(stats) {}

  // The name for `name_id`; empty when 0, out of range (counted) or not ready yet. Control
  // characters are replaced by '?'. The reference stays valid until the next call.
  const std::string& Lookup(uint32_t name_id);

 private:
  ring::NameSlot* slots_;
  uint32_t slot_count_;
  ReaderStats* stats_;
  std::vector<std::optional<std::string>> cache_;  // by name_id - 1, grown to the largest id seen
  std::string empty_;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_NAME_TABLE_H_
