// Which process of a job a collector is reporting on: its rank, local rank and world size as the
// launcher put them in the environment (torchrun/torch.distributed: RANK, LOCAL_RANK, WORLD_SIZE;
// Open MPI: OMPI_COMM_WORLD_*; MPICH/Hydra: PMI_RANK, PMI_SIZE; Slurm: SLURM_PROCID,
// SLURM_LOCALID, SLURM_NTASKS; the first one set wins, in that order), and the host's name.
//
// Must never: trust a value: a rank that is not a plain decimal number below 2^31 is "unknown".
#ifndef BRRR_COLLECTOR_JOB_PROCESS_IDENTITY_H_
#define BRRR_COLLECTOR_JOB_PROCESS_IDENTITY_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "viewer/format/report.h"

namespace brrr::job {

using GetEnv = std::function<const char*(const char*)>;

// Rank, local rank, world size and rank_from from `getenv_fn`; pid and host are left as given.
void ReadRankFromEnvironment(const GetEnv& getenv_fn, ProcessIdentity& identity);

// The same from a NUL-separated environment block (the contents of /proc/PID/environ).
void ReadRankFromEnvironBlock(absl::string_view block, ProcessIdentity& identity);

// A plain decimal rank ("0" .. "2147483647"); -1 otherwise.
int64_t ParseRankValue(const char* text);

// This machine's host name ("" when unknown), sanitized to printable ASCII.
std::string LocalHostName();

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_PROCESS_IDENTITY_H_
