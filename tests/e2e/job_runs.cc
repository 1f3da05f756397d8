// The e2e job workload's runs. See job_runs.h.
//
// Must never: hide a run's output when it fails (every failure carries it).
#include "tests/e2e/job_runs.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"

namespace brrr::e2e {

namespace fs = std::filesystem;

std::string Worker() { return std::string(E2E_BIN_DIR) + "/e2e_rank_worker"; }
std::string Launcher() { return std::string(E2E_SOURCE_DIR) + "/job_launcher.py"; }

std::string HostName() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  return buf;
}

std::string JobTestDir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "/job-e2e-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> LauncherEnvironment(const std::vector<std::string>& extra_env) {
  std::vector<std::string> env = SimEnvironment(extra_env);
  bool sanitized = false;
  for (const std::string& kv : env) {
    sanitized |= kv.rfind("LD_PRELOAD=", 0) == 0 && absl::StrContains(kv, "asan");
  }
  if (!sanitized) return env;
  bool found = false;
  for (std::string& kv : env) {
    if (kv.rfind("ASAN_OPTIONS=", 0) == 0) {
      kv += ":detect_leaks=0";
      found = true;
    }
  }
  if (!found) env.push_back("ASAN_OPTIONS=detect_leaks=0");
  return env;
}

std::vector<std::string> LauncherCommand(const std::vector<std::string>& worker_options,
                                         int ranks) {
  std::vector<std::string> command = {kPython, Launcher(), Worker(), std::to_string(ranks)};
  command.insert(command.end(), worker_options.begin(), worker_options.end());
  return command;
}

namespace {

JobRun ReadRun(const ProcessResult& r, const std::string& out) {
  JobRun run;
  run.exit_code = r.exit_code;
  run.output = r.output;
  auto report = ReadBrrrFile(out);
  if (!report.ok()) {
    ADD_FAILURE() << "no job report at " << out << ": " << report.status() << "\n" << r.output;
    return run;
  }
  run.report = *std::move(report);
  run.read = true;
  return run;
}

}  // namespace

JobRun RunJob(const std::string& dir, const std::vector<std::string>& command,
              const std::vector<std::string>& extra_env) {
  const std::string out = dir + "/job.brrr";
  std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", out, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return ReadRun(Spawn(argv, LauncherEnvironment(extra_env), /*with_stderr=*/true), out);
}

std::vector<std::string> PlainPreloadEnvironment(const std::string& dir,
                                                 const std::vector<std::string>& extra_env) {
  const std::string shim = fs::path(BRRR_BIN).parent_path().string() + "/libbrrr.so";
  std::vector<std::string> env = LauncherEnvironment(extra_env);
  std::string preload = "LD_PRELOAD=" + shim;
  for (std::string& kv : env) {
    if (kv.rfind("LD_PRELOAD=", 0) == 0) {
      preload = kv + ":" + shim;
      kv = "BRRR_TEST_UNUSED=1";
    }
  }
  env.push_back(preload);
  env.push_back("BRRR_OUTPUT=" + dir + "/rank-%r-%h.brrr");
  env.push_back("BRRR_QUIET=1");
  return env;
}

std::string PlainPreloadFile(const std::string& dir, int rank) {
  return dir + "/rank-" + std::to_string(rank) + "-" + HostName() + ".brrr";
}

JobRun MergeFiles(const std::vector<std::string>& files, const std::string& out,
                  const std::vector<std::string>& env) {
  std::vector<std::string> merge = {BRRR_BIN, "merge"};
  merge.insert(merge.end(), files.begin(), files.end());
  merge.push_back("--output");
  merge.push_back(out);
  merge.push_back("--quiet");
  return ReadRun(Spawn(merge, env, /*with_stderr=*/true), out);
}

}  // namespace brrr::e2e
