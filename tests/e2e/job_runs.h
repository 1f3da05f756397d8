// Running the e2e job workload (job_launcher.py over rank_worker.cu) for the job tests: under
// `brrr run`, or under a plain LD_PRELOAD with one file per rank for `brrr merge`. Paths come from
// the build: BRRR_BIN, E2E_BIN_DIR, E2E_SOURCE_DIR (defined for the tests that compile this).
//
// Must never: leave a job's files behind on success (callers remove their TestDir).
#ifndef BRRR_TESTS_E2E_JOB_RUNS_H_
#define BRRR_TESTS_E2E_JOB_RUNS_H_

#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::e2e {

inline constexpr char kPython[] = "/usr/bin/python3";

std::string Worker();    // the e2e_rank_worker binary
std::string Launcher();  // job_launcher.py
std::string HostName();

// A fresh directory for one test's files.
std::string JobTestDir(const std::string& name);

// The simulated device's environment plus `extra_env`; in sanitizer builds leak checking is off
// (the unsanitized Python and Open MPI launchers' own leaks would change their exit status).
std::vector<std::string> LauncherEnvironment(const std::vector<std::string>& extra_env);

// `python3 job_launcher.py WORKER N OPTIONS...`
std::vector<std::string> LauncherCommand(const std::vector<std::string>& worker_options,
                                         int ranks = 4);

struct JobRun {
  int exit_code = -1;
  std::string output;  // stdout + stderr of brrr and the launcher
  Report report;
  bool read = false;
};

// `brrr run --quiet --output DIR/job.brrr -- COMMAND...` on the simulated device.
JobRun RunJob(const std::string& dir, const std::vector<std::string>& command,
              const std::vector<std::string>& extra_env = {});

// The environment of a plain LD_PRELOAD of libbrrr.so (after any sanitizer runtime) writing one
// file per rank, DIR/rank-R-HOST.brrr, quietly.
std::vector<std::string> PlainPreloadEnvironment(const std::string& dir,
                                                 const std::vector<std::string>& extra_env);
std::string PlainPreloadFile(const std::string& dir, int rank);

// `brrr merge FILES... --output OUT --quiet`; the merged report, read back, in `run`.
JobRun MergeFiles(const std::vector<std::string>& files, const std::string& out,
                  const std::vector<std::string>& env);

}  // namespace brrr::e2e

#endif  // BRRR_TESTS_E2E_JOB_RUNS_H_
