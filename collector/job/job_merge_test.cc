// Merging per-process reports: rows by rank, totals summed, stalls merged by stack across ranks,
// a vanished process shown as such, the straggler and the job verdict. Hand-worked numbers.
#include "collector/job/job_merge.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::job {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMs = 1'000'000;

Report Process(uint32_t pid, int64_t rank, uint64_t launches, int64_t host_outside_ms) {
  Report r;
  r.command = "./train";
  r.process.emplace();
  r.process->pid = pid;
  r.process->rank = rank;
  r.process->host = "node" + std::to_string(rank / 2);
  r.wall_ns = 1000 * kMs;
  r.kernels.launches = launches;
  r.kernels.device_ns = static_cast<int64_t>(launches) * kMs;
  r.kernels.top.push_back({"step_kernel", launches, r.kernels.device_ns, kMs});
  DeviceBreakdown d;
  d.wall_ns = r.wall_ns;
  d.idle.host_outside_cuda_ns = host_outside_ms * kMs;
  d.busy_ns = d.wall_ns - d.idle.host_outside_cuda_ns;
  r.devices.push_back(d);
  r.api.push_back({"cudaLaunchKernel", "launch", launches, static_cast<int64_t>(launches) * 5000,
                   4000, 9000});
  r.stalls.push_back({"cudaMemcpy", "d2h_copy", 2, 6 * kMs, {"loss_item (train.py:42)", "main"}});
  r.events.recorded = launches * 2;
  r.events.host.recorded = launches;
  r.events.device.recorded = launches;
  r.coverage.emplace();
  r.coverage->hooked_calls = launches;
  r.verdict = {"launch-bound", "many small kernels"};
  return r;
}

TEST(JobMergeTest, RowsByRankAndSummedTotals) {
  // Given in rank order 2, 0, 1.
  std::vector<Report> in = {Process(30, 2, 300, 10), Process(10, 0, 100, 10),
                            Process(20, 1, 200, 10)};
  in[0].api[0].p50_ns = 4500;
  in[1].stalls.push_back({"cudaFree", "free_syncs_device", 1, 1 * kMs, {"free (a.cc:1)"}});
  const Report job = MergeJob(in, {});
  ASSERT_EQ(job.processes.size(), 3u);
  EXPECT_EQ(job.processes[0].rank, 0);
  EXPECT_EQ(job.processes[0].pid, 10u);
  EXPECT_EQ(job.processes[1].rank, 1);
  EXPECT_EQ(job.processes[2].rank, 2);
  EXPECT_EQ(job.processes[2].kernels.launches, 300u);
  EXPECT_EQ(job.processes[0].host, "node0");
  EXPECT_EQ(job.processes[0].ended, "exited");
  EXPECT_EQ(job.processes[0].exit_code, 0);
  EXPECT_EQ(job.processes[0].top_stall, "cudaMemcpy d2h_copy 2 calls 6.00 ms");

  EXPECT_EQ(job.kernels.launches, 600u);
  EXPECT_EQ(job.kernels.device_ns, 600 * kMs);
  ASSERT_EQ(job.kernels.top.size(), 1u);
  EXPECT_EQ(job.kernels.top[0].launches, 600u);
  EXPECT_EQ(job.kernels.top[0].mean_ns, kMs);
  ASSERT_EQ(job.api.size(), 1u);
  EXPECT_EQ(job.api[0].calls, 600u);
  EXPECT_EQ(job.api[0].total_ns, 3'000'000);
  EXPECT_EQ(job.api[0].p50_ns, 4500);  // the highest process's
  EXPECT_EQ(job.events.recorded, 1200u);
  EXPECT_EQ(job.events.host.recorded, 600u);
  ASSERT_TRUE(job.coverage.has_value());
  EXPECT_EQ(job.coverage->hooked_calls, 600u);

  // The same stack in three ranks: one row with 3 x 2 calls; the other stack its own row.
  ASSERT_EQ(job.stalls.size(), 2u);
  EXPECT_EQ(job.stalls[0].api, "cudaMemcpy");
  EXPECT_EQ(job.stalls[0].calls, 6u);
  EXPECT_EQ(job.stalls[0].total_ns, 18 * kMs);
  EXPECT_EQ(job.stalls[1].api, "cudaFree");

  // A device per (host, id), its wall once: ranks 0 and 1 share node0's device 0 (their busy
  // time summed, at most the wall), rank 2 has node1's.
  ASSERT_EQ(job.devices.size(), 2u);
  EXPECT_EQ(job.devices[0].host, "node0");
  EXPECT_EQ(job.devices[0].processes, 2u);
  EXPECT_EQ(job.devices[0].wall_ns, 1000 * kMs);
  EXPECT_EQ(job.devices[0].busy_ns, 1000 * kMs);
  EXPECT_EQ(job.devices[1].host, "node1");
  EXPECT_EQ(job.devices[1].processes, 1u);
  EXPECT_EQ(job.devices[1].wall_ns, 1000 * kMs);
  EXPECT_EQ(job.devices[1].busy_ns, 990 * kMs);

  ASSERT_TRUE(job.job.has_value());
  EXPECT_EQ(job.job->processes, 3u);
  EXPECT_EQ(job.job->ranks, 3u);
  EXPECT_FALSE(job.job->straggler.has_value());  // 10 ms each: even
  EXPECT_EQ(job.command, "./train");
  EXPECT_EQ(job.wall_ns, 1000 * kMs);
  EXPECT_EQ(job.verdict.regime, "launch-bound");
  EXPECT_THAT(job.verdict.why, HasSubstr("3 of 3 processes are launch-bound"));
  EXPECT_FALSE(job.process.has_value());
}

TEST(JobMergeTest, KernelClassesAreSummedAndASharedDeviceStartsWithItsFirstWork) {
  std::vector<Report> in = {Process(10, 0, 100, 10), Process(20, 1, 200, 10)};
  in[0].kernels.classes = {{"matmul", 60, 60 * kMs}, {"pointwise", 40, 40 * kMs}};
  in[1].kernels.classes = {{"pointwise", 200, 200 * kMs}};
  in[0].kernels.top[0].kernel_class = "matmul";
  in[1].kernels.top[0].kernel_class = "matmul";
  in[0].devices[0].startup_ns = 30 * kMs;
  in[0].devices[0].busy_ns -= 30 * kMs;
  in[1].devices[0].teardown_ns = 5 * kMs;
  in[1].devices[0].busy_ns -= 5 * kMs;
  const Report job = MergeJob(in, {});
  ASSERT_EQ(job.kernels.classes.size(), 2u);
  EXPECT_EQ(job.kernels.classes[0].kernel_class, "pointwise");
  EXPECT_EQ(job.kernels.classes[0].launches, 240u);
  EXPECT_EQ(job.kernels.classes[0].device_ns, 240 * kMs);
  EXPECT_EQ(job.kernels.classes[1].device_ns, 60 * kMs);
  EXPECT_EQ(job.kernels.classes[0].device_ns + job.kernels.classes[1].device_ns,
            job.kernels.device_ns);
  EXPECT_EQ(job.kernels.top[0].kernel_class, "matmul");
  ASSERT_EQ(job.devices.size(), 1u);
  const DeviceBreakdown& d = job.devices[0];
  // Rank 1 worked from the start and rank 0 to the end: the shared device had neither.
  EXPECT_EQ(d.wall_ns, 1000 * kMs);
  EXPECT_EQ(d.startup_ns, 0);
  EXPECT_EQ(d.teardown_ns, 0);
  EXPECT_EQ(d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
                d.idle.host_outside_cuda_ns + d.startup_ns + d.teardown_ns,
            d.wall_ns);
}

TEST(JobMergeTest, StragglerVanishedProcessAndExitCodes) {
  std::vector<Report> in = {Process(10, 0, 100, 10), Process(11, 1, 100, 10),
                            Process(12, 2, 100, 90), Process(13, 3, 40, 5)};
  in[3].process->exit_seen = false;  // SIGKILLed under plain preload: no exit seen
  in[3].events.dropped = 7;
  in[1].exit_code = 3;
  Report job = MergeJob(in, {});
  EXPECT_EQ(job.exit_code, 3);  // the first nonzero by rank
  const ProcessRow& gone = job.processes[3];
  EXPECT_EQ(gone.rank, 3);
  EXPECT_FALSE(gone.exit_code.has_value());
  EXPECT_EQ(gone.ended, "vanished (killed or crashed)");
  EXPECT_EQ(gone.events_dropped, 7u);
  EXPECT_EQ(job.kernels.launches, 340u);
  // Figures 10, 10, 90, 5 ms: median 10 ms; rank 2 is 9x and 80 ms over.
  ASSERT_TRUE(job.job->straggler.has_value());
  EXPECT_EQ(job.job->straggler->rank, 2);
  EXPECT_THAT(job.verdict.why, HasSubstr("Straggler: rank 2 spent 90.0 ms"));

  in[3].process->exit_seen = true;
  in[3].process->term_signal = 9;
  in[3].exit_code = 137;
  job = MergeJob(in, {"mpirun -np 4 ./train", 2000 * kMs, 0});
  EXPECT_EQ(job.processes[3].ended, "killed by signal 9");
  EXPECT_EQ(job.processes[3].exit_code, 137);
  EXPECT_EQ(job.exit_code, 0);  // the launcher's, when known
  EXPECT_EQ(job.command, "mpirun -np 4 ./train");
  EXPECT_EQ(job.wall_ns, 2000 * kMs);
}

// A process's report whose own end says its exit status is unknown (a plain-preload collector's,
// exit_code null) or that it is a live snapshot: the row gives no exit code for it.
TEST(JobMergeTest, RowsFollowTheReportsOwnEnd) {
  std::vector<Report> in = {Process(10, 0, 100, 10), Process(11, 1, 100, 10)};
  in[0].exit_code_known = false;
  in[0].end = "killed";
  in[1].exit_code_known = false;
  in[1].end = "running";
  const Report job = MergeJob(in, {});
  EXPECT_FALSE(job.processes[0].exit_code.has_value());
  EXPECT_EQ(job.processes[0].ended, "vanished (killed or crashed)");
  EXPECT_FALSE(job.processes[1].exit_code.has_value());
  EXPECT_EQ(job.processes[1].ended, "running (a snapshot)");
}

TEST(JobMergeTest, ProcessesWithoutRankAndSaturatingSums) {
  Report a = Process(5, -1, 10, 1);
  Report b = Process(4, -1, 10, 1);
  Report c = Process(9, 0, 10, 1);
  a.kernels.launches = UINT64_MAX - 1;
  b.command = "./other";
  const Report job = MergeJob({a, b, c}, {});
  EXPECT_EQ(job.processes[0].rank, 0);  // known ranks first, then by pid
  EXPECT_EQ(job.processes[1].pid, 4u);
  EXPECT_EQ(job.processes[2].pid, 5u);
  EXPECT_EQ(job.kernels.launches, UINT64_MAX);
  EXPECT_EQ(job.job->ranks, 1u);
  EXPECT_EQ(job.command, "./train | ./other");
  ASSERT_TRUE(job.coverage.has_value());
}

TEST(JobMergeTest, CaptureRangesAreSummedUnderOneMode) {
  Report a = Process(1, 0, 10, 0), b = Process(2, 1, 10, 0), c = Process(3, 2, 10, 0);
  a.capture = Capture{"nvtx", "step", 2, 300 * kMs, 40};
  b.capture = Capture{"nvtx", "step", 3, 500 * kMs, 2};
  Report job = MergeJob({a, b}, {});
  ASSERT_TRUE(job.capture.has_value());
  EXPECT_EQ(job.capture->mode, "nvtx");
  EXPECT_EQ(job.capture->nvtx_name, "step");
  EXPECT_EQ(job.capture->ranges, 5u);
  EXPECT_EQ(job.capture->captured_ns, 500 * kMs) << "side by side: the longest";
  EXPECT_EQ(job.capture->records_dropped, 42u);
  c.capture = Capture{"cudaProfilerApi", "", 1, kMs, 0};
  job = MergeJob({a, b, c}, {});
  EXPECT_EQ(job.capture->mode, "mixed");
  EXPECT_EQ(job.capture->nvtx_name, "");
  EXPECT_EQ(job.capture->ranges, 6u);
  EXPECT_FALSE(MergeJob({Process(4, 0, 1, 0)}, {}).capture.has_value()) << "older reports";
}

// PyTorch's labels: active where any process had them (the DataLoader workers import torch and
// push none); else what the first process that saw torch said.
TEST(JobMergeTest, TorchAnnotationsAreActiveWhereAnyProcessHadThem) {
  Report a = Process(1, 0, 10, 0), b = Process(2, 1, 10, 0), c = Process(3, 2, 10, 0);
  PythonFrames plain;
  plain.status = "active";
  PythonFrames unsupported = plain, active = plain;
  unsupported.torch_annotations = "unsupported";
  unsupported.torch_version = "9.9";
  unsupported.torch_reason = "why";
  active.torch_annotations = "active";
  active.torch_version = "2.11.0";
  a.python = plain;
  b.python = unsupported;
  c.python = active;
  Report job = MergeJob({a, b, c}, {});
  ASSERT_TRUE(job.python.has_value());
  EXPECT_EQ(job.python->torch_annotations, "active");
  EXPECT_EQ(job.python->torch_version, "2.11.0");
  EXPECT_EQ(job.python->torch_reason, "");
  job = MergeJob({b, a}, {});
  EXPECT_EQ(job.python->torch_annotations, "unsupported");
  EXPECT_EQ(job.python->torch_reason, "why");
  EXPECT_EQ(MergeJob({a}, {}).python->torch_annotations, "");
}

TEST(JobMergeTest, StackEndsAreSummedByKind) {
  Report a = Process(1, 0, 10, 0), b = Process(2, 1, 10, 0), c = Process(3, 2, 10, 0);
  a.stack_ends = StackEnds{5, 3, {{"no_unwind_info", 1, 4}, {"no_stack", 1, 9}}};
  b.stack_ends = StackEnds{4, 1, {{"no_stack", 2, 2}, {"depth_limit", 1, 1}}};
  const Report job = MergeJob({a, b, c}, {});
  ASSERT_TRUE(job.stack_ends.has_value());
  EXPECT_EQ(job.stack_ends->stacks, 9u);
  EXPECT_EQ(job.stack_ends->whole, 4u);
  ASSERT_EQ(job.stack_ends->ended_early.size(), 3u);
  EXPECT_EQ(job.stack_ends->ended_early[0].kind, "no_stack");
  EXPECT_EQ(job.stack_ends->ended_early[0].stacks, 3u);
  EXPECT_EQ(job.stack_ends->ended_early[0].calls, 11u);
  EXPECT_FALSE(MergeJob({c}, {}).stack_ends.has_value()) << "no process captured a stack";
  a.stall_reasons = {{"d2h_copy", 2, 10}, {"stream_sync", 1, 5}};
  b.stall_reasons = {{"d2h_copy", 3, 7}};
  const Report reasons = MergeJob({a, b, c}, {});
  ASSERT_EQ(reasons.stall_reasons.size(), 2u);
  EXPECT_EQ(reasons.stall_reasons[0].calls, 5u);
  EXPECT_EQ(reasons.stall_reasons[0].total_ns, 17);
}

TEST(JobMergeTest, LaunchSitesOfOneStackSumTheirKernelsByNameAndDevice) {
  Report a = Process(1, 0, 10, 0), b = Process(2, 1, 10, 0);
  a.launch_sites = {{{"launch (x.cu:3)"}, 40, 0, "", {{"square", 0, 40, 4'000}, {"gemm", 0, 8, 800}}}};
  b.launch_sites = {{{"launch (x.cu:3)"}, 20, 0, "", {{"gemm", 0, 20, 9'000}, {"gemm", 1, 4, 10}}},
                    {{"other (y.cu:9)"}, 5, 0, "", {}}};
  const Report job = MergeJob({a, b}, {});
  ASSERT_EQ(job.launch_sites.size(), 2u);
  EXPECT_EQ(job.launch_sites[0].launches, 60u);
  const std::vector<LaunchKernel>& k = job.launch_sites[0].kernels;
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "gemm");  // most device time first: 800 + 9,000 ns
  EXPECT_EQ(k[0].device, 0u);
  EXPECT_EQ(k[0].kernels, 28u);
  EXPECT_EQ(k[0].device_ns, 9'800);
  EXPECT_EQ(k[1].name, "square");
  EXPECT_EQ(k[2].device, 1u);
  EXPECT_TRUE(job.launch_sites[1].kernels.empty());
}

TEST(JobMergeTest, SampledTracingAndCostAreMergedWithoutClaimingMoreCertainty) {
  Report a = Process(1, 0, 10, 0), b = Process(2, 1, 10, 0), c = Process(3, 2, 10, 0);
  DeviceSampling sa;
  sa.fraction = 0.1;
  sa.windows = 10;
  sa.traced_ns = 100 * kMs;
  sa.span_ns = 1000 * kMs;
  sa.traced_launches = 100;
  sa.scale = 10;  // 1,000 launch calls
  sa.device = 0;
  sa.busy_pct = 40;
  sa.busy_error_points = 2.0;
  sa.error_windows = 10;
  sa.calls_classified_early = 7;
  DeviceSampling sb = sa;
  sb.windows = 5;
  sb.traced_launches = 300;
  sb.scale = 2;  // 600 launch calls
  sb.device = 1;
  sb.busy_pct = 70;
  sb.busy_error_points = 6.0;
  sb.error_windows = 5;
  a.device_sampling = sa;
  b.device_sampling = sb;
  a.kernels.estimated = true;
  // a paid 1 % of its 1 s, b 3 % of its 1 s; c has no cost section (an older report).
  a.overhead = Overhead{1.0, 6 * kMs, 4 * kMs, 50 * kMs, 2 * kMs, "hooks: measured"};
  b.overhead = Overhead{3.0, 10 * kMs, std::nullopt, 80 * kMs, std::nullopt, "hooks: measured"};
  const Report job = MergeJob({a, b, c}, {});
  ASSERT_TRUE(job.device_sampling.has_value());
  const DeviceSampling& s = *job.device_sampling;
  EXPECT_EQ(s.windows, 15u);
  EXPECT_EQ(s.traced_ns, 200 * kMs);
  EXPECT_EQ(s.span_ns, 2000 * kMs);
  EXPECT_EQ(s.traced_launches, 400u);
  EXPECT_EQ(s.calls_classified_early, 14u);
  EXPECT_DOUBLE_EQ(s.scale, 1600.0 / 400.0);
  EXPECT_EQ(s.device, 1u) << "the widest bound's process";
  EXPECT_EQ(s.busy_error_points, 6.0);
  EXPECT_EQ(s.busy_pct, 70);
  EXPECT_TRUE(job.kernels.estimated);
  ASSERT_TRUE(job.overhead.has_value());
  EXPECT_DOUBLE_EQ(job.overhead->pct_of_wall, 2.0);  // (10 + 30 ms) of 2 s
  EXPECT_EQ(job.overhead->hooks_ns, 16 * kMs);
  EXPECT_FALSE(job.overhead->device_tracing_ns.has_value()) << "unknown in one process";
  EXPECT_EQ(job.overhead->collector_cpu_ns, 80 * kMs) << "one collector: its latest total";
  EXPECT_EQ(job.overhead->hidden_by_device_ns, 2 * kMs) << "the processes that had any, summed";
  EXPECT_FALSE(MergeJob({c}, {}).device_sampling.has_value());
  EXPECT_FALSE(MergeJob({c}, {}).overhead.has_value());
}

TEST(JobMergeTest, TheJobHasAdviceTheStragglerFirstThenEachRegimeOnceForItsProcesses) {
  // Ranks 0, 1, 3 launch-bound; rank 2 device-bound; rank 3 far outside CUDA: the straggler.
  std::vector<Report> in = {Process(10, 0, 100, 10), Process(11, 1, 100, 10),
                            Process(12, 2, 100, 10), Process(13, 3, 100, 400)};
  for (Report& r : in) r.verdict.advice = {"launch-bound: capture the loop in a CUDA graph"};
  in[2].verdict.regime = "device-bound";
  in[2].verdict.advice = {"device-bound: look at the top kernel"};
  const Report job = MergeJob(in, {});
  ASSERT_TRUE(job.job.has_value());
  ASSERT_TRUE(job.job->straggler.has_value());
  ASSERT_EQ(job.verdict.advice.size(), 3u) << ::testing::PrintToString(job.verdict.advice);
  EXPECT_THAT(job.verdict.advice[0], ::testing::StartsWith("straggler: rank 3 spent 400 ms"));
  EXPECT_THAT(job.verdict.advice[0], HasSubstr("; its top stall: cudaMemcpy d2h_copy"));
  EXPECT_EQ(job.verdict.advice[1],
            "ranks 0, 1 and 3 (figures of rank 0): launch-bound: capture the loop in a CUDA graph");
  EXPECT_EQ(job.verdict.advice[2], "rank 2: device-bound: look at the top kernel");
  // Processes without ranks are named by pid; a lone process has no straggler line.
  std::vector<Report> unranked = {Process(21, -1, 100, 10), Process(22, -1, 100, 10)};
  for (Report& r : unranked) r.verdict.advice = {"launch-bound: fewer, larger ops"};
  const Report plain = MergeJob(unranked, {});
  ASSERT_EQ(plain.verdict.advice.size(), 1u) << ::testing::PrintToString(plain.verdict.advice);
  EXPECT_EQ(plain.verdict.advice[0],
            "pids 21 and 22 (figures of pid 21): launch-bound: fewer, larger ops");
}

TEST(JobMergeTest, CoverageGapsNameTheirProcess) {
  Report a = Process(10, 0, 1, 1), b = Process(11, 1, 1, 1);
  b.coverage->complete = false;
  b.coverage->gaps.push_back("12 host calls dropped (full ring)");
  a.coverage->untimed_device_ops = 3;
  b.coverage->untimed_device_ops = 4;
  const Report job = MergeJob({a, b}, {});
  EXPECT_EQ(job.coverage->untimed_device_ops, 7u);
  EXPECT_FALSE(job.coverage->complete);
  ASSERT_EQ(job.coverage->gaps.size(), 1u);
  EXPECT_EQ(job.coverage->gaps[0], "rank 1: 12 host calls dropped (full ring)");
}

}  // namespace
}  // namespace brrr::job

namespace brrr::job {
namespace {

// Three ranks on one host, 4 all-reduces each; rank 1 arrives 50 ms after the others every time
// (the others enter at t = 0, 100, 200, 300 ms, rank 1 at +50 ms; all leave at +51 ms).
// Ranks 0 and 2: device-bound, 250 ms busy of which 200 ms waiting; rank 1: input-bound.
Report RankWithAllReduces(uint32_t pid, int64_t rank, int64_t late_ns) {
  Report r = Process(pid, rank, 4, 0);
  r.process->host = "node0";
  CollectiveLog& log = r.collectives.emplace();
  log.count = 4;
  CollectiveStream& s = log.streams.emplace_back();
  s.stream_id = 13;
  for (int64_t k = 0; k < 4; ++k) {
    s.start_ns.push_back(k * 100 * kMs + late_ns);
    s.end_ns.push_back(k * 100 * kMs + 51 * kMs);
  }
  r.devices[0].busy_ns = 250 * kMs;
  r.devices[0].idle.host_outside_cuda_ns = r.devices[0].wall_ns - 250 * kMs;
  r.verdict = {"device-bound", "busy 25%", std::nullopt, {"profile the top kernels"}};
  return r;
}

TEST(JobMergeCollectivesTest, TheLateRankIsTheStragglerAndTheOthersWaitForIt) {
  std::vector<Report> in = {RankWithAllReduces(10, 0, 0), RankWithAllReduces(11, 1, 50 * kMs),
                            RankWithAllReduces(12, 2, 0)};
  in[1].verdict = {"input-bound",
                   "idle 60% while the host was outside CUDA",
                   std::nullopt,
                   {"prepare the next input on another thread"}};
  const Report job = MergeJob(in, {});
  ASSERT_TRUE(job.job.has_value());
  ASSERT_TRUE(job.job->collectives.has_value());
  const JobCollectives& c = *job.job->collectives;
  EXPECT_EQ(c.count, 4u);
  EXPECT_EQ(c.waits[0].wait_ns, 200 * kMs);
  EXPECT_EQ(c.waits[1].wait_ns, 0);
  EXPECT_EQ(c.waits[1].last_arrivals, 4u);
  EXPECT_EQ(c.waits[1].caused_wait_ns, 400 * kMs);

  ASSERT_TRUE(job.job->straggler.has_value());
  EXPECT_EQ(job.job->straggler->rank, 1);
  EXPECT_EQ(job.job->straggler->basis, "collectives");
  EXPECT_EQ(job.job->straggler->why,
            "rank 1 arrived last at 4 of 4 collectives (100.0%); the other ranks waited 400 ms "
            "for it in them");
  // Ranks 0 and 2 waited 200 of their 250 ms busy: not device-bound.
  for (size_t i : {size_t{0}, size_t{2}}) {
    EXPECT_EQ(job.processes[i].verdict.regime, "collective-wait");
    EXPECT_EQ(job.processes[i].verdict.why,
              "waited 200 ms (80.0% of its busy time) in 4 collectives for rank 1");
  }
  EXPECT_EQ(job.processes[1].verdict.regime, "input-bound");
  // The job goes at rank 1's pace.
  EXPECT_EQ(job.verdict.regime, "input-bound");
  EXPECT_THAT(job.verdict.why,
              ::testing::StartsWith("The collectives wait for rank 1, which is input-bound: idle "
                                    "60% while the host was outside CUDA. Straggler: rank 1"));
  ASSERT_EQ(job.verdict.advice.size(), 3u);
  EXPECT_THAT(job.verdict.advice[0], ::testing::StartsWith("straggler: rank 1 arrived last"));
  EXPECT_EQ(job.verdict.advice[1],
            "ranks 0 and 2 (figures of rank 0): waited 200 ms (80.0% of its busy time) in 4 "
            "collectives for rank 1: make rank 1 arrive sooner; this process's own kernels are "
            "not what it waits on");
  EXPECT_EQ(job.verdict.advice[2], "rank 1: prepare the next input on another thread");
}

// Ranks that waited less than half their busy time stay device-bound; a job with no collective
// straggler keeps the host-time rule and says nothing of collectives it cannot pin on anyone.
TEST(JobMergeCollectivesTest, ShortWaitsKeepTheVerdictAndEvenArrivalsNameNoOne) {
  std::vector<Report> in = {RankWithAllReduces(10, 0, 0), RankWithAllReduces(11, 1, 1 * kMs)};
  const Report job = MergeJob(in, {});
  ASSERT_TRUE(job.job->collectives.has_value());
  EXPECT_EQ(job.job->collectives->waits[0].wait_ns, 4 * kMs);
  EXPECT_FALSE(job.job->straggler.has_value()) << "4 ms of waiting is no straggler";
  EXPECT_EQ(job.processes[0].verdict.regime, "device-bound");
  EXPECT_EQ(job.verdict.regime, "device-bound");
  // Sampled device tracing keeps only some kernels: no matching then.
  in[1].device_sampling.emplace();
  EXPECT_FALSE(MergeJob(in, {}).job->collectives.has_value());
}

}  // namespace
}  // namespace brrr::job
