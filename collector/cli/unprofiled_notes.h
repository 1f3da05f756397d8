// The notes of a `brrr run` job's processes that ran unprofiled (shim/unprofiled_note.h: PID 1 of
// a namespace, a segment it could not open or map, too little headroom), and what the report says
// of them: a coverage gap with each reason (the coverage is not complete), and, where nothing
// profiled used CUDA, the verdict "unprofiled" instead of "no-cuda-work", which would state what
// brrr does not know.
//
// Must never: trust a note's bytes (bounded, control characters replaced, another user's or a
// link ignored), or read more than kMaxUnprofiledNotes of them.
#ifndef BRRR_COLLECTOR_CLI_UNPROFILED_NOTES_H_
#define BRRR_COLLECTOR_CLI_UNPROFILED_NOTES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::cli {

inline constexpr size_t kMaxUnprofiledNotes = 64;
inline constexpr size_t kMaxUnprofiledNoteBytes = 512;

// The reasons, one per note (in name order).
std::vector<std::string> ReadUnprofiledNotes(const std::string& job_dir);

// Says them in `report` (nothing when `reasons` is empty).
void NoteUnprofiledProcesses(const std::vector<std::string>& reasons, Report& report);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_UNPROFILED_NOTES_H_
