// The one entry point shared by the libFuzzer target (job_merge_fuzzer.cc) and the GoogleTest
// test of the checked-in seeds (job_merge_fuzz_test.cc): splits the input into up to
// kMaxFuzzPieces report JSONs, merges those that parse as single-process reports (as `brrr merge`
// takes them) with MergeJob, renders the job (text, HTML, JSON) and checks what must hold for any
// input: no process lost, every kept timeline row on one clock, naming one device of its
// process and adding up exactly to that device's breakdown, the row and bucket caps, every device a
// row or counted as left out, and the job's JSON reading back to itself (a merged file `brrr
// report` can open).
//
// Must never: depend on anything but `data` (deterministic), or report success when an invariant
// is broken.
#ifndef BRRR_COLLECTOR_JOB_JOB_MERGE_FUZZ_ENTRY_H_
#define BRRR_COLLECTOR_JOB_JOB_MERGE_FUZZ_ENTRY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brrr::job {

// Pieces are separated by this byte, which valid UTF-8 (so valid report JSON) never holds.
inline constexpr char kFuzzPieceSeparator = '\xff';
inline constexpr size_t kMaxFuzzPieces = 8;

// `data` cut at each kFuzzPieceSeparator; past kMaxFuzzPieces - 1 cuts the last piece keeps
// the rest (separators included, so it does not parse).
std::vector<std::string_view> SplitFuzzPieces(std::string_view data);

struct JobMergeFuzzOutcome {
  size_t pieces = 0;            // pieces the input was cut into
  size_t merged = 0;            // pieces that parsed as single-process reports (0: no merge done)
  size_t kept_rows = 0;         // (process, device) timeline rows in the job
  size_t left_out = 0;          // rows counted as left out
  int64_t straggler_rank = -1;  // the straggler the job names (-1: none)
  std::string violation;        // empty when every invariant held
};

JobMergeFuzzOutcome FuzzJobMerge(const uint8_t* data, size_t size);

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_JOB_MERGE_FUZZ_ENTRY_H_
