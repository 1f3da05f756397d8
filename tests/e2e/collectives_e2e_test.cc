// End-to-end tests of collective waits on the simulated device: 4 ranks of an nvcc-built program
// (rank_worker.cu --all-reduce) run 30 steps of a kernel, an NCCL all-reduce kernel (a collective
// of the simulated device's group, tools/simcuda/README.md "Collectives") and a sync; rank 2
// sleeps 20 ms on the host before each step, so it arrives last at every all-reduce and the
// others wait for it inside the kernel. Under `brrr run` of a launcher and under plain LD_PRELOAD
// joined by `brrr merge`, the job report names rank 2 from the collectives, gives the others
// about the planted wait, does not call them device-bound, and its advice names rank 2.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/job_runs.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report.h"

namespace brrr {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kSteps = 30;
constexpr int kLateRank = 2;
constexpr int64_t kLateNs = 20'000'000;  // rank 2's sleep before each step
constexpr int64_t kPlantedWaitNs = kSteps * kLateNs;

std::vector<std::string> AllReduceOptions() {
  return {"--all-reduce", std::to_string(kSteps), std::to_string(kLateRank),
          std::to_string(kLateNs / 1000)};
}

// Each test gets its own group (the ranks meet in /dev/shm by its name).
std::vector<std::string> GroupEnvironment(const std::string& tag, int size = 4,
                                          int timeout_ms = 60'000) {
  return {"BRRR_SIM_NCCL_GROUP=e2e-" + tag + "-" + std::to_string(getpid()),
          "BRRR_SIM_NCCL_SIZE=" + std::to_string(size),
          "BRRR_SIM_NCCL_TIMEOUT_MS=" + std::to_string(timeout_ms),
          "BRRR_SIM_KERNELS=ncclDevKernel_AllReduce_Sum_f32_RING_LL=100000"};
}

void ExpectRankTwoIsWaitedFor(const Report& r, const std::string& output) {
  ASSERT_TRUE(r.job.has_value()) << output;
  ASSERT_EQ(r.processes.size(), 4u) << output;
  ASSERT_TRUE(r.job->collectives.has_value()) << output;
  const JobCollectives& c = *r.job->collectives;
  EXPECT_EQ(c.count, static_cast<uint64_t>(kSteps));
  EXPECT_EQ(c.processes, 4u);
  EXPECT_EQ(c.unmatched, 0u);
  EXPECT_EQ(c.alignment, "one host");
  ASSERT_EQ(c.waits.size(), 4u);
  for (const CollectiveWait& w : c.waits) {
    if (w.rank == kLateRank) {
      // It waited only where another rank was slower: the first all-reduce's start-up skew, at
      // most (each of its steps begins 20 ms after the others').
      EXPECT_LT(w.wait_ns, kPlantedWaitNs / 2) << output;
      EXPECT_GE(w.last_arrivals * 10, static_cast<uint64_t>(kSteps) * 9) << "last at >= 90 %";
      // The others' waits, summed (bounded below as each of theirs is, next).
      EXPECT_GE(w.caused_wait_ns, 3 * kPlantedWaitNs / 2) << output;
    } else {
      // The planted 20 ms per step (a sleep is never shorter), less what this rank's own host
      // was late (a loaded machine, an ASan build: 490 of 600 ms seen, rank 3, 4 ranks on 2
      // cores), plus at most the first all-reduce's start-up skew and scheduling delays. Half
      // the planted wait is far above what a rank that did not wait for rank 2 would show.
      EXPECT_GE(w.wait_ns, kPlantedWaitNs / 2) << "rank " << w.rank;
      EXPECT_LE(w.wait_ns, kPlantedWaitNs + 3'000'000'000) << "rank " << w.rank;
    }
  }
  ASSERT_TRUE(c.last_arriver.has_value());
  EXPECT_EQ(c.last_arriver->rank, kLateRank);
  EXPECT_GE(c.last_arriver->share, 0.9);

  ASSERT_TRUE(r.job->straggler.has_value()) << output;
  EXPECT_EQ(r.job->straggler->rank, kLateRank);
  EXPECT_EQ(r.job->straggler->basis, "collectives");
  EXPECT_THAT(r.job->straggler->why, HasSubstr("rank 2 arrived last at "));

  // The waiting ranks are not device-bound: they waited for rank 2.
  for (const ProcessRow& row : r.processes) {
    if (row.rank == kLateRank) {
      EXPECT_NE(row.verdict.regime, "collective-wait");
      continue;
    }
    EXPECT_EQ(row.verdict.regime, "collective-wait")
        << "rank " << row.rank << ": " << row.verdict.why;
    EXPECT_THAT(row.verdict.why, HasSubstr("collectives for rank 2"));
  }
  // The job goes at rank 2's pace: its verdict is rank 2's, and the advice names it first.
  EXPECT_THAT(r.verdict.why, HasSubstr("The collectives wait for rank 2"));
  ASSERT_GE(r.verdict.advice.size(), 2u);
  EXPECT_THAT(r.verdict.advice[0], HasSubstr("straggler: rank 2 arrived last"));
  bool waiting_line = false;
  for (const std::string& line : r.verdict.advice) {
    waiting_line |=
        line.find("ranks 0, 1 and 3") == 0 && line.find("for rank 2") != std::string::npos;
  }
  EXPECT_TRUE(waiting_line) << "the waiting ranks' advice, once for the three";
}

// The text and HTML of the job say it in words, with ranks named "rank N" and plain pids.
void ExpectWords(const std::string& file, const Report& r, const std::string& dir) {
  const e2e::ProcessResult text =
      e2e::Spawn({BRRR_BIN, "report", file}, e2e::SimEnvironment({}), /*with_stderr=*/true);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output,
              HasSubstr("COLLECTIVES  30 matched across 4 processes; clocks: one host"));
  EXPECT_THAT(text.output, HasSubstr("collective-wait"));
  EXPECT_THAT(text.output, HasSubstr("STRAGGLER\n  rank 2 arrived last at "));
  EXPECT_THAT(text.output, Not(HasSubstr("device-bound")));
  for (const ProcessRow& row : r.processes) {
    EXPECT_THAT(text.output, HasSubstr(" " + std::to_string(row.pid) + " "));  // no separators
  }
  const std::string html = dir + "/job.html";
  const e2e::ProcessResult rendered =
      e2e::Spawn({BRRR_BIN, "report", file, "--html", html}, e2e::SimEnvironment({}), true);
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  const std::string page = e2e::ReadFile(html);
  EXPECT_THAT(page, HasSubstr("id=\"collective_waits\""));
  EXPECT_THAT(page, HasSubstr("rank 2 arrived last at "));
}

TEST(CollectivesE2eTest, TheLateRankIsNamedUnderBrrrRun) {
  const std::string dir = e2e::JobTestDir("collectives-run");
  const e2e::JobRun run =
      e2e::RunJob(dir, e2e::LauncherCommand(AllReduceOptions()), GroupEnvironment("run"));
  ASSERT_TRUE(run.read);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  ExpectRankTwoIsWaitedFor(run.report, run.output);
  ExpectWords(dir + "/job.brrr", run.report, dir);
  fs::remove_all(dir);
}

// Rank `rank`'s file as if it came from another host, named `host`, whose CLOCK_MONOTONIC reads
// `monotonic_shift` more than this one's (it booted earlier) and whose wall clock runs `ahead`
// of this one's.
void AsIfFromAnotherHost(const std::string& in, const std::string& out, const std::string& host,
                         int64_t monotonic_shift, int64_t ahead) {
  absl::StatusOr<Report> r = ReadBrrrFile(in);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->process.has_value());
  ASSERT_TRUE(r->collectives.has_value());
  r->process->host = host;
  for (CollectiveStream& s : r->collectives->streams) {
    for (int64_t& t : s.start_ns) t += monotonic_shift;
    for (int64_t& t : s.end_ns) t += monotonic_shift;
  }
  r->collectives->unix_minus_monotonic_ns += ahead - monotonic_shift;
  if (r->timeline.has_value()) r->timeline->origin_unix_ns += ahead;
  ASSERT_TRUE(WriteBrrrFile(out, *r).ok());
}

TEST(CollectivesE2eTest, TheLateRankIsNamedByAMergeOfPlainPreloadFiles) {
  const std::string dir = e2e::JobTestDir("collectives-merge");
  const std::vector<std::string> env = e2e::PlainPreloadEnvironment(dir, GroupEnvironment("merge"));
  const e2e::ProcessResult plain =
      e2e::Spawn(e2e::LauncherCommand(AllReduceOptions()), env, /*with_stderr=*/true);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  std::vector<std::string> files;
  for (int rank = 0; rank < 4; ++rank) files.push_back(e2e::PlainPreloadFile(dir, rank));
  const e2e::JobRun merged = e2e::MergeFiles(files, dir + "/merged.brrr", env);
  ASSERT_TRUE(merged.read);
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
  ExpectRankTwoIsWaitedFor(merged.report, merged.output);

  // Ranks 2 and 3 as if on a second host whose monotonic clock is 7 s ahead and whose wall clock
  // runs 3 s ahead: aligned on the collectives' exits, the waits are the one-host merge's (to
  // within what each process's own reading of CLOCK_REALTIME - CLOCK_MONOTONIC differs: well
  // under 1 us per collective).
  std::vector<std::string> shifted = {files[0], files[1]};
  for (int rank : {2, 3}) {
    shifted.push_back(dir + "/shifted-" + std::to_string(rank) + ".brrr");
    AsIfFromAnotherHost(files[static_cast<size_t>(rank)], shifted.back(), "other-host",
                        7'000'000'000, 3'000'000'000);
  }
  const e2e::JobRun two_hosts = e2e::MergeFiles(shifted, dir + "/two-hosts.brrr", env);
  ASSERT_TRUE(two_hosts.read);
  ASSERT_TRUE(two_hosts.report.job.has_value());
  ASSERT_TRUE(two_hosts.report.job->collectives.has_value()) << two_hosts.output;
  const JobCollectives& a = *merged.report.job->collectives;
  const JobCollectives& b = *two_hosts.report.job->collectives;
  EXPECT_THAT(b.alignment, ::testing::StartsWith("collective exits (2 hosts; "));
  EXPECT_THAT(b.alignment, HasSubstr("3.00 s"));
  ASSERT_EQ(a.waits.size(), b.waits.size());
  for (size_t i = 0; i < a.waits.size(); ++i) {
    EXPECT_NEAR(a.waits[i].wait_ns, b.waits[i].wait_ns, kSteps * 1'000)
        << "rank " << a.waits[i].rank;
    EXPECT_EQ(a.waits[i].last_arrivals, b.waits[i].last_arrivals) << "rank " << a.waits[i].rank;
  }
  ASSERT_TRUE(two_hosts.report.job->straggler.has_value());
  EXPECT_EQ(two_hosts.report.job->straggler->rank, kLateRank);
  fs::remove_all(dir);
}

// A rank that never comes: the others give up with the simulator's message instead of hanging,
// and brrr reports what it saw of them.
TEST(CollectivesE2eTest, AMissingRankEndsTheOthersWithAMessage) {
  const std::string dir = e2e::JobTestDir("collectives-missing");
  // 4 ranks start; the group's 5th never does.
  const e2e::JobRun run = e2e::RunJob(dir, e2e::LauncherCommand({"--all-reduce", "3", "-1", "0"}),
                                      GroupEnvironment("missing", 5, 300));
  EXPECT_EQ(run.exit_code, 7) << "the launcher saw its ranks fail\n" << run.output;
  EXPECT_THAT(run.output, HasSubstr("never arrived within 300 ms; giving up"));
  ASSERT_TRUE(run.read);
  ASSERT_EQ(run.report.processes.size(), 4u) << run.output;
  for (int rank = 0; rank < 4; ++rank) {  // each exited 3, as its launcher saw
    EXPECT_THAT(run.output, HasSubstr("\"" + std::to_string(rank) + "\": 3"));
  }
  // The simulator ends the process at once (_Exit, as a watchdog's abort would): its shim never
  // saw the exit, and the report says so rather than guess a code.
  for (const ProcessRow& row : run.report.processes) {
    EXPECT_FALSE(row.exit_code.has_value()) << row.rank;
    EXPECT_EQ(row.ended, "vanished (killed or crashed)") << row.rank;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace brrr
