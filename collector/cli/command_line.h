// Parsing and validation of brrr's command lines, one struct per subcommand. Pure functions of
// argv (and, for defaults, the environment passed in): no I/O, so every rule is unit-tested.
//
// Must never: accept an option it does not know, a missing value, or a value out of range
// (an error names the problem; the caller prints it with the usage and exits 2).
#ifndef BRRR_COLLECTOR_CLI_COMMAND_LINE_H_
#define BRRR_COLLECTOR_CLI_COMMAND_LINE_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collector/cli/app_stderr.h"

namespace brrr::cli {

// Exit status for brrr's own failures in `brrr run` (as env(1) and timeout(1) use 125), so that
// they are not confused with the command's.
inline constexpr int kRunFailedExitCode = 125;
inline constexpr int kUsageExitCode = 2;

struct RunOptions {
  std::string output;  // "" = BRRR_OUTPUT or the default pattern
  bool json = false;
  bool quiet = false;
  bool no_stacks = false;
  bool no_cupti = false;
  // --counters: hardware counters (CUPTI PM sampling) for the device regime where the GPU and
  // driver allow them; passed on as BRRR_COUNTERS=1.
  bool counters = false;
  std::optional<uint32_t> ring_records;  // power of two within the layout's limits
  std::optional<uint64_t> trace_cap;     // --trace[=N]: keep the first N events (0 = none)
  // --capture-range=cudaProfilerApi|nvtx:NAME: record only inside those ranges ("" = everything);
  // passed to the shim as BRRR_CAPTURE_RANGE.
  std::string capture_range;
  // --sample-device=PCT: trace device activity for PCT of the run's time, in windows (passed to
  // the shim as BRRR_SAMPLE_DEVICE; "" = the variable or the default, 100%).
  std::string sample_device;
  // --steps=nvtx:NAME: the NVTX ranges that are steps (also passed to the command as BRRR_STEPS,
  // for the collectors of a job's processes); "" = the variable, or ProfilerStep#N.
  std::string steps;
  // --overhead-budget=PCT, passed to the shim as BRRR_OVERHEAD_BUDGET ("" = the variable, or none).
  std::string overhead_budget;
  // --snapshot-every DURATION: rewrite the .brrr file this often while CMD runs (live_snapshot.h;
  // also BRRR_SNAPSHOT_EVERY; 0 = off). Unset: the variable or the default.
  std::optional<std::string> snapshot_every;
  // --metrics-addr HOST:PORT: serve /metrics (Prometheus) while CMD runs; also BRRR_METRICS_ADDR.
  std::string metrics_addr;
  std::vector<std::string> command;      // CMD ARGS..., never empty
};

struct AttachOptions {
  std::string shm;  // "/brrr-..."
  pid_t pid = 0;
  // --stderr DEV:INO|none (the shim passes it): print to the app's stderr while it is still that
  // file (app_stderr.h). Unset: brrr's own stderr.
  std::optional<std::optional<FileIdentity>> app_stderr;
};

struct ReportOptions {
  std::string file;
  bool json = false;
  std::string chrome_trace;  // --chrome-trace OUT: export the file's trace instead of rendering
  // Views written to files instead of the printed report (any of them together):
  std::string html;             // --html OUT.html: the self-contained HTML report
  std::string folded;           // --folded OUT: folded stacks weighted by stall nanoseconds
  std::string folded_launches;  // --folded-launches OUT: folded launch sites by launches
  std::string pprof;            // --pprof OUT: stalls, device time and launches as pprof
  std::string perfetto;         // --perfetto OUT: the event trace as a native Perfetto trace
};

struct MergeOptions {
  std::vector<std::string> files;  // per-process .brrr files, at least one
  std::string output;              // --output JOB.brrr (required)
  bool json = false;
  bool quiet = false;
};

struct DiffOptions {
  std::string a, b;                  // the two .brrr files (before, after)
  bool json = false;                 // --json: brrr.diff/1 on stdout
  std::string html;                  // --html OUT
  std::string folded_diff;           // --folded-diff OUT
  std::vector<std::string> fail_if;  // --fail-if EXPR, repeatable
};

// `args` excludes "brrr" and the subcommand name.
absl::StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args);
absl::StatusOr<AttachOptions> ParseAttachOptions(const std::vector<std::string>& args);
absl::StatusOr<ReportOptions> ParseReportOptions(const std::vector<std::string>& args);
absl::StatusOr<MergeOptions> ParseMergeOptions(const std::vector<std::string>& args);
absl::StatusOr<DiffOptions> ParseDiffOptions(const std::vector<std::string>& args);

// The usage text printed for --help and after every command-line error.
std::string UsageText();
// The part of UsageText about one subcommand ("run", "diff", ...); "" for an unknown one.
std::string SubcommandUsage(const std::string& sub);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_COMMAND_LINE_H_
