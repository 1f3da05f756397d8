// `brrr attach --shm NAME --pid PID`: the collector of a plain `LD_PRELOAD=libbrrr.so ./app` run,
// started by the shim. Drains until the app sets `finished` or is gone (even SIGKILLed), then
// finishes, writes and prints, sets collector_done (R6) and unlinks the segment. In a `brrr run`
// job (BRRR_JOB_DIR in the environment it inherits from the app) it writes "<dir>/<pid>.brrr"
// quietly instead: `brrr run` merges it into the job report.
//
// Must never: signal or wait on the app, or hold it up (the shim's wait for R6 is bounded).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "collector/analysis/analysis.h"
#include "collector/cli/app_stderr.h"
#include "collector/cli/collector_session.h"
#include "collector/cli/exec_watch.h"
#include "collector/cli/finish_report.h"
#include "collector/cli/job_directory.h"
#include "collector/cli/leftover_segments.h"
#include "collector/cli/live_snapshot.h"
#include "collector/cli/steps_setting.h"
#include "collector/cli/subcommands.h"
#include "collector/cli/trace_setting.h"
#include "collector/ingest/clock_pair.h"
#include "collector/ingest/drain_loop.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/shm_mapping.h"
#include "collector/job/process_identity.h"

namespace brrr::cli {
namespace {

// Waits for a process that is not our child: a pidfd when the kernel has them, else kill(pid, 0)
// polling.
class ProcessWatch {
 public:
  explicit ProcessWatch(pid_t pid) : pid_(pid) {
#ifdef SYS_pidfd_open
    fd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#endif
  }
  ~ProcessWatch() {
    if (fd_ >= 0) close(fd_);
  }
  // Waits up to `timeout`; true once the process is gone.
  bool WaitGone(std::chrono::microseconds timeout) {
    if (fd_ >= 0) {
      pollfd p{fd_, POLLIN, 0};
      const int ms = static_cast<int>((timeout.count() + 999) / 1000);
      const int r = poll(&p, 1, ms);
      return r > 0;
    }
    if (Gone()) return true;
    const auto step = std::min<std::chrono::microseconds>(timeout, std::chrono::milliseconds(10));
    usleep(static_cast<useconds_t>(step.count()));
    return Gone();
  }

 private:
  bool Gone() const { return kill(pid_, 0) != 0 && errno == ESRCH; }
  pid_t pid_;
  int fd_ = -1;
};

// A live process running brrr, from /proc/PID/stat ("PID (comm) STATE ..."): a reader's pid reused
// by another program is no reader, nor is a killed one nobody reaped yet (a zombie keeps its comm).
bool IsBrrr(uint32_t pid) {
  const std::string path = absl::StrCat("/proc/", pid, "/stat");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[256];
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return false;
  const std::string stat(buf, static_cast<size_t>(n));
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= stat.size()) return false;
  const char state = stat[close_paren + 2];
  return stat.find(" (brrr) ") != std::string::npos && state != 'Z' && state != 'X';
}

}  // namespace

int AttachSubcommand(const AttachOptions& options) {
  signal(SIGINT, SIG_IGN);  // the app's Ctrl-C must not cost its report
  signal(SIGHUP, SIG_IGN);  // nor a hangup (or the kernel's to an orphaned, stopped group)
  signal(SIGPIPE, SIG_IGN);
  // Every message goes to the app's stderr only while it is the app's (app_stderr.h).
  const AppStderr app_stderr(options.pid, options.app_stderr);
  const auto say = [&](const std::string& text) {
    app_stderr.Print([&] { std::fputs(text.c_str(), stderr); });
  };
  LeftoverScan leftovers = DefaultLeftoverScan();
  leftovers.keep = options.shm;  // (recovering a dead collector's report reads an old one)
  (void)RemoveLeftoverSegments(leftovers);  // quietly: the app's stderr is not ours
  auto mapping = ingest::ShmMapping::OpenExisting(options.shm);
  if (!mapping.ok()) {
    say(absl::StrCat("brrr attach: ", mapping.status().message(), "\n"));
    return 1;
  }
  auto reader = ingest::SegmentReader::Open((*mapping)->base(), (*mapping)->size());
  if (!reader.ok()) {
    // Not unlinked: what fails the header check is not proven brrr's (it may be anyone's).
    say(absl::StrCat("brrr attach: ", options.shm, ": ", reader.status().message(), "\n"));
    return 1;
  }
  // R10: one collector per run. A live one keeps it; a dead one's run is ours to recover.
  if (const uint32_t other = (*reader)->ClaimReader(static_cast<uint32_t>(getpid()), IsBrrr);
      other != 0) {
    say(absl::StrCat("brrr attach: ", options.shm, ": brrr (pid ", other,
                     ") is collecting this run already; a second collector would split its "
                     "records between two reports, so nothing was done\n"));
    return 1;
  }
  const uint32_t header_pid = (*reader)->AppPid();
  if (header_pid != 0 && header_pid != static_cast<uint32_t>(options.pid)) {
    say(absl::StrCat("brrr attach: warning: segment belongs to pid ", header_pid, ", not ",
                     options.pid, "\n"));
  }
  const auto warn = [&](const std::string& line) { say(absl::StrCat("brrr: ", line, "\n")); };
  // The app's environment as the shim started (it removes only LD_PRELOAD and BRRR_SHM).
  // The shim warned about the values it reads already; each is said once.
  const EnvSettings env(std::getenv, warn, /*shim_warned=*/true);
  ReportOutput output = ChooseReportOutput(env, "", false, false, false);
  // In a job, into its directory; on another host than `brrr run`'s (no such directory), as
  // under a plain LD_PRELOAD, for `brrr merge`.
  struct stat job_dir_stat {};
  bool in_job = false;
  if (const std::optional<std::string> job_dir = env.Text(Setting::kJobDir);
      job_dir.has_value() && (*job_dir)[0] == '/' && stat(job_dir->c_str(), &job_dir_stat) == 0 &&
      S_ISDIR(job_dir_stat.st_mode)) {
    output.output_pattern = *job_dir + "/%p.brrr";
    in_job = true;
    output.quiet = true;
  }
  // The app's rank as its launcher set it: this process inherited the app's environment as it
  // was when the shim started (the shim removes only LD_PRELOAD and BRRR_SHM).
  ProcessIdentity identity;
  identity.pid = static_cast<uint32_t>(options.pid);
  identity.host = job::LocalHostName();
  job::ReadRankFromEnvironment(std::getenv, identity);

  RunInfo known = (*reader)->ReadRunInfo();
  known.pid = static_cast<uint32_t>(options.pid);
  // BRRR_TRACE comes with the app's environment (the shim removes only LD_PRELOAD and BRRR_SHM).
  CollectorSession session({reader->get(), options.pid, ChooseStepRangeName("", std::getenv, warn),
                            ChooseTraceCap(std::nullopt, std::getenv, warn), known},
                           warn);
  (void)session.maps().Capture(options.pid);
  EventSink& sink = session.sink();
  ProcessWatch watch(options.pid);
  ExecWatch exec_watch(options.pid, options.shm);
  bool execed = false;
  // A job's directory has one file per pid, read by brrr run.
  if (!in_job) session.ClaimReportFile(&output, identity);
  session.StartSnapshots(ChooseSnapshotEvery(std::nullopt, std::getenv, warn),
                         ReportFile(output, options.pid, identity.rank, identity.host), &identity,
                         output);
  // In a brrr run job whose /metrics brrr run serves: this process's figures, every second.
  if (in_job && env.Bool(Setting::kJobMetrics).value_or(false)) {
    session.snapshots().SetLiveFigures(
        output.output_pattern.substr(0, output.output_pattern.rfind('/')),
        static_cast<uint32_t>(options.pid));
  }
  // BRRR_METRICS_ADDR comes with the app's environment (plain preload mode).
  if (const std::optional<std::string> addr = env.Text(Setting::kMetricsAddr); addr.has_value()) {
    (void)session.StartMetrics(*addr, identity.rank, /*say_failure=*/!output.quiet);
  }
  ingest::RunDrainLoop(**reader, sink, [&](std::chrono::microseconds interval) {
    if ((*reader)->AppFinished() || watch.WaitGone(interval) || (*reader)->AppFinished()) {
      return true;
    }
    if (exec_watch.Execed()) {  // the pid lives on as another program; this one ended here
      execed = true;
      return true;
    }
    session.AfterDrain(known);
    return false;
  });
  session.FinalDrain();  // everything published before `finished` or death

  RunInfo final_known;
  final_known.pid = static_cast<uint32_t>(options.pid);
  if ((*reader)->ReadRunInfo().end_ns == 0) final_known.end_ns = ingest::MonotonicNowNs();
  RunInfo info = MergeRunInfo((*reader)->ReadRunInfo(), final_known);
  // Not our child: its end is known only from the shim (exit code, or `finished` at exit); a
  // process killed by a signal or crashed sets neither: its exit status is unknown (never 0).
  identity.exit_seen = info.exited_normally || (*reader)->AppFinished();
  info.execed = execed && !identity.exit_seen;
  info.vanished = !identity.exit_seen && !info.execed;
  absl::Status written;
  app_stderr.Print([&] { written = session.FinishAndReport(info, output, &identity); });
  session.snapshots().RemoveLiveFigures();  // the final report (or its absence) says the rest
  (*reader)->MarkCollectorDone();  // R6
  shm_unlink(options.shm.c_str());
  return written.ok() ? 0 : 1;
}

}  // namespace brrr::cli
