// Under `brrr run` (BRRR_JOB_DIR), a process whose shim declined to profile it (PID 1 of a
// namespace, a segment it could not open, map or create, too little headroom) says so to brrr run:
// a file "<job dir>/unprofiled-<pid>-<nonce>" holding the reason, its last warning. brrr run puts
// it in the job's report (collector/cli/unprofiled_notes.h), which would otherwise read as a run
// without CUDA work. Init only.
//
// Must never: write anywhere but the job directory, follow a link, or overwrite a file.
#ifndef BRRR_SHIM_UNPROFILED_NOTE_H_
#define BRRR_SHIM_UNPROFILED_NOTE_H_

namespace brrr::shim {

// Writes the note into `job_dir` (nothing when it is null or empty) with the last warning.
void NoteUnprofiled(const char* job_dir);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_UNPROFILED_NOTE_H_
