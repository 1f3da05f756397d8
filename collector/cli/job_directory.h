// The private directory of a `brrr run` job (BRRR_JOB_DIR): every process of the launched tree
// that finds BRRR_SHM taken records into a segment of its own, whose collector (`brrr attach`,
// started by the shim) writes "<dir>/<pid>.brrr" and holds an flock on "<dir>/<pid>.lock" until
// it is done. `brrr run` creates the directory before starting the command, and once the command
// has exited waits (bounded) for those locks, reads the files and removes the directory.
//
// Must never: create the directory readable by others (mkdtemp: 0700), follow a link inside it,
// wait without a bound, or remove anything but the names it knows.
#ifndef BRRR_COLLECTOR_CLI_JOB_DIRECTORY_H_
#define BRRR_COLLECTOR_CLI_JOB_DIRECTORY_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "shim/settings.h"
#include "absl/status/statusor.h"
#include "collector/cli/run_setup.h"

namespace brrr::cli {

inline constexpr const char* kJobDirVariable = settings::SpecOf(settings::Setting::kJobDir).name;
// A process that ran unprofiled leaves "unprofiled-<pid>-<nonce>" (shim/unprofiled_note.h).
inline constexpr const char* kUnprofiledNotePrefix = "unprofiled-";
// How long `brrr run` waits, after the command exited, for collectors still writing (a process
// the launcher left running keeps its collector going; it is then reported as missing).
inline constexpr std::chrono::milliseconds kJobCollectorWait{30'000};

// mkdtemp("<base>/brrr-job-XXXXXX"): base is $XDG_RUNTIME_DIR when it is a directory, else
// $TMPDIR when it is one, else /tmp.
absl::StatusOr<std::string> CreateJobDirectory(const GetEnv& getenv_fn);

struct JobFiles {
  std::vector<std::string> reports;  // "<dir>/<pid>.brrr", by pid
  std::vector<uint32_t> unfinished;  // collectors still running at the deadline
  std::vector<uint32_t> missing;     // collectors that finished (or died) without a file
};

// Waits until every "<pid>.lock" in `dir` is free or `timeout` passed, then lists the files.
JobFiles CollectJobFiles(const std::string& dir, std::chrono::milliseconds timeout);

// Removes the files it knows ("<pid>.lock", "<pid>.brrr", the writer's ".*.tmp-*") and `dir`.
void RemoveJobDirectory(const std::string& dir);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_JOB_DIRECTORY_H_
