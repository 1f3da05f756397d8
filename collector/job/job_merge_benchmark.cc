// Time to merge N per-process reports into a job report (MergeJob alone: no file reading), with
// full-size reports: 20 kernels, 20 stalls with 16-frame stacks shared across ranks, 30 APIs,
// 50 phases and 10 launch sites each; BM_MergeJobWithTimelines adds each a full timeline (112
// buckets of 2^29 ns over its 60 s, starts 1.3 ms apart), which the merge re-buckets onto the job's
// clock; BM_RenderJobHtml renders the job's HTML page and reports its size. tools/bench/job_bench.sh
// times the whole `brrr merge` of 64 files (process start, reading, merging, writing).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "collector/job/job_merge.h"
#include "viewer/render_html.h"

namespace brrr::job {
namespace {

Report FullProcessReport(int rank) {
  Report r;
  r.command = "python train.py";
  r.process.emplace();
  r.process->pid = static_cast<uint32_t>(1000 + rank);
  r.process->rank = rank;
  r.process->host = "node" + std::to_string(rank / 8);
  r.wall_ns = 60'000'000'000;
  r.kernels.launches = 1'000'000;
  r.kernels.device_ns = 40'000'000'000;
  for (int k = 0; k < 20; ++k) {
    r.kernels.top.push_back({"kernel_" + std::to_string(k) + "<float, 128>(float const*, float*)",
                             50'000, 2'000'000'000, 40'000});
  }
  for (int a = 0; a < 30; ++a) {
    r.api.push_back({"cudaApi" + std::to_string(a), "other", 1000, 5'000'000, 2000, 9000});
  }
  for (int s = 0; s < 20; ++s) {
    Stall stall{"cudaMemcpy", "d2h_copy", 100, 1'000'000, {}};
    for (int f = 0; f < 16; ++f) {
      stall.stack.push_back("frame_" + std::to_string(s) + "_" + std::to_string(f) +
                            " (train.py:" + std::to_string(10 + f) + ")");
    }
    r.stalls.push_back(stall);
  }
  for (int p = 0; p < 50; ++p) {
    Phase phase;
    phase.name = "step/phase" + std::to_string(p);
    phase.calls = 100;
    phase.wall_ns = 1'000'000;
    r.phases.push_back(phase);
  }
  for (int l = 0; l < 10; ++l) {
    r.launch_sites.push_back({{"site" + std::to_string(l) + " (model.py:1)", "main"}, 6400});
  }
  DeviceBreakdown d;
  d.wall_ns = r.wall_ns;
  d.busy_ns = 40'000'000'000;
  d.idle.host_outside_cuda_ns = 20'000'000'000 + rank * 1'000'000;
  r.devices.push_back(d);
  r.coverage.emplace();
  r.verdict = {"device-bound", "busy"};
  return r;
}

// `r` with a timeline whose buckets add up to its one device: each bucket 2/3 busy, the rest on
// the host outside CUDA.
Report WithTimeline(Report r, int rank) {
  constexpr int64_t kWidth = int64_t{1} << 29;
  Timeline t;
  t.bucket_ns = kWidth;
  t.origin_unix_ns = 1'700'000'000'000'000'000 + rank * 1'300'000;
  DeviceTimeline& row = t.devices.emplace_back();
  DeviceBreakdown& d = r.devices.at(0);
  d.busy_ns = 0;
  d.idle = {};
  for (int64_t lo = 0; lo < d.wall_ns; lo += kWidth) {
    const int64_t len = std::min(kWidth, d.wall_ns - lo);
    TimelineBucket& b = row.buckets.emplace_back();
    b.busy_ns = len * 2 / 3;
    b.host_outside_cuda_ns = len - b.busy_ns;
    d.busy_ns += b.busy_ns;
    d.idle.host_outside_cuda_ns += b.host_outside_cuda_ns;
  }
  r.timeline = std::move(t);
  return r;
}

void BM_MergeJobWithTimelines(benchmark::State& state) {
  std::vector<Report> reports;
  for (int rank = 0; rank < state.range(0); ++rank) {
    reports.push_back(WithTimeline(FullProcessReport(rank), rank));
  }
  for (auto _ : state) {
    Report job = MergeJob(reports, {});
    benchmark::DoNotOptimize(job);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MergeJobWithTimelines)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

void BM_MergeJob(benchmark::State& state) {
  std::vector<Report> reports;
  for (int rank = 0; rank < state.range(0); ++rank) reports.push_back(FullProcessReport(rank));
  for (auto _ : state) {
    Report job = MergeJob(reports, {});
    benchmark::DoNotOptimize(job);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MergeJob)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

// The job's HTML page (viewer/render_html.h) for N full processes with timelines: the time to
// render it and its size (counter html_bytes). The timeline keeps at most 512 rows, so 600
// processes show the cap.
void BM_RenderJobHtml(benchmark::State& state) {
  std::vector<Report> reports;
  for (int rank = 0; rank < state.range(0); ++rank) {
    reports.push_back(WithTimeline(FullProcessReport(rank), rank));
  }
  const Report job = MergeJob(reports, {});
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string html = RenderHtml(job);
    bytes = html.size();
    benchmark::DoNotOptimize(html.data());
  }
  state.counters["html_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderJobHtml)->Arg(8)->Arg(64)->Arg(512)->Arg(600)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace brrr::job

BENCHMARK_MAIN();
