// The one entry point shared by the libFuzzer target and the GoogleTest corruption test: builds a
// small valid segment holding records of every kind, damages it as `data` says, opens and drains
// it three times (damage is applied in three phases, between drains, as a misbehaving writer
// would), and checks that everything the reader emitted respects the decoded-event invariants.
//
// Must never: depend on anything but `data` (deterministic), or report success when an emitted
// event breaks an invariant.
#ifndef BRRR_COLLECTOR_INGEST_TESTING_SEGMENT_FUZZ_ENTRY_H_
#define BRRR_COLLECTOR_INGEST_TESTING_SEGMENT_FUZZ_ENTRY_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace brrr::ingest::testing {

struct FuzzOutcome {
  bool opened = false;    // the reader accepted the header
  uint64_t events = 0;    // events emitted over all drains
  std::string violation;  // empty when every invariant held
};

// `data` encoding: byte 0 selects a truncation of the mapping (0..127 = none); then patches of
// [op, offset lo, offset hi, offset top, value bytes...]: op & 3 selects a 1/2/4/8-byte write,
// op >> 6 the drain phase it lands in.
FuzzOutcome FuzzSegmentReader(const uint8_t* data, size_t size);

}  // namespace brrr::ingest::testing

#endif  // BRRR_COLLECTOR_INGEST_TESTING_SEGMENT_FUZZ_ENTRY_H_
