// Whether a process still runs the program that records into a segment. After an exec the pid is
// the same, but the new program's memory no longer maps the segment (/proc/PID/maps): the
// collector of the old program then finishes its report as "exec" instead of waiting for the
// new program to end and calling the old one killed.
//
// Thread-safety: one thread.
// The shim maps the segment before it starts the collector and never unmaps it, so a live process
// whose maps lack it runs another program, even when the exec came before the collector looked.
//
// Must never: call a process exec'd whose maps it could not read (gone, or not ours to read) or
// that lists no mapping at all (exiting), or read /proc more often than its period.
#ifndef BRRR_COLLECTOR_CLI_EXEC_WATCH_H_
#define BRRR_COLLECTOR_CLI_EXEC_WATCH_H_

#include <sys/types.h>

#include <chrono>
#include <istream>
#include <optional>
#include <string>

namespace brrr::cli {

// Whether a /proc/PID/maps listing has a mapping of the shared-memory object `shm_name`
// ("/brrr-..."); nullopt when it lists no mapping at all (a process that is exiting: its memory
// goes before /proc calls it a zombie).
std::optional<bool> MapsListSegment(std::istream& maps, const std::string& shm_name);

// The same for process `pid`; nullopt also when its maps cannot be read.
std::optional<bool> ProcessMapsSegment(pid_t pid, const std::string& shm_name);

class ExecWatch {
 public:
  ExecWatch(pid_t pid, std::string shm_name,
            std::chrono::milliseconds period = std::chrono::milliseconds(500));

  // True once the process is alive but maps the segment no longer.
  bool Execed();

 private:
  pid_t pid_;
  std::string shm_name_;
  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point next_;
  bool execed_ = false;
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_EXEC_WATCH_H_
