// Throughput of the analysis: records per second through Analysis for a launch loop (per launch:
// one host call, its runtime API record, its kernel), CUPTI records arriving in batches as the
// drain loop delivers them. Target for the whole drain+aggregate pipeline: >= 20 M records/s on
// one core, so the analysis' share must be well below 50 ns per record.
//
// Must never: allocate per record in the measured loop (events are built once, outside).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "collector/analysis/kernel_class.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT

// `counters`: as under `brrr run --counters`, the kernels are also held for the per-kernel join
// and a PM sample per ms of kernel time (one per 200 launches) arrives after them.
void LaunchLoop(benchmark::State& state, bool counters) {
  const int batch = static_cast<int>(state.range(0));
  // Pre-built batch; times and correlation ids are shifted per batch.
  std::vector<HostCall> host(static_cast<size_t>(batch));
  std::vector<ApiActivity> api(static_cast<size_t>(batch));
  std::vector<DeviceOp> ops(static_cast<size_t>(batch));
  for (int i = 0; i < batch; ++i) {
    host[i] = Host(Api::kCudaLaunchKernelInternal, 0, 0, 1);
    api[i] = Runtime(kRuntimeLaunchCbid, 0, 0, 0);
    ops[i] = Kernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
                    0, 0, 0);
  }
  Analysis analysis;
  analysis.SetRunInfo(MakeRun(1, 0));
  if (counters) analysis.OnCountersRequested();
  CounterSampleEvent sample;
  sample.aligned = true;
  sample.sm_pct = 60;
  sample.dram_pct = 20;
  sample.active_pct = 90;
  int64_t next_sample = 1;
  int64_t iteration = 0;
  uint32_t corr = 0;
  uint64_t records = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) {
      const int64_t t0 = 1 + (iteration + i) * 5'000;
      host[i].enter_ns = t0;
      host[i].exit_ns = t0 + 2'000;
      api[i].correlation_id = corr + static_cast<uint32_t>(i) + 1;
      api[i].start_ns = t0 + 20;
      api[i].end_ns = t0 + 1'980;
      ops[i].correlation_id = corr + static_cast<uint32_t>(i) + 1;
      ops[i].start_ns = t0 + 3'000;
      ops[i].end_ns = t0 + 4'000;
    }
    for (int i = 0; i < batch; ++i) analysis.OnHostCall(host[i]);
    for (int i = 0; i < batch; ++i) analysis.OnApiActivity(api[i]);
    for (int i = 0; i < batch; ++i) analysis.OnDeviceOp(ops[i]);
    iteration += batch;
    for (; counters && next_sample + 1'000'000 <= 1 + iteration * 5'000; next_sample += 1'000'000) {
      sample.start_ns = next_sample;
      sample.end_ns = next_sample + 1'000'000;
      analysis.OnCounterSample(sample);
      ++records;
    }
    corr += static_cast<uint32_t>(batch);
    records += 3 * static_cast<uint64_t>(batch);
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.counters["retained"] = static_cast<double>(analysis.RetainedItemsForTest());
  benchmark::DoNotOptimize(analysis.Finish(nullptr));
}
void BM_LaunchLoop(benchmark::State& state) { LaunchLoop(state, false); }
void BM_LaunchLoopWithCounters(benchmark::State& state) { LaunchLoop(state, true); }
BENCHMARK(BM_LaunchLoop)->Arg(256)->Arg(4096);
BENCHMARK(BM_LaunchLoopWithCounters)->Arg(256)->Arg(4096);

// The same loop inside NVTX phases, as a training step marks them: every 8 launches are one
// `step` with `fwd` (4 launches) and `bwd` (4 launches) nested in it, 6 NVTX events per step,
// in order with the thread's calls. Items: host calls, API records, kernels and NVTX events.
void BM_LaunchLoopInPhases(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));  // a multiple of 8
  std::vector<HostCall> host(static_cast<size_t>(batch));
  std::vector<ApiActivity> api(static_cast<size_t>(batch));
  std::vector<DeviceOp> ops(static_cast<size_t>(batch));
  for (int i = 0; i < batch; ++i) {
    host[i] = Host(Api::kCudaLaunchKernelInternal, 0, 0, 1);
    api[i] = Runtime(kRuntimeLaunchCbid, 0, 0, 0);
    ops[i] = Kernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
                    0, 0, 0);
  }
  NvtxEvent push_step, push_fwd, push_bwd, pop;
  push_step.op = push_fwd.op = push_bwd.op = ring::NvtxOp::kPush;
  pop.op = ring::NvtxOp::kPop;
  push_step.message = "step";
  push_fwd.message = "fwd";
  push_bwd.message = "bwd";
  for (NvtxEvent* e : {&push_step, &push_fwd, &push_bwd, &pop}) e->tid = kTid;
  Analysis analysis;
  analysis.SetRunInfo(MakeRun(1, 0));
  int64_t iteration = 0;
  uint32_t corr = 0;
  uint64_t records = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) {
      const int64_t t0 = 1'000'000 + (iteration + i) * 5'000;
      host[i].enter_ns = t0;
      host[i].exit_ns = t0 + 2'000;
      api[i].correlation_id = corr + static_cast<uint32_t>(i) + 1;
      api[i].start_ns = t0 + 20;
      api[i].end_ns = t0 + 1'980;
      ops[i].correlation_id = corr + static_cast<uint32_t>(i) + 1;
      ops[i].start_ns = t0 + 3'000;
      ops[i].end_ns = t0 + 4'000;
    }
    for (int i = 0; i < batch; ++i) {
      const int64_t t0 = host[i].enter_ns;
      const auto at = [&](NvtxEvent& e, int64_t t) -> const NvtxEvent& {
        e.time_ns = t;
        return e;
      };
      if (i % 8 == 0) analysis.OnNvtx(at(push_step, t0 - 20));
      if (i % 8 == 0) analysis.OnNvtx(at(push_fwd, t0 - 10));
      if (i % 8 == 4) analysis.OnNvtx(at(push_bwd, t0 - 10));
      analysis.OnHostCall(host[i]);
      if (i % 8 == 3 || i % 8 == 7) analysis.OnNvtx(at(pop, t0 + 2'010));
      if (i % 8 == 7) analysis.OnNvtx(at(pop, t0 + 2'020));
    }
    for (int i = 0; i < batch; ++i) analysis.OnApiActivity(api[i]);
    for (int i = 0; i < batch; ++i) analysis.OnDeviceOp(ops[i]);
    iteration += batch;
    corr += static_cast<uint32_t>(batch);
    records += 3 * static_cast<uint64_t>(batch) + 6 * static_cast<uint64_t>(batch / 8);
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.counters["retained"] = static_cast<double>(analysis.RetainedItemsForTest());
  const Report report = analysis.Finish(nullptr);
  state.counters["phases"] = static_cast<double>(report.phases.size());
  std::string names;
  for (const Phase& p : report.phases) names += p.name + " ";
  state.SetLabel(names);
  benchmark::DoNotOptimize(report);
}
BENCHMARK(BM_LaunchLoopInPhases)->Arg(256)->Arg(4096);

// Cost of classifying one distinct kernel name (done once per name, at report time; never per
// launch): demangling, the function's own name, and the rule table. Real names, mangled and
// demangled, short and long.
// A live snapshot (Analysis::Snapshot: a deep copy and a Finish) of an analysis that has seen
// state.range(0) launches of 100 distinct kernels, at 130 k launches/s, a slow copy every 1000th:
// the cost of one snapshot (the collector takes one every 10 s, and one a second for metrics).
void BM_Snapshot(benchmark::State& state) {
  const int64_t launches = state.range(0);
  Analysis a;
  a.SetRunInfo(MakeRun(0, 0));
  std::vector<std::string> names;
  for (int k = 0; k < 100; ++k) names.push_back("_Z6kernelILi" + std::to_string(k) + "EEvPf");
  for (int64_t i = 0; i < launches; ++i) {
    const int64_t t0 = i * 7'700;
    const uint32_t corr = static_cast<uint32_t>(i + 1);
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 3'000, 1 + (i % 8)));
    a.OnApiActivity(Runtime(kRuntimeLaunchCbid, corr, t0 + 20, t0 + 2'980));
    a.OnDeviceOp(Kernel(names[static_cast<size_t>(i % 100)], corr, t0 + 4'000, t0 + 6'000));
    if (i % 1000 == 999) {
      a.OnHostCall(Copy(Api::kCudaMemcpy, t0 + 3'000, t0 + 60'000, CopyKind::kDtoH,
                        HostMemory::kPageable, 20));
    }
  }
  const RunInfo now = MakeRun(0, launches * 7'700);
  for (auto _ : state) {
    Report r = a.Snapshot(now, nullptr);
    benchmark::DoNotOptimize(r.kernels.launches);
  }
  state.counters["retained_items"] = static_cast<double>(a.RetainedItemsForTest());
}
BENCHMARK(BM_Snapshot)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_ClassifyKernelName(benchmark::State& state) {
  const std::vector<std::string> names = {
      "ampere_sgemm_128x64_nn",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEv"
      "iT0_T1_",
      "_Z23implicit_convolve_sgemmIffLi1024ELi5ELi5ELi3ELi3ELi3ELi1ELb0ELb1ELb1EEviiiPKT_iPT0_S2_18k"
      "ernel_conv_paramsyiffiPKS3_S7_bii",
      "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
      "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
      "true, false, false, true, true, false, false>(Flash_fwd_params)",
      "triton_per_fused_native_layer_norm_2",
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
      "gdr_decode_batch_kernel",
  };
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ClassifyKernel(names[i]));
    i = (i + 1) % names.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClassifyKernelName);

}  // namespace
}  // namespace brrr

BENCHMARK_MAIN();
