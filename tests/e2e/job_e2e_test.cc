// End-to-end tests of multi-process jobs on the simulated device: a plain Python launcher
// (job_launcher.py, subprocess) of 4 ranks of an nvcc-built program (rank_worker.cu: rank r
// launches 100 * (r + 1) kernels) under `brrr run`, and under Open MPI's mpirun when installed;
// the same workload under a plain LD_PRELOAD joined with `brrr merge`; merging damaged files. Each
// rank's timeline on the job's clock adds up to its breakdown and is drawn in the HTML page.
// Paths come from the build: BRRR_BIN, E2E_BIN_DIR, E2E_SOURCE_DIR.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/job_runs.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report.h"
#include "viewer/format/timeline_sums_for_test.h"

namespace brrr {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kLaunches[] = {100, 200, 300, 400};  // rank r: 100 * (r + 1)

using e2e::HostName;
using e2e::JobRun;
using e2e::LauncherCommand;
using e2e::LauncherEnvironment;
using e2e::RunJob;
using e2e::Worker;

std::string TestDir(const std::string& name) { return e2e::JobTestDir(name); }

const ProcessRow* RowOfRank(const Report& r, int64_t rank) {
  for (const ProcessRow& row : r.processes) {
    if (row.rank == rank) return &row;
  }
  return nullptr;
}

uint64_t ApiCalls(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return a.calls;
  }
  return 0;
}

// Every rank present once, with its exact launches, exit 0, this host.
void ExpectFourExactRanks(const Report& r, const std::string& output) {
  ASSERT_TRUE(r.job.has_value()) << output;
  EXPECT_EQ(r.job->processes, 4u) << "only the ranks use CUDA; the launcher and helpers do not";
  EXPECT_EQ(r.job->ranks, 4u);
  ASSERT_EQ(r.processes.size(), 4u);
  for (int64_t rank = 0; rank < 4; ++rank) {
    const ProcessRow& row = r.processes[static_cast<size_t>(rank)];
    EXPECT_EQ(row.rank, rank) << "rows by rank";
    EXPECT_EQ(row.kernels.launches, kLaunches[rank]) << "rank " << rank;
    EXPECT_EQ(row.exit_code, 0) << "rank " << rank;
    EXPECT_EQ(row.ended, "exited");
    EXPECT_EQ(row.host, HostName());
    EXPECT_GT(row.pid, 0u);
    EXPECT_THAT(row.command, HasSubstr("e2e_rank_worker"));
  }
  EXPECT_EQ(r.kernels.launches, 1000u);
  EXPECT_EQ(ApiCalls(r, "cudaMalloc"), 4u);
}

// Every rank has its devices over time on the job's clock: one timeline row per device of its
// own, adding up to that device's breakdown part by part; all rows share one start, width and
// bucket count, which covers the rank's wall time. And `brrr report FILE --html` draws each row
// (an element with id timeline-pid-PID-gpu-ID).
void ExpectRankTimelines(const Report& r, const std::string& file, const std::string& dir) {
  ASSERT_TRUE(r.job.has_value());
  EXPECT_EQ(r.job->timeline_rows_left_out, 0u) << r.job->timeline_note;
  EXPECT_FALSE(r.timeline.has_value()) << "the job's own devices are sums; each rank has its own";
  const Timeline* first = nullptr;
  for (const ProcessRow& row : r.processes) {
    ASSERT_TRUE(row.timeline.has_value()) << "rank " << row.rank;
    const Timeline& t = *row.timeline;
    if (first == nullptr) first = &t;
    EXPECT_GT(t.origin_unix_ns, 1'600'000'000'000'000'000) << "a wall-clock time";
    EXPECT_EQ(t.origin_unix_ns, first->origin_unix_ns) << "one clock";
    EXPECT_EQ(t.bucket_ns, first->bucket_ns);
    ASSERT_EQ(t.devices.size(), row.devices.size()) << "rank " << row.rank;
    for (size_t i = 0; i < t.devices.size(); ++i) {
      const DeviceTimeline& dt = t.devices[i];
      const DeviceBreakdown& d = row.devices[i];
      EXPECT_EQ(dt.id, d.id);
      EXPECT_EQ(dt.buckets.size(), first->devices[0].buckets.size()) << "same count every row";
      EXPECT_LE(dt.buckets.size(), kMaxTimelineBuckets);
      EXPECT_GE(t.bucket_ns * static_cast<int64_t>(dt.buckets.size()), d.wall_ns);
      const TimelineBucket sum = SumOfBuckets(dt);
      EXPECT_EQ(DescribeParts(sum), DescribeParts(PartsOf(d))) << "rank " << row.rank;
      EXPECT_GT(sum.busy_ns, 0) << "rank " << row.rank << " ran kernels";
    }
  }
  const std::string html = dir + "/job.html";
  const e2e::ProcessResult rendered =
      e2e::Spawn({BRRR_BIN, "report", file, "--html", html}, e2e::SimEnvironment({}),
                 /*with_stderr=*/true);
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(page, HasSubstr("Each process over time"));
  for (const ProcessRow& row : r.processes) {
    for (const DeviceBreakdown& d : row.devices) {
      EXPECT_THAT(page, HasSubstr("id=\"timeline-pid-" + std::to_string(row.pid) + "-gpu-" +
                                  std::to_string(d.id) + "\""));
    }
  }
}

TEST(JobE2eTest, FourRanksOfAPythonLauncherWithAStraggler) {
  const std::string dir = TestDir("straggler");
  const JobRun run = RunJob(dir, LauncherCommand({"--slow-rank", "2", "300"}));
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  ExpectFourExactRanks(run.report, run.output);
  ASSERT_TRUE(run.report.job->straggler.has_value()) << run.output;
  EXPECT_EQ(run.report.job->straggler->rank, 2);
  EXPECT_THAT(run.report.job->straggler->why, HasSubstr("rank 2 spent"));
  EXPECT_THAT(run.report.job->straggler->why, HasSubstr("on the host outside CUDA"));
  // Rank 2's 300 ms on the host are its own: nearly all of it outside CUDA (each of its 10 sleeps
  // may start while its last kernels still run; seen: 299.95 ms on a loaded host).
  const ProcessRow* slow = RowOfRank(run.report, 2);
  ASSERT_NE(slow, nullptr);
  ASSERT_FALSE(slow->devices.empty());
  EXPECT_GE(slow->devices[0].idle.host_outside_cuda_ns, 285'000'000);
  // The final cudaDeviceSynchronize of main, one call per rank: the ranks where it blocked (the
  // slow rank's device may have drained already) share one stall row, its calls summed.
  int rows = 0;
  for (const Stall& s : run.report.stalls) {
    if (s.api == "cudaDeviceSynchronize" && !s.stack.empty() &&
        absl::StrContains(s.stack[0], "rank_worker.cu")) {
      ++rows;
      EXPECT_GE(s.calls, 2u) << "merged across ranks";
      EXPECT_LE(s.calls, 4u);
    }
  }
  EXPECT_EQ(rows, 1) << "one row for the same stack in every rank";
  EXPECT_EQ(ApiCalls(run.report, "cudaDeviceSynchronize"), 4u);
  EXPECT_THAT(run.report.command, HasSubstr("job_launcher.py"));
  ExpectRankTimelines(run.report, dir + "/job.brrr", dir);
  // The job's device view (issue 47: a 3-rank job of 45.5 s showed "DEVICE 0 wall 135 s"): the
  // four ranks share this host's simulated device 0, whose wall is once, within the job's, and
  // its parts add up to it.
  ASSERT_EQ(run.report.devices.size(), 1u) << run.output;
  const DeviceBreakdown& shared = run.report.devices[0];
  EXPECT_EQ(shared.host, HostName());
  EXPECT_EQ(shared.processes, 4u);
  EXPECT_LE(shared.wall_ns, run.report.wall_ns) << "the launcher outlives its ranks";
  int64_t summed = 0;
  for (const ProcessRow& row : run.report.processes) summed += row.devices.at(0).wall_ns;
  EXPECT_LT(shared.wall_ns, summed);
  EXPECT_EQ(shared.busy_ns + shared.idle.launch_bound_ns + shared.idle.sync_drain_ns +
                shared.idle.host_outside_cuda_ns + shared.startup_ns + shared.teardown_ns,
            shared.wall_ns);
  const e2e::ProcessResult text = e2e::Spawn({BRRR_BIN, "report", dir + "/job.brrr"},
                                             e2e::SimEnvironment({}), /*with_stderr=*/true);
  EXPECT_THAT(text.output, HasSubstr("DEVICE 0 on " + HostName() + ", shared by 4 processes"));
  // No job directory is left behind.
  fs::remove_all(dir);
}

TEST(JobE2eTest, RanksEndingInAnyOrderAndChildrenThatNeverUseCuda) {
  const std::string dir = TestDir("order");
  const JobRun run = RunJob(dir, LauncherCommand({"--fork", "2", "--exit-delay-ms", "150"}));
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  // The ranks ended out of rank order (rank 0 is told to stay 450 ms longer than rank 3; which
  // rank ends exactly when depends on the machine's load: seen 3, 2, 0, 1 beside two busy loops).
  EXPECT_THAT(run.output, Not(HasSubstr("\"order\": [0, 1, 2, 3]"))) << run.output;
  ExpectFourExactRanks(run.report, run.output);  // the 8 forked children are not processes
  fs::remove_all(dir);
}

TEST(JobE2eTest, AKilledRankIsShownAndTheOthersReportNormally) {
  const std::string dir = TestDir("killed");
  const JobRun run = RunJob(dir, LauncherCommand({"--kill-rank", "1"}));
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 7) << "brrr run exits with the launcher's status\n" << run.output;
  EXPECT_THAT(run.output, HasSubstr("\"1\": -9"));  // the launcher saw SIGKILL
  const Report& r = run.report;
  ASSERT_EQ(r.processes.size(), 4u) << run.output;
  const ProcessRow* killed = RowOfRank(r, 1);
  ASSERT_NE(killed, nullptr);
  EXPECT_FALSE(killed->exit_code.has_value());
  EXPECT_EQ(killed->ended, "vanished (killed or crashed)");
  EXPECT_LE(killed->kernels.launches, 100u);  // stopped halfway through its 200
  for (int64_t rank : {0, 2, 3}) {
    const ProcessRow* row = RowOfRank(r, rank);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->kernels.launches, kLaunches[rank]);
    EXPECT_EQ(row->exit_code, 0);
  }
  EXPECT_EQ(r.exit_code, 7);
  fs::remove_all(dir);
}

// The command itself is a rank too: `sh -c` starts rank 1 in the background and becomes rank 0
// (exec), which records into brrr run's own segment; its rank comes from its environment as its
// program started (/proc/PID/environ), not from the environment brrr run gave the shell. Under
// load the background rank once reached CUDA before brrr run had claimed its segment for the
// shell's pid, and was reported as the command (1 run in 8 beside two busy loops): brrr run now
// claims it before the command starts (SpawnCommand's before_exec).
TEST(JobE2eTest, TheCommandItselfAndABackgroundProcess) {
  const std::string dir = TestDir("shell");
  const JobRun run =
      RunJob(dir, {"/bin/sh", "-c", "RANK=1 " + Worker() + " & exec env RANK=0 " + Worker()});
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const Report& r = run.report;
  ASSERT_TRUE(r.job.has_value()) << run.output;
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.processes[0].rank, 0);
  EXPECT_EQ(r.processes[0].kernels.launches, 100u);
  EXPECT_EQ(r.processes[1].rank, 1);
  EXPECT_EQ(r.processes[1].kernels.launches, 200u);
  EXPECT_EQ(r.kernels.launches, 300u);
  fs::remove_all(dir);
}

TEST(JobE2eTest, AFloodedRankIsShownAndTheOthersReportNormally) {
  const std::string dir = TestDir("flooded");
  // Rank 3 records 2000 launches into rings of 8 records: most of its host records are dropped.
  const JobRun run = RunJob(dir, LauncherCommand({"--scale", "5"}),
                            {"JOB_RANK_ENV=3:BRRR_RING_RECORDS=8"});
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const Report& r = run.report;
  ASSERT_EQ(r.processes.size(), 4u) << run.output;
  for (int64_t rank = 0; rank < 4; ++rank) {
    const ProcessRow* row = RowOfRank(r, rank);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->kernels.launches, kLaunches[rank] * 5) << "device records are complete";
    EXPECT_EQ(row->exit_code, 0);
    if (rank == 3) {
      EXPECT_GT(row->events_dropped, 1000u);
    } else {
      EXPECT_EQ(row->events_dropped, 0u) << "rank " << rank;
    }
  }
  EXPECT_EQ(r.events.dropped, RowOfRank(r, 3)->events_dropped);
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_FALSE(r.coverage->complete);
  ASSERT_FALSE(r.coverage->gaps.empty());
  for (const std::string& gap : r.coverage->gaps) EXPECT_THAT(gap, ::testing::StartsWith("rank 3: "));
  fs::remove_all(dir);
}

// The same workload under a plain LD_PRELOAD (one file per rank, named with %r) joined by
// `brrr merge` gives the job view `brrr run` gives.
TEST(JobE2eTest, MergeOfPlainPreloadFilesEqualsTheRunJobView) {
  const std::string dir = TestDir("merge");
  const JobRun run = RunJob(dir, LauncherCommand({"--slow-rank", "3", "300"}));
  ASSERT_TRUE(run.read);

  const std::vector<std::string> env = e2e::PlainPreloadEnvironment(dir, {});
  const e2e::ProcessResult plain =
      e2e::Spawn(LauncherCommand({"--slow-rank", "3", "300"}), env, /*with_stderr=*/true);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  std::vector<std::string> files;
  for (int rank = 3; rank >= 0; --rank) {  // any order
    files.push_back(e2e::PlainPreloadFile(dir, rank));
    ASSERT_TRUE(fs::exists(files.back())) << files.back() << "\n" << plain.output;
  }
  const JobRun merged_run = e2e::MergeFiles(files, dir + "/merged.brrr", env);
  ASSERT_EQ(merged_run.exit_code, 0) << merged_run.output;
  ASSERT_TRUE(merged_run.read);
  const Report* merged = &merged_run.report;

  ExpectFourExactRanks(*merged, merged_run.output);
  const Report& a = run.report;
  const Report& b = *merged;
  EXPECT_EQ(a.job->processes, b.job->processes);
  EXPECT_EQ(a.job->ranks, b.job->ranks);
  ASSERT_TRUE(a.job->straggler.has_value());
  ASSERT_TRUE(b.job->straggler.has_value());
  EXPECT_EQ(a.job->straggler->rank, 3);
  EXPECT_EQ(b.job->straggler->rank, 3);
  EXPECT_EQ(a.kernels.launches, b.kernels.launches);
  for (size_t i = 0; i < a.processes.size(); ++i) {
    EXPECT_EQ(a.processes[i].rank, b.processes[i].rank);
    EXPECT_EQ(a.processes[i].kernels.launches, b.processes[i].kernels.launches);
    EXPECT_EQ(a.processes[i].exit_code, b.processes[i].exit_code);
  }
  std::map<std::string, uint64_t> calls_a, calls_b;
  for (const ApiStat& s : a.api) calls_a[s.name] = s.calls;
  for (const ApiStat& s : b.api) calls_b[s.name] = s.calls;
  EXPECT_EQ(calls_a, calls_b);  // (times and verdicts differ: two executions, not one)
  ExpectRankTimelines(b, dir + "/merged.brrr", dir);
  fs::remove_all(dir);
}

// A rank of a `brrr run` job started on another host (mpirun -H) inherits BRRR_SHM and
// BRRR_JOB_DIR, neither of which exists there: it records into its own segment and writes its
// file by BRRR_OUTPUT, as under a plain LD_PRELOAD, for `brrr merge`.
TEST(JobE2eTest, ARankOnAnotherHostWritesItsOwnFile) {
  const std::string dir = TestDir("remote");
  std::vector<std::string> env = e2e::SimEnvironment({});
  const std::string shim = fs::path(BRRR_BIN).parent_path().string() + "/libbrrr.so";
  bool preloaded = false;
  for (std::string& kv : env) {
    if (kv.rfind("LD_PRELOAD=", 0) == 0) {
      kv += ":" + shim;
      preloaded = true;
    }
  }
  if (!preloaded) env.push_back("LD_PRELOAD=" + shim);
  for (const char* kv :
       {"BRRR_SHM=/brrr-1-absent", "BRRR_JOB_DIR=/nonexistent/brrr-job-x", "RANK=5",
        "BRRR_QUIET=1"}) {
    env.push_back(kv);
  }
  env.push_back("BRRR_OUTPUT=" + dir + "/r%r.brrr");
  const e2e::ProcessResult r = e2e::Spawn({Worker()}, env, /*with_stderr=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("not profiled")));
  auto report = ReadBrrrFile(dir + "/r5.brrr");
  ASSERT_TRUE(report.ok()) << report.status() << "\n" << r.output;
  ASSERT_TRUE(report->process.has_value());
  EXPECT_EQ(report->process->rank, 5);
  EXPECT_EQ(report->process->rank_from, "RANK");
  EXPECT_EQ(report->kernels.launches, 600u);
  fs::remove_all(dir);
}

TEST(JobE2eTest, MergingACorruptOrTruncatedFileFailsNamingIt) {
  const std::string dir = TestDir("corrupt");
  std::vector<std::string> env = e2e::SimEnvironment({});
  // Two per-process files from `brrr run` of single ranks.
  std::vector<std::string> files;
  for (int rank = 0; rank < 2; ++rank) {
    const std::string out = dir + "/r" + std::to_string(rank) + ".brrr";
    std::vector<std::string> e = env;
    e.push_back("RANK=" + std::to_string(rank));
    const e2e::ProcessResult r =
        e2e::Spawn({BRRR_BIN, "run", "--quiet", "--output", out, "--", Worker()}, e, true);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    files.push_back(out);
  }
  const std::string good = e2e::ReadFile(files[1]);
  ASSERT_GT(good.size(), 100u);
  const std::string job = dir + "/job.brrr";
  struct Damage {
    std::string name;
    std::string bytes;
    std::string says;
  };
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x5a);
  for (const Damage& d : {Damage{"truncated", good.substr(0, good.size() - 37), "truncated"},
                          Damage{"flipped", flipped, "CRC"}}) {
    const std::string bad = dir + "/" + d.name + ".brrr";
    std::ofstream(bad, std::ios::binary) << d.bytes;
    const e2e::ProcessResult r = e2e::Spawn(
        {BRRR_BIN, "merge", files[0], bad, "--output", job}, env, /*with_stderr=*/true);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr(bad)) << "the error names the file";
    EXPECT_THAT(r.output, HasSubstr(d.says));
    EXPECT_THAT(r.output, HasSubstr("nothing written"));
    EXPECT_FALSE(fs::exists(job)) << "nothing merged from a damaged input";
  }
  // A job report is not a process: refused, named.
  const e2e::ProcessResult ok =
      e2e::Spawn({BRRR_BIN, "merge", files[0], files[1], "--output", job, "--quiet"}, env, true);
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  const e2e::ProcessResult again = e2e::Spawn(
      {BRRR_BIN, "merge", files[0], job, "--output", dir + "/again.brrr"}, env, true);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.output, HasSubstr(job + ": already a job report"));
  fs::remove_all(dir);
}

// A real launcher: Open MPI's mpirun starts 4 ranks; each knows its rank from
// OMPI_COMM_WORLD_RANK (the worker sizes its work by it, the report reads the same variable).
TEST(JobE2eTest, OpenMpiRanks) {
  std::string mpirun;
  for (const char* candidate : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"}) {
    if (access(candidate, X_OK) == 0) mpirun = candidate;
  }
  if (mpirun.empty()) {
    GTEST_SKIP() << "mpirun not found (Debian: apt-get install openmpi-bin; tools/setup.sh does)";
  }
  const std::string dir = TestDir("mpi");
  const JobRun run = RunJob(dir, {mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "4",
                                  Worker()});
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  ExpectFourExactRanks(run.report, run.output);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace brrr
