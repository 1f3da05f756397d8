// The collector's view of the shim's Python code table (ring_format.h, CodeSlot, rule R8): code id
// (CodeSlot index + 1) -> file, qualified name, first line and line table, copied out of shared
// memory once the slot is ready and cached from then on.
//
// Thread-safety: none; one owner (the drain thread, then the report's symbolization).
// Must never: read a slot before acquire-loading ready == 1, read a field twice (every length is
// copied once and checked against kMaxCodeStringLength and kCodeSlotData), or pass on bytes that
// are not UTF-8 (invalid sequences become U+FFFD, control characters '?').
#ifndef BRRR_COLLECTOR_INGEST_CODE_TABLE_H_
#define BRRR_COLLECTOR_INGEST_CODE_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "collector/ingest/reader_stats.h"
#include "shim/ring_format.h"

namespace brrr::ingest {

// One Python code object as the shim stored it.
struct PythonCode {
  std::string filename;  // as the code object gives it (co_filename), possibly truncated
  std::string qualname;  // co_qualname (3.11+) or co_name
  uint32_t first_line = 0;
  std::vector<uint8_t> line_table;    // the stored bytes, in the run's python_version format
  bool line_table_truncated = false;  // the code object's table was longer (or was damaged)
};

class CodeTable {
 public:
  // `slots` points at `slot_count` CodeSlots in shared memory (bounds already validated).
  CodeTable(ring::CodeSlot* slots, uint32_t slot_count, ReaderStats* stats)
      : slots_(slots), slot_count_(slot_count), stats_(stats) {}

  // The code object of `code_id`; nullptr when 0, out of range (counted), not ready yet, or
  // damaged beyond use (a name length over its limit: counted). The pointer stays valid for the
  // table's lifetime.
  const PythonCode* Lookup(uint32_t code_id);

 private:
  ring::CodeSlot* slots_;
  uint32_t slot_count_;
  ReaderStats* stats_;
  absl::flat_hash_map<uint32_t, std::unique_ptr<PythonCode>> cache_;  // ready slots only
};

// `bytes` as valid UTF-8: each invalid sequence becomes U+FFFD and control characters '?'.
std::string SanitizeUtf8(absl::string_view bytes);

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_CODE_TABLE_H_
