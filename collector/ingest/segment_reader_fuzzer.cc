// libFuzzer target for the untrusted segment reader: damage a valid segment as the input says,
// open and drain it, and trap if the reader crashed (the sanitizers do that) or emitted an event
// that breaks the decoded-event invariants. Built only with clang and -DBRRR_FUZZ=ON; the same
// entry point runs under gtest in segment_corruption_test.cc.
//
// Must never: do anything the entry point does not (one code path for both).
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "collector/ingest/testing/segment_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const brrr::ingest::testing::FuzzOutcome outcome =
      brrr::ingest::testing::FuzzSegmentReader(data, size);
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "invariant violated: %s\n", outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
