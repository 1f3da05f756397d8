// Running programs for the end-to-end tests: spawn a command with a given environment and collect
// its output and exit status, and build the environment of a run on the simulated device.
// Shared by e2e_test, coverage_e2e_test and trace_e2e_test.
//
// Must never: let the caller's loader or brrr settings (LD_PRELOAD, LD_LIBRARY_PATH, BRRR_*,
// SIMCUDA_*) leak into a run, or leave its temporary output file behind.
#ifndef BRRR_TESTS_E2E_SIM_PROCESS_H_
#define BRRR_TESTS_E2E_SIM_PROCESS_H_

#include <string>
#include <vector>

namespace brrr::e2e {

struct ProcessResult {
  int exit_code = -1;  // as a shell reports it: 128 + signal when killed; -1 if not started
  std::string output;  // stdout (and stderr when asked for)
};

std::string ReadFile(const std::string& path);

// Our environment minus loader, brrr and simulator settings; the simulated device's libraries;
// the sanitizer runtime first when the build needs it (unless `extra_env` sets LD_PRELOAD); then
// `extra_env`.
std::vector<std::string> SimEnvironment(const std::vector<std::string>& extra_env);

// Runs argv[0] (a path) with `env`, waits for it, returns its status and output.
ProcessResult Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    bool with_stderr = false);

}  // namespace brrr::e2e

#endif  // BRRR_TESTS_E2E_SIM_PROCESS_H_
