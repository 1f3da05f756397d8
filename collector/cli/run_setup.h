// What `brrr run` prepares before starting the command: the segment geometry (options and
// BRRR_RING_RECORDS / BRRR_MAX_THREADS, each bad value warned about once and replaced by the
// default) and the command's environment (BRRR_SHM, LD_PRELOAD with libbrrr.so first,
// NVTX_INJECTION64_PATH, and the options the shim reads).
//
// Must never: drop or reorder the user's environment entries other than those it sets.
#ifndef BRRR_COLLECTOR_CLI_RUN_SETUP_H_
#define BRRR_COLLECTOR_CLI_RUN_SETUP_H_

#include <functional>
#include <string>
#include <vector>

#include "collector/cli/command_line.h"
#include "shim/segment_layout.h"

namespace brrr::cli {

using GetEnv = std::function<const char*(const char*)>;

// Geometry for the segment; `warn` receives one line per bad environment value.
ring::SegmentGeometry RunGeometry(const RunOptions& options, const GetEnv& getenv_fn,
                                  const std::function<void(const std::string&)>& warn);

// The command's environment: `base` (KEY=VALUE entries) with BRRR_SHM set, `shim_path` first in
// LD_PRELOAD (after a sanitizer runtime, which must stay first), NVTX_INJECTION64_PATH = `shim_path`
// unless the user set it, BRRR_STACKS=0 / BRRR_CUPTI=0 for --no-stacks / --no-cupti,
// BRRR_CAPTURE_RANGE for --capture-range.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& base,
                                          const std::string& shm_name, const std::string& shim_path,
                                          const RunOptions& options);

// `env` with `dir` first on PYTHONPATH (brrr's sitecustomize, for PyTorch's record_function
// labels: shim/python/sitecustomize.py); the user's entries follow it in their order.
std::vector<std::string> WithPythonDirectory(std::vector<std::string> env, const std::string& dir);

// The directory holding the running brrr executable ("" when unknown).
std::string SelfDirectory();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_RUN_SETUP_H_
