// Runs a program as a child process with extra environment variables and a deadline, capturing
// its output: for tests of how a simulated-stack program starts and ends (bad settings, exit with
// work queued). Must never leave a child running: one past its deadline is killed (by its pid).
#ifndef BRRR_TESTS_SIM_CHILD_PROCESS_H_
#define BRRR_TESTS_SIM_CHILD_PROCESS_H_

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace brrr::simtest {

struct ChildResult {
  bool started = false;
  bool timed_out = false;
  bool exited = false;  // exited normally; exit_code is valid
  int exit_code = -1;
  int signal = 0;  // the signal that ended it, when !exited
  std::string out;
  std::string err;

  // One line for assertion messages: how it ended, and its stderr.
  std::string Describe() const;
};

// Runs argv[0] (a path) with the current environment plus `env` (NAME, VALUE; replacing existing
// values). Returns when it exits, or kills it after `timeout`.
ChildResult RunChild(const std::vector<std::string>& argv,
                     const std::vector<std::pair<std::string, std::string>>& env,
                     std::chrono::milliseconds timeout);

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_CHILD_PROCESS_H_
