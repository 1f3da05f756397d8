// `brrr run -- CMD`: create the segment, start CMD with libbrrr.so preloaded, drain while it runs,
// then finish, write and print. See subcommands.h.
//
// Must never: change CMD's exit status, or leave the segment's name behind.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "absl/strings/str_join.h"
#include "collector/analysis/analysis.h"
#include "collector/cli/child_process.h"
#include "collector/cli/finish_report.h"
#include "collector/cli/output_path.h"
#include "collector/cli/run_setup.h"
#include "collector/cli/subcommands.h"
#include "collector/cli/trace_setting.h"
#include "collector/ingest/clock_pair.h"
#include "collector/ingest/drain_loop.h"
#include "collector/ingest/maps_tracking_sink.h"
#include "collector/ingest/segment_creator.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/trace_recorder.h"

extern char** environ;

namespace brrr::cli {

int RunSubcommand(const RunOptions& options) {
  const auto warn = [](const std::string& line) {
    std::fprintf(stderr, "brrr: %s\n", line.c_str());
  };
  const char* quiet_env = std::getenv("BRRR_QUIET");
  ReportOutput output;
  output.output_pattern = ChooseOutputPattern(options.output, std::getenv("BRRR_OUTPUT"));
  output.json = options.json;
  output.quiet = options.quiet || (quiet_env != nullptr && std::string(quiet_env) == "1");

  const std::string shim_path = SelfDirectory() + "/libbrrr.so";
  struct stat st {};
  if (stat(shim_path.c_str(), &st) != 0) {
    warn("cannot find libbrrr.so next to brrr (looked for " + shim_path + ")");
    return kRunFailedExitCode;
  }
  const ring::SegmentGeometry geometry = RunGeometry(options, std::getenv, warn);
  const std::optional<uint64_t> trace_cap = ChooseTraceCap(options.trace_cap, std::getenv, warn);
  auto segment = ingest::CreatedSegment::Create(geometry);
  if (!segment.ok()) {
    warn("cannot create the shared-memory segment: " + std::string(segment.status().message()));
    return kRunFailedExitCode;
  }
  ingest::ShmMapping& mapping = (*segment)->mapping();
  auto reader = ingest::SegmentReader::Open(mapping.base(), mapping.size());
  if (!reader.ok()) {
    warn("cannot read the segment it created: " + std::string(reader.status().message()));
    return kRunFailedExitCode;
  }

  std::vector<std::string> base_env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) base_env.emplace_back(*e);
  const std::vector<std::string> env =
      ChildEnvironment(base_env, (*segment)->name(), shim_path, options);

  RunInfo known;
  known.command = absl::StrJoin(options.command, " ");
  known.start_ns = ingest::MonotonicNowNs();
  Analysis analysis;
  analysis.SetRunInfo(known);

  const SpawnResult child = SpawnCommand(options.command, env);
  if (child.pid <= 0) {
    std::fprintf(stderr, "brrr: %s\n", child.error.c_str());
    return child.shell_exit_code != 0 ? child.shell_exit_code : kRunFailedExitCode;
  }
  ForwardSignalsTo(child.pid);
  known.pid = static_cast<uint32_t>(child.pid);

  ingest::ProcessMaps maps;
  ingest::MapsTrackingSink maps_sink(&analysis, &maps, child.pid);
  std::optional<ingest::TraceRecorder> recorder;
  if (trace_cap.has_value()) {
    recorder.emplace(&maps_sink, *trace_cap, static_cast<uint32_t>(child.pid));
  }
  EventSink& sink = recorder.has_value() ? static_cast<EventSink&>(*recorder) : maps_sink;
  // The exiting app waits (briefly, R7) until its memory map is read: a short-lived app's stacks
  // can then still be symbolized after it is gone.
  ingest::DrainThread drain(reader->get(), &sink, ingest::DrainPacing{}, [&] {
    (void)maps.Capture(child.pid);
    (*reader)->Drain(sink);
    (*reader)->MarkMapsCaptured();
  });
  drain.Start();
  const int wait_status = WaitForChild(child.pid);
  drain.Stop();
  StopForwardingSignals();
  (*reader)->Drain(sink);  // everything the app published before it exited

  known.end_ns = ingest::MonotonicNowNs();
  if (wait_status >= 0 && WIFEXITED(wait_status)) {
    known.exited_normally = true;
    known.exit_code = WEXITSTATUS(wait_status);
  } else if (wait_status >= 0 && WIFSIGNALED(wait_status)) {
    known.term_signal = WTERMSIG(wait_status);
    known.exit_code = 128 + known.term_signal;
  }
  const RunInfo info = MergeRunInfo((*reader)->ReadRunInfo(), known);
  (void)FinishAndReport(**reader, analysis, maps, info, child.pid, output,
                        recorder.has_value() ? &recorder->trace() : nullptr);
  return ShellExitCode(wait_status);
}

}  // namespace brrr::cli
