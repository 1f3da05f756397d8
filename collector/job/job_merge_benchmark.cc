// Time to merge N per-process reports into a job report (MergeJob alone: no file reading), with
// full-size reports: 20 kernels, 20 stalls with 16-frame stacks shared across ranks, 30 APIs,
// 50 phases and 10 launch sites each. tools/bench/job_bench.sh times the whole `brrr merge` of 64
// files (process start, reading, merging, writing).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "collector/job/job_merge.h"

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

}  // namespace
}  // namespace brrr::job

BENCHMARK_MAIN();
