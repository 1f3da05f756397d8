// Tests joins through the whole analysis: CUPTI records arriving late and shuffled, calls seen
// by both the hooks and CUPTI counted once, calls seen only by CUPTI counted once.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT

// One event of any source, for interleaving.
struct AnyEvent {
  enum Kind { kHost, kApi, kOp } kind;
  HostCall host;
  ApiActivity api;
  DeviceOp op;
};

// A mixed workload on two threads:
//  - thread A: kHooked iterations of a hooked launch (host call + runtime record + kernel);
//  - thread A: kStatic launches by a statically linked library (runtime record + kernel only);
//  - thread B: kDriver cuLaunchKernel calls by a library (driver record + kernel only), and
//    one cudaMemcpy D2H seen by both sides (blocked 50 us).
constexpr int kHooked = 300, kStatic = 40, kDriver = 25;
constexpr uint32_t kTidB = 2000;
constexpr uint64_t kPthreadB = 0x7f00'0000'2000ull;

struct Workload {
  std::vector<HostCall> host_a, host_b;
  std::vector<ApiActivity> api;
  std::vector<DeviceOp> ops;
};

Workload Build() {
  Workload w;
  uint32_t corr = 1;
  for (int i = 0; i < kHooked; ++i) {
    const int64_t t0 = 1'000'000 + i * 20'000;
    w.host_a.push_back(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 4'000));
    w.api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 50, t0 + 3'950));
    w.ops.push_back(Kernel("_Z6hookedv", corr, t0 + 6'000, t0 + 8'000));
    ++corr;
    if (i < kStatic) {  // between hooked calls: [t0+10us, t0+13us), no host record
      w.api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 10'000, t0 + 13'000));
      w.ops.push_back(Kernel("_Z6staticv", corr, t0 + 15'000, t0 + 16'000));
      ++corr;
    }
  }
  for (int i = 0; i < kDriver; ++i) {
    const int64_t t0 = 1'000'000 + i * 200'000 + 1'000;
    w.api.push_back(Driver(kDriverLaunchCbid, corr, t0, t0 + 2'000, kTidB));
    w.ops.push_back(Kernel("cublas_gemm", corr, t0 + 3'000, t0 + 4'000, /*device=*/1));
    ++corr;
  }
  const int64_t c0 = 7'000'000;
  HostCall copy = Copy(Api::kCudaMemcpy, c0, c0 + 50'000, CopyKind::kDtoH, HostMemory::kPinned, 5);
  copy.tid = kTidB;
  copy.pthread_id = kPthreadB;
  w.host_b.push_back(copy);
  w.api.push_back(Runtime(kRuntimeMemcpyCbid, corr, c0 + 100, c0 + 49'900,
                          static_cast<uint32_t>(kPthreadB)));  // CUPTI gave pthread_self
  w.ops.push_back(Memcpy(corr, c0 + 40'000, c0 + 49'000, 2, 3, 2, 1));
  return w;
}

// Host calls stay in per-thread order (as the rings give them); CUPTI API records stay in their
// order but are delayed; device records are shuffled; the three streams interleave at random.
std::vector<AnyEvent> Interleave(const Workload& w, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<AnyEvent>> streams(4);
  for (const HostCall& c : w.host_a) streams[0].push_back({AnyEvent::kHost, c, {}, {}});
  for (const HostCall& c : w.host_b) streams[1].push_back({AnyEvent::kHost, c, {}, {}});
  std::vector<ApiActivity> api = w.api;
  std::stable_sort(api.begin(), api.end(),
                   [](const ApiActivity& a, const ApiActivity& b) { return a.end_ns < b.end_ns; });
  for (const ApiActivity& a : api) streams[2].push_back({AnyEvent::kApi, {}, a, {}});
  std::vector<DeviceOp> ops = w.ops;
  std::shuffle(ops.begin(), ops.end(), rng);
  for (const DeviceOp& op : ops) streams[3].push_back({AnyEvent::kOp, {}, {}, op});
  std::vector<AnyEvent> out;
  std::vector<size_t> next(streams.size(), 0);
  while (true) {
    std::vector<size_t> live;
    for (size_t s = 0; s < streams.size(); ++s) {
      if (next[s] < streams[s].size()) live.push_back(s);
    }
    if (live.empty()) break;
    const size_t s = live[rng() % live.size()];
    out.push_back(streams[s][next[s]++]);
  }
  return out;
}

Report MakeRunAnalysis(const std::vector<AnyEvent>& events) {
  Analysis a;
  a.SetRunInfo(MakeRun(1'000'000, 8'000'000));
  for (const AnyEvent& e : events) {
    switch (e.kind) {
      case AnyEvent::kHost:
        a.OnHostCall(e.host);
        break;
      case AnyEvent::kApi:
        a.OnApiActivity(e.api);
        break;
      case AnyEvent::kOp:
        a.OnDeviceOp(e.op);
        break;
    }
  }
  return a.Finish(nullptr);
}

const ApiStat* FindApi(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

class JoinShuffleTest : public ::testing::TestWithParam<int> {};

TEST_P(JoinShuffleTest, EveryCallCountedOnceWhateverTheArrivalOrder) {
  const Report r = MakeRunAnalysis(Interleave(Build(), static_cast<uint64_t>(GetParam())));
  const ApiStat* launch = FindApi(r, "__cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->calls, static_cast<uint64_t>(kHooked + kStatic));
  // Hooked calls last 4 us on the host, static ones 3 us as CUPTI measured them.
  EXPECT_EQ(launch->total_ns, kHooked * 4'000 + kStatic * 3'000);
  const ApiStat* driver = FindApi(r, "cuLaunchKernel");
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ(driver->calls, static_cast<uint64_t>(kDriver));
  EXPECT_EQ(driver->category, "launch");
  const ApiStat* copy = FindApi(r, "cudaMemcpy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->calls, 1u);
  EXPECT_EQ(r.api.size(), 3u);

  EXPECT_EQ(r.kernels.launches, static_cast<uint64_t>(kHooked + kStatic + kDriver));
  EXPECT_EQ(r.kernels.device_ns, kHooked * 2'000 + kStatic * 1'000 + kDriver * 1'000);
  // Latencies: hooked 6 us (from host entry), static 5 us and driver 3 us (from CUPTI start).
  EXPECT_EQ(r.launch_latency_ns.count, static_cast<uint64_t>(kHooked + kStatic + kDriver));
  EXPECT_EQ(r.launch_latency_ns.max, 6'000);
  EXPECT_NEAR(r.launch_latency_ns.p50, 6'000, 60);  // histogram: within 1%

  ASSERT_EQ(r.stalls.size(), 1u);
  EXPECT_EQ(r.stalls[0].api, "cudaMemcpy");
  EXPECT_EQ(r.stalls[0].reason, "d2h_copy");
  EXPECT_EQ(r.stalls[0].calls, 1u);
  EXPECT_EQ(r.stalls[0].total_ns, 50'000);

  ASSERT_EQ(r.devices.size(), 2u);
  for (const DeviceBreakdown& d : r.devices) {
    EXPECT_EQ(d.wall_ns, 7'000'000);
    EXPECT_EQ(
        d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns +
            d.startup_ns + d.teardown_ns,
        d.wall_ns);
  }
  EXPECT_EQ(r.devices[0].busy_ns, kHooked * 2'000 + kStatic * 1'000);
  EXPECT_EQ(r.devices[1].busy_ns, kDriver * 1'000 + 9'000);
}

INSTANTIATE_TEST_SUITE_P(Seeds, JoinShuffleTest, ::testing::Range(1, 31));

TEST(JoinShuffleTest, BreakdownDoesNotDependOnArrivalOrder) {
  const Report a = MakeRunAnalysis(Interleave(Build(), 1));
  const Report b = MakeRunAnalysis(Interleave(Build(), 2));
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    EXPECT_EQ(a.devices[i].busy_ns, b.devices[i].busy_ns);
    EXPECT_EQ(a.devices[i].idle.launch_bound_ns, b.devices[i].idle.launch_bound_ns);
    EXPECT_EQ(a.devices[i].idle.sync_drain_ns, b.devices[i].idle.sync_drain_ns);
    EXPECT_EQ(a.devices[i].idle.host_outside_cuda_ns, b.devices[i].idle.host_outside_cuda_ns);
  }
  EXPECT_EQ(a.verdict.regime, b.verdict.regime);
}

TEST(JoinTest, CuptiRecordsSecondsLateStillJoin) {
  // The hooks' records arrive immediately; CUPTI's arrive 2 s of event time later (the next
  // buffer flush), after many later host calls. Nothing may be counted twice.
  Analysis a;
  a.SetRunInfo(MakeRun(0, 0));
  std::vector<ApiActivity> pending;
  constexpr int kCalls = 5000;
  for (int64_t i = 0; i < kCalls; ++i) {
    const int64_t t0 = i * 1'000'000;  // one call per ms: 5 s
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 3'000));
    pending.push_back(
        Runtime(kRuntimeLaunchCbid, static_cast<uint32_t>(i + 1), t0 + 10, t0 + 2'990));
    if (pending.size() == 2000) {  // flush: 2 s late
      for (const ApiActivity& r : pending) a.OnApiActivity(r);
      pending.clear();
    }
  }
  for (const ApiActivity& r : pending) a.OnApiActivity(r);
  const Report r = a.Finish(nullptr);
  ASSERT_EQ(r.api.size(), 1u);
  EXPECT_EQ(r.api[0].calls, static_cast<uint64_t>(kCalls));
  EXPECT_EQ(a.counters().join.joined_to_host, static_cast<uint64_t>(kCalls));
  EXPECT_EQ(a.counters().join.cupti_only, 0u);
}

TEST(AnalysisJoinsTest, LaunchConfigurationCallsAreFoldedIntoTheirLaunch) {
  constexpr uint32_t kPushCbid = 502, kPopCbid = 503;  // __cuda{Push,Pop}CallConfiguration
  Analysis analysis;
  analysis.SetRunInfo(MakeRun(1, 1'000'000));
  for (uint32_t i = 0; i < 10; ++i) {
    const int64_t t0 = 1'000 + i * 20'000;
    analysis.OnApiActivity(Runtime(kPushCbid, 3 * i + 1, t0, t0 + 30));
    analysis.OnApiActivity(Runtime(kPopCbid, 3 * i + 2, t0 + 100, t0 + 130));
    analysis.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t0 + 200, t0 + 4'000));
    analysis.OnApiActivity(Runtime(kRuntimeLaunchCbid, 3 * i + 3, t0 + 250, t0 + 3'950));
  }
  const Report report = analysis.Finish(nullptr);
  ASSERT_EQ(report.api.size(), 1u);  // only the launch
  EXPECT_EQ(report.api[0].name, "__cudaLaunchKernel");
  EXPECT_EQ(report.api[0].calls, 10u);
  EXPECT_EQ(analysis.counters().launch_configuration_records, 20u);
  EXPECT_EQ(analysis.counters().join.cupti_only, 0u);
}

}  // namespace
}  // namespace brrr
