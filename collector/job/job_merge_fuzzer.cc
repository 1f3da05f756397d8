// libFuzzer target for the job merge: up to 8 report JSONs (separated by 0xff bytes) parsed,
// merged with MergeJob and rendered; traps when an invariant of job_merge_fuzz_entry.h breaks (or
// the sanitizers see a fault). Built only with clang and -DBRRR_FUZZ=ON; the same entry point runs
// under gtest over the seeds in testdata/job_merge_corpus (job_merge_fuzz_test.cc).
//
// Must never: do anything the entry point does not (one code path for both).
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "collector/job/job_merge_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const brrr::job::JobMergeFuzzOutcome outcome = brrr::job::FuzzJobMerge(data, size);
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "invariant violated: %s\n", outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
