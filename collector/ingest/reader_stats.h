// Counters of what the segment reader found wrong in shared memory. Every field counts one kind of
// damage that was clamped, skipped or resynchronized instead of trusted.
//
// Must never: be used for anything but reporting (the reader's decisions do not depend on them).
#ifndef BRRR_COLLECTOR_INGEST_READER_STATS_H_
#define BRRR_COLLECTOR_INGEST_READER_STATS_H_

#include <cstdint>
#include <string>

namespace brrr::ingest {

struct ReaderStats {
  uint64_t bad_ring_states = 0;    // a ring state outside RingState
  uint64_t index_corruptions = 0;  // write - read > capacity, or write went backwards
  uint64_t records_lost = 0;       // records skipped by those resynchronizations (saturating)
  uint64_t unknown_api = 0;        // host records whose api is not a known Api (kept as kUnknown)
  uint64_t bad_nvtx_ops = 0;       // NVTX records whose op is not an NvtxOp (skipped)
  uint64_t bad_enum_values = 0;    // copy kind, host memory or device kind out of range
  uint64_t bad_timestamps = 0;     // exit before enter, end before start (clamped)
  uint64_t bad_stack_ids = 0;      // stack id beyond the table (dropped to 0)
  uint64_t bad_stack_depths = 0;   // depth > kMaxStackEntries (clamped)
  uint64_t bad_name_ids = 0;       // name id beyond the table (empty name)
  uint64_t bad_name_lengths = 0;   // length > kMaxNameLength (clamped)
  uint64_t bad_code_ids = 0;       // Python code id beyond the code table (unknown frame)
  uint64_t bad_code_slots = 0;     // a code slot's lengths beyond its limits (names or lines lost)
  uint64_t bad_counter_values = 0;  // counter sample values past kMaxCounterMilliPct (unknown)
  uint64_t rejected_clock_pairs = 0;  // the shim's clock pair contradicted the collector's

  // Sum of the damage counters (not rejected_clock_pairs).
  uint64_t Damage() const;
  // "index_corruptions=1 records_lost=5 ..." listing the nonzero counters; "" when none.
  std::string ToString() const;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_READER_STATS_H_
