// Process spawning for the end-to-end tests (see sim_process.h).
//
// Must never: fail silently: a program that cannot be started gives exit code -1 and a test
// failure.
#include "tests/e2e/sim_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gtest/gtest.h"

extern char** environ;

namespace brrr::e2e {
namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> SimEnvironment(const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (StartsWith(kv, "LD_LIBRARY_PATH=") || StartsWith(kv, "LD_PRELOAD=") ||
        StartsWith(kv, "BRRR_") || StartsWith(kv, "SIMCUDA_")) {
      continue;
    }
    env.push_back(kv);
  }
  env.push_back(std::string("LD_LIBRARY_PATH=") + SIMCUDA_LIB_DIR);
  // Sanitizer builds: the sanitized shim needs the ASan runtime first (brrr run keeps it first).
  const std::string prefix = BRRR_PRELOAD_PREFIX;
  bool sets_preload = false;
  for (const std::string& kv : extra_env) sets_preload |= StartsWith(kv, "LD_PRELOAD=");
  if (!prefix.empty() && !sets_preload) {
    env.push_back("LD_PRELOAD=" + prefix.substr(0, prefix.size() - 1));
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return env;
}

ProcessResult Spawn(const std::vector<std::string>& argv_in, const std::vector<std::string>& env_in,
                    bool with_stderr) {
  static std::atomic<int> counter{0};
  const std::string out_path = ::testing::TempDir() + "/e2e-out-" + std::to_string(::getpid()) +
                               "-" + std::to_string(counter++) + ".txt";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  if (with_stderr) posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> argv_s = argv_in, env_s = env_in;
  std::vector<char*> argv, envp;
  for (std::string& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (std::string& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ProcessResult result;
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv_in[0];
    std::filesystem::remove(out_path);
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.output = ReadFile(out_path);
  std::filesystem::remove(out_path);
  return result;
}

}  // namespace brrr::e2e
