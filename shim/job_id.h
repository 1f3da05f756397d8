// The id of a `brrr run` job, as segment headers carry it (SegmentHeader.job_id): FNV-1a (64-bit)
// of the job directory's path, so that brrr run, each process's shim and `brrr ctl` agree on it
// without exchanging anything. 0 never names a job.
//
// Must never: allocate, or read past the path's terminating NUL.
#ifndef BRRR_SHIM_JOB_ID_H_
#define BRRR_SHIM_JOB_ID_H_

#include <cstdint>

namespace brrr {

inline uint64_t JobIdOf(const char* job_dir) {
  if (job_dir == nullptr || job_dir[0] == '\0') return 0;
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  for (const char* c = job_dir; *c != '\0'; ++c) {
    h ^= static_cast<unsigned char>(*c);
    h *= 0x100000001b3ull;  // FNV prime
  }
  return h == 0 ? 1 : h;
}

}  // namespace brrr

#endif  // BRRR_SHIM_JOB_ID_H_
