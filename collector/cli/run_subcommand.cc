// `brrr run -- CMD`: create the segment, start CMD with libbrrr.so preloaded, drain while it runs,
// then finish, write and print. See subcommands.h. CMD itself records into this segment; every
// other process of its tree that uses CUDA records into its own, collected into the job directory
// (job_directory.h); when there are any, the report is the job's (collector/job/job_merge.h).
//
// Must never: change CMD's exit status, keep CMD from running because brrr cannot profile it, or
// leave the segment's name behind.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_join.h"
#include "collector/analysis/analysis.h"
#include "collector/cli/child_process.h"
#include "collector/cli/collector_session.h"
#include "collector/cli/finish_report.h"
#include "collector/cli/job_directory.h"
#include "collector/cli/leftover_segments.h"
#include "collector/cli/live_snapshot.h"
#include "collector/cli/process_reports.h"
#include "collector/cli/run_setup.h"
#include "collector/cli/steps_setting.h"
#include "collector/cli/subcommands.h"
#include "collector/cli/unprofiled_notes.h"
#include "collector/cli/trace_setting.h"
#include "collector/ingest/clock_pair.h"
#include "collector/ingest/drain_loop.h"
#include "collector/ingest/segment_creator.h"
#include "collector/ingest/segment_reader.h"
#include "collector/job/job_merge.h"
#include "collector/job/process_identity.h"
#include "shim/job_id.h"
#include "shim/ring_format.h"

extern char** environ;

namespace brrr::cli {
namespace {

// The first `cap` bytes of /proc/PID/environ ("" when unreadable).
std::string ReadEnviron(pid_t pid, size_t cap) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::string block;
  char buf[4096];
  while (in && block.size() < cap) {
    in.read(buf, static_cast<std::streamsize>(sizeof(buf)));
    block.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (block.size() > cap) block.resize(cap);
  return block;
}

// The job report of CMD's tree, written and printed; false when there is no job (no other process
// reported) or its files could not be read (then the caller reports CMD alone, as without jobs).
// Removes the job directory unless a collector is still writing or a file could not be read.
bool ReportJob(const std::string& job_dir, Report own, bool own_used_cuda,
               const job::JobContext& context, pid_t child_pid, const ReportOutput& output,
               bool had_trace, const std::vector<std::string>& unprofiled) {
  const JobFiles files = CollectJobFiles(job_dir, kJobCollectorWait);
  for (uint32_t pid : files.unfinished) {
    std::fprintf(stderr,
                 "brrr: process %u is still being collected after %lld s; left out of the job "
                 "report (its file will be %s/%u.brrr)\n",
                 pid, static_cast<long long>(kJobCollectorWait.count() / 1000), job_dir.c_str(),
                 pid);
  }
  for (uint32_t pid : files.missing) {
    std::fprintf(stderr, "brrr: process %u: its collector ended without a report; left out\n",
                 pid);
  }
  if (files.reports.empty()) {
    if (files.unfinished.empty()) RemoveJobDirectory(job_dir);
    return false;
  }
  auto reports = ReadProcessReports(files.reports);
  if (!reports.ok()) {
    std::fprintf(stderr, "brrr: the job's files cannot be merged: %s; kept in %s\n",
                 std::string(reports.status().message()).c_str(), job_dir.c_str());
    return false;
  }
  if (own_used_cuda) reports->push_back(std::move(own));
  Report job = job::MergeJob(*reports, context);
  NoteUnprofiledProcesses(unprofiled, job);
  if (had_trace) {
    std::fprintf(stderr,
                 "brrr: a job's report keeps no event trace (record one process with "
                 "--trace under a plain `brrr run`)\n");
  }
  (void)WriteAndPrint(job, ReportFile(output, child_pid, -1, job::LocalHostName()), output);
  if (files.unfinished.empty()) RemoveJobDirectory(job_dir);
  return true;
}

// brrr run reads no stdin and writes nothing to stdout (its report and messages go to stderr).
// Once CMD has its own copies, brrr run's are /dev/null: a reader of CMD's output then sees EOF
// when CMD closes its stdout, not when brrr run ends (3 s later for an app that closed it and
// went on), and a writer into CMD's stdin gets EPIPE once CMD closed it.
void ReleaseStdinAndStdout() {
  const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) return;
  dup2(devnull, STDIN_FILENO);
  dup2(devnull, STDOUT_FILENO);
  if (devnull > STDERR_FILENO) close(devnull);
}

// CMD as if brrr were not there (its environment as given to brrr): for when brrr cannot profile
// it. Its exit status, as a shell reports it.
int RunUnprofiled(const RunOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  const SpawnResult child = SpawnCommand(options.command, env);
  if (child.pid <= 0) {
    std::fprintf(stderr, "brrr: %s\n", child.error.c_str());
    return child.shell_exit_code != 0 ? child.shell_exit_code : kRunFailedExitCode;
  }
  ForwardSignalsTo(child.pid);
  ReleaseStdinAndStdout();
  const int wait_status = WaitForChild(child.pid);
  StopForwardingSignals();
  return ShellExitCode(wait_status);
}

}  // namespace

int RunSubcommand(const RunOptions& options) {
  const auto warn = [](const std::string& line) {
    std::fprintf(stderr, "brrr: %s\n", line.c_str());
  };
  const EnvSettings settings(std::getenv, warn);
  WarnUnknownSettings(environ, warn);  // for every process it starts: they stay silent
  ReportOutput output =
      ChooseReportOutput(settings, options.output, options.quiet, options.json, options.counters);

  const std::string shim_path = SelfDirectory() + "/libbrrr.so";
  struct stat st {};
  if (stat(shim_path.c_str(), &st) != 0) {
    warn("cannot find libbrrr.so next to brrr (looked for " + shim_path +
         "); running the command without profiling it");
    return RunUnprofiled(options);
  }
  {
    // What was removed, always; what is kept for recovery, unless --quiet.
    LeftoverCleanup cleanup = RemoveLeftoverSegments(DefaultLeftoverScan());
    if (options.quiet) cleanup.kept = 0;
    for (absl::string_view line : absl::StrSplit(DescribeCleanup(cleanup), '\n', absl::SkipEmpty())) {
      warn(std::string(line));
    }
  }
  const ring::SegmentGeometry geometry = RunGeometry(options, std::getenv, warn);
  const std::optional<uint64_t> trace_cap = ChooseTraceCap(options.trace_cap, std::getenv, warn);
  auto segment = ingest::CreatedSegment::Create(geometry);
  if (!segment.ok()) {
    // The command runs all the same, only unprofiled: brrr never stands between it and its job.
    warn("cannot create the shared-memory segment (" + std::string(segment.status().message()) +
         "); running the command without profiling it");
    return RunUnprofiled(options);
  }
  if (!(*segment)->note().empty()) warn((*segment)->note());
  ingest::ShmMapping& mapping = (*segment)->mapping();
  auto reader = ingest::SegmentReader::Open(mapping.base(), mapping.size());
  if (!reader.ok()) {
    warn("cannot read the segment it created: " + std::string(reader.status().message()));
    return kRunFailedExitCode;
  }
  // R10: this brrr run is the segment's one reader; a `brrr attach` by hand is refused.
  (void)(*reader)->ClaimReader(static_cast<uint32_t>(getpid()), [](uint32_t) { return true; });

  // Every process of CMD's tree but CMD itself that uses CUDA reports into the job directory.
  std::string job_dir;
  if (auto dir = CreateJobDirectory(std::getenv); dir.ok()) {
    job_dir = *dir;
  } else {
    warn(std::string(dir.status().message()) + "; only the command's own process is profiled");
  }
  const std::string job_prefix = std::string(kJobDirVariable) + "=";
  std::vector<std::string> base_env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::string(*e).rfind(job_prefix, 0) != 0) base_env.emplace_back(*e);  // an outer job's
  }
  // Under brrr run only brrr run serves /metrics (the processes' own collectors would fight over
  // the port): the processes leave their figures in the job directory every second instead.
  const std::string metrics_addr =
      !options.metrics_addr.empty() ? options.metrics_addr
                                    : settings.Text(Setting::kMetricsAddr).value_or("");
  if (!metrics_addr.empty()) {
    std::erase_if(base_env, [](const std::string& e) {
      return e.rfind("BRRR_METRICS_ADDR=", 0) == 0 || e.rfind("BRRR_JOB_METRICS=", 0) == 0;
    });
  }
  std::vector<std::string> env = ChildEnvironment(base_env, (*segment)->name(), shim_path, options);
  if (settings.Bool(Setting::kTorchAnnotations).value_or(true)) {
    env = WithPythonDirectory(std::move(env), SelfDirectory() + "/python");
  }
  if (!job_dir.empty()) env.push_back(job_prefix + job_dir);
  if (!job_dir.empty() && !metrics_addr.empty()) env.push_back("BRRR_JOB_METRICS=1");
  // CMD's environment as one NUL-separated block: its rank, for the report's name and identity.
  std::string env_block;
  for (const std::string& entry : env) env_block.append(entry).push_back('\0');

  RunInfo known;
  known.command = absl::StrJoin(options.command, " ");
  known.start_ns = ingest::MonotonicNowNs();
  const std::string step_range_name = ChooseStepRangeName(options.steps, std::getenv, warn);

  // In a job, the segment is CMD's: a process CMD starts must not take it, however early it uses
  // CUDA (the shim accepts a segment claimed for its own pid). Claimed before CMD runs at all:
  // claimed after the spawn, a background rank of `sh -c "A & exec B"` won the race under load
  // and its records were reported as CMD's.
  std::function<void(pid_t)> claim_for_cmd;
  if (!job_dir.empty()) {
    // `brrr ctl` on CMD (or on brrr run) reaches every process of the job through this id.
    reinterpret_cast<ring::SegmentHeader*>(mapping.base())->job_id = JobIdOf(job_dir.c_str());
    claim_for_cmd = [&mapping](pid_t pid) {
      uint32_t unclaimed = 0;
      std::atomic_ref<uint32_t>(reinterpret_cast<ring::SegmentHeader*>(mapping.base())->pid)
          .compare_exchange_strong(unclaimed, static_cast<uint32_t>(pid),
                                   std::memory_order_acq_rel);
    };
  }
  const SpawnResult child = SpawnCommand(options.command, env, claim_for_cmd);
  if (child.pid <= 0) {
    std::fprintf(stderr, "brrr: %s\n", child.error.c_str());
    if (!job_dir.empty()) RemoveJobDirectory(job_dir);
    return child.shell_exit_code != 0 ? child.shell_exit_code : kRunFailedExitCode;
  }
  ForwardSignalsTo(child.pid);
  ReleaseStdinAndStdout();
  known.pid = static_cast<uint32_t>(child.pid);
  CollectorSession session({reader->get(), child.pid, step_range_name, trace_cap, known}, warn);
  {
    // The report's file, claimed now: a bad --output or an existing report is said at the start.
    ProcessIdentity named;
    job::ReadRankFromEnvironBlock(env_block, named);
    named.host = job::LocalHostName();
    session.ClaimReportFile(&output, named);
  }
  EventSink& sink = session.sink();
  // The exiting app waits (briefly, R7) until its memory map is read: a short-lived app's stacks
  // can then still be symbolized after it is gone.
  std::string child_environ;  // CMD's environment as its program started (rank variables)
  ingest::DrainThread drain(reader->get(), &sink, ingest::DrainPacing{}, [&] {
    (void)session.maps().Capture(child.pid);
    child_environ = ReadEnviron(child.pid, 1 << 20);
    (*reader)->Drain(sink);
    (*reader)->MarkMapsCaptured();
  });
  ProcessIdentity live_identity;
  live_identity.pid = static_cast<uint32_t>(child.pid);
  live_identity.host = job::LocalHostName();
  session.StartSnapshots(ChooseSnapshotEvery(options.snapshot_every, std::getenv, warn),
                         ReportFile(output, child.pid), &live_identity, output);
  if (!metrics_addr.empty() && session.StartMetrics(metrics_addr, -1, /*say_failure=*/true) &&
      !job_dir.empty()) {
    session.snapshots().SetJobDirectory(job_dir);  // one endpoint per job
  }
  drain.SetAfterEachDrain([&] { session.AfterDrain(known); });
  drain.Start();
  const int wait_status = WaitForChild(child.pid);
  drain.Stop();
  StopForwardingSignals();
  session.FinalDrain();  // everything the app published before it exited

  known.end_ns = ingest::MonotonicNowNs();
  if (wait_status >= 0 && WIFEXITED(wait_status)) {
    known.exited_normally = true;
    known.exit_code = WEXITSTATUS(wait_status);
  } else if (wait_status >= 0 && WIFSIGNALED(wait_status)) {
    known.term_signal = WTERMSIG(wait_status);
    known.exit_code = 128 + known.term_signal;
  }
  // The shim started in CMD (it writes the command line; brrr leaves it empty).
  const bool used_cuda = !(*reader)->ReadRunInfo().command.empty();
  const RunInfo info = MergeRunInfo((*reader)->ReadRunInfo(), known);
  ProcessIdentity identity;
  identity.pid = static_cast<uint32_t>(child.pid);
  identity.host = job::LocalHostName();
  identity.term_signal = known.term_signal;
  if (!child_environ.empty()) {
    job::ReadRankFromEnvironBlock(child_environ, identity);
  } else {
    job::ReadRankFromEnvironBlock(env_block, identity);
  }
  const Trace* trace = session.trace();
  if (!job_dir.empty()) {
    Report own =
        FinishReport(**reader, session.analysis(), session.maps(), info, output.counters_requested);
    own.process = identity;
    const job::JobContext context{known.command, std::max<int64_t>(known.end_ns - known.start_ns, 0),
                                  ShellExitCode(wait_status)};
    // Processes whose shim declined to profile them (PID 1 of a namespace, no segment): said in
    // whichever report this run writes.
    const std::vector<std::string> unprofiled = ReadUnprofiledNotes(job_dir);
    if (!ReportJob(job_dir, own, used_cuda, context, child.pid, output, trace != nullptr,
                   unprofiled)) {
      NoteUnprofiledProcesses(unprofiled, own);
      // No other process reported: CMD's own report, exactly as without jobs.
      (void)WriteAndPrint(own, ReportFile(output, child.pid, identity.rank, identity.host),
                          output, trace);
    }
    return ShellExitCode(wait_status);
  }
  (void)session.FinishAndReport(info, output, &identity);
  return ShellExitCode(wait_status);
}

}  // namespace brrr::cli
