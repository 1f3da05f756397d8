// Drain-and-aggregate rate of the collector: rings of a plain-memory segment are filled with a
// realistic mix of host records and the CUPTI records that go with them, then drained through the
// SegmentReader into (a) a sink that does nothing and (b) brrr::Analysis when it is built.
// items_per_second = records/s of one core's CPU time (target: >= 40 million/s, issue 20), in the
// steady state (after untimed warm-up rounds). Filling is excluded from the timing.
// tools/bench/drain_instructions.sh counts its instructions per record with callgrind.
//
// Must never: time the filling, or let the compiler discard the drained events.
#include <benchmark/benchmark.h>

#include <deque>

#include "collector/ingest/clock_pair.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/test_segment.h"
#if BRRR_HAVE_ANALYSIS
#include "collector/analysis/analysis.h"
#endif

namespace brrr::ingest {
namespace {

class NullSink : public EventSink {
 public:
  void OnHostCall(const HostCall& c) override { benchmark::DoNotOptimize(c.enter_ns); }
  void OnDeviceOp(const DeviceOp& op) override { benchmark::DoNotOptimize(op.start_ns); }
  void OnApiActivity(const ApiActivity& a) override { benchmark::DoNotOptimize(a.start_ns); }
  void OnSyncActivity(const SyncActivity& s) override { benchmark::DoNotOptimize(s.start_ns); }
  void OnStack(const Stack& s) override { benchmark::DoNotOptimize(s.id); }
};

constexpr uint32_t kThreads = 8;
// CUPTI runtime callback ids (cupti_runtime_cbid.h) of the calls the benchmark makes.
constexpr uint32_t kCbidMemcpyAsync = 41;         // cudaMemcpyAsync_v3020
constexpr uint32_t kCbidStreamSynchronize = 131;  // cudaStreamSynchronize_v3020
constexpr uint32_t kCbidLaunchKernel = 211;       // cudaLaunchKernel_v7000
constexpr uint32_t kRingCapacity = 1 << 14;
// Rounds drained before timing starts: 30 rounds are ~4 s of event time, past the analysis'
// 3 s reorder window, so its backlog has reached its steady size.
constexpr int kWarmUpRounds = 30;

ring::SegmentGeometry BenchGeometry() {
  ring::SegmentGeometry g;
  g.max_threads = kThreads;
  g.ring_capacity = kRingCapacity;
  g.device_capacity = 1 << 18;  // room for one API record per call and one kernel per launch
  g.stack_slots = 64;
  g.name_slots = 64;
  return g;
}

// One round of a realistic run: 8 threads interleaved in time, each call on its host ring
// (launches, some async copies, a sync every 16 calls; 16 distinct stacks), and for every call the
// CUPTI RUNTIME record inside it plus, for launches, the kernel it started and, for copies, the
// memcpy. Host stamps are TSC
// ticks when `tsc` (device records then do not line up: for the null sink only), else ns.
struct Timeline {
  int64_t now_ns = 0;
  uint64_t tsc = 0;
  uint32_t correlation = 0;
  // Kernel and memcpy records not yet delivered (BM_DrainIntoAnalysisDeviceLate), oldest first.
  std::deque<ring::DeviceRecord> late_device;
};

// How the shim writes launches and copies: with their correlation id (kRecordCorrelationFromDriver,
// from the driver callback inside them: the default), without (BRRR_CALLBACKS=0), or with it and
// no API record for launches (BRRR_LAUNCH_RECORDS=0).
enum class Ids { kCarried, kNone, kCarriedNoLaunchRecords };

// `device_lag`: how many device records later each kernel or memcpy record is delivered (0: right
// after its API record), as CUPTI delivers them in buffers of their own, after the work ran.
uint64_t Fill(testing::TestSegment& seg, bool tsc, const std::vector<uint32_t>& stacks,
              const std::vector<uint32_t>& names, Timeline* t, size_t device_lag, Ids ids) {
  uint64_t records = 0;
  for (uint32_t i = 0; i < kRingCapacity; ++i) {
    for (uint32_t thread = 0; thread < kThreads; ++thread) {
      const bool sync = i % 16 == 15;
      const ring::Api api = sync         ? ring::Api::kCudaStreamSynchronize
                            : i % 8 == 7 ? ring::Api::kCudaMemcpyAsync
                                         : ring::Api::kCudaLaunchKernelInternal;
      const int64_t enter = t->now_ns;
      const int64_t exit = enter + (sync ? 900 : 600);
      t->now_ns += 1000;
      ring::HostRecord r = tsc ? testing::MakeHostRecord(api, t->tsc, t->tsc + 1800)
                               : testing::MakeHostRecord(api, enter, exit);
      t->tsc += 3000;
      r.stack_id = stacks[(i + thread) % stacks.size()];
      r.stream = 0x1000 + thread;
      const uint32_t correlation = ++t->correlation;
      const bool copy = api == ring::Api::kCudaMemcpyAsync;
      const bool launch = api == ring::Api::kCudaLaunchKernelInternal;
      if (ids != Ids::kNone && (launch || copy)) {
        r.flags |= ring::kRecordCorrelationFromDriver;
        r.correlation_id = correlation;
      }
      records += seg.AppendHost(thread, r);
      ring::DeviceRecord a{};
      a.kind = static_cast<uint8_t>(ring::DeviceKind::kRuntimeApi);
      a.start = static_cast<uint64_t>(enter + 100);
      a.end = static_cast<uint64_t>(exit - 100);
      a.correlation_id = correlation;
      a.thread_id = 1000 + thread;
      a.cbid = sync ? kCbidStreamSynchronize : copy ? kCbidMemcpyAsync : kCbidLaunchKernel;
      if (!(ids == Ids::kCarriedNoLaunchRecords && launch)) records += seg.AppendDevice(a);
      if (copy) {
        ring::DeviceRecord m{};
        m.kind = static_cast<uint8_t>(ring::DeviceKind::kMemcpy);
        m.start = static_cast<uint64_t>(enter + 4000);
        m.end = m.start + 500;
        m.bytes = 1 << 16;
        m.copy_kind = 1;  // CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
        m.src_kind = 2;   // CUPTI_ACTIVITY_MEMORY_KIND_PINNED
        m.dst_kind = 3;   // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE
        m.correlation_id = correlation;
        m.stream_id = 7 + thread;
        t->late_device.push_back(m);
      }
      if (launch) {
        ring::DeviceRecord k{};
        k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
        k.start = static_cast<uint64_t>(enter + 5000);
        k.end = k.start + 800;
        k.queued = static_cast<uint64_t>(enter + 300);
        k.submitted = static_cast<uint64_t>(enter + 400);
        k.correlation_id = correlation;
        k.stream_id = 7 + thread;
        k.name_id = names[i % names.size()];
        t->late_device.push_back(k);
      }
      while (t->late_device.size() > device_lag) {
        records += seg.AppendDevice(t->late_device.front());
        t->late_device.pop_front();
      }
    }
  }
  return records;
}

template <typename MakeSink, typename Report>
void DrainBenchmark(benchmark::State& state, bool tsc, MakeSink make_sink, Report report,
                    size_t device_lag = 0, Ids ids = Ids::kCarried) {
  testing::TestSegment seg(BenchGeometry(),
                           tsc ? ring::ClockKind::kTsc : ring::ClockKind::kMonotonicNs);
  std::vector<uint32_t> stacks, names;
  for (uint64_t s = 0; s < 16; ++s) {
    stacks.push_back(seg.AddStack({0x401000 + s, 0x402000, 0x403000}));
  }
  for (int n = 0; n < 8; ++n) {
    names.push_back(seg.AddName("_Z12some_kernel" + std::to_string(n) + "Pfi"));
  }
  for (uint32_t t = 0; t < kThreads; ++t) seg.ActivateThread(t, 1000 + t, 0x7f0000000000 + t);
  auto reader = SegmentReader::Open(seg.base(), seg.size());
  if (!reader.ok()) {
    state.SkipWithError("open failed");
    return;
  }
  auto sink = make_sink();
  Timeline timeline;
  timeline.now_ns = MonotonicNowNs();
  timeline.tsc = ReadTsc();
  // Warm-up, untimed: the analysis keeps a bounded backlog (seconds of event time, capped) that a
  // long run fills once; the rate that matters is the steady state after that.
  uint64_t warm_up = 0;
  for (int round = 0; round < kWarmUpRounds; ++round) {
    warm_up += Fill(seg, tsc, stacks, names, &timeline, device_lag, ids);
    benchmark::DoNotOptimize((*reader)->Drain(*sink));
  }
  uint64_t total = 0, calls = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const uint64_t filled = Fill(seg, tsc, stacks, names, &timeline, device_lag, ids);
    state.ResumeTiming();
    const DrainResult r = (*reader)->Drain(*sink);
    benchmark::DoNotOptimize(r);
    if (r.host_records + r.device_records != filled) {
      state.SkipWithError("drained a different number of records than were written");
      return;
    }
    total += filled;
    calls += uint64_t{kRingCapacity} * kThreads;
  }
  state.SetItemsProcessed(static_cast<int64_t>(total));
  // Every record Drain decoded, the warm-up's too: tools/bench/drain_instructions.sh divides the
  // drain's instructions by it (with LTO the decoders are inlined and have no call count).
  state.counters["records_drained"] = static_cast<double>(warm_up + total);
  // Host calls per second of CPU time: the rate to compare between mixes with a different number
  // of records per call.
  state.counters["calls_per_s"] =
      benchmark::Counter(static_cast<double>(calls), benchmark::Counter::kIsRate);
  report(state, *sink);
}

void NoReport(benchmark::State&, const EventSink&) {}

void BM_DrainTscIntoNullSink(benchmark::State& state) {
  DrainBenchmark(state, /*tsc=*/true, [] { return std::make_unique<NullSink>(); },
                 NoReport);
}
BENCHMARK(BM_DrainTscIntoNullSink)->Unit(benchmark::kMillisecond);

void BM_DrainIntoNullSink(benchmark::State& state) {
  DrainBenchmark(state, /*tsc=*/false, [] { return std::make_unique<NullSink>(); },
                 NoReport);
}
BENCHMARK(BM_DrainIntoNullSink)->Unit(benchmark::kMillisecond);

#if BRRR_HAVE_ANALYSIS
// The counters show the work was real: every call joined to its API record, every kernel to its
// launch, nothing decided CUPTI-only, and how much the breakdown had to force.
void ReportAnalysis(benchmark::State& st, const brrr::Analysis& analysis) {
  const brrr::Analysis::Counters c = analysis.counters();
  const double calls = static_cast<double>(c.host_calls);
  st.counters["joined"] = static_cast<double>(c.join.joined_to_host) / calls;
  st.counters["by_id"] = static_cast<double>(c.join.launches_by_id) / calls;
  st.counters["cupti_only"] = static_cast<double>(c.join.cupti_only);
  st.counters["latencies"] = static_cast<double>(c.join.latencies);
  st.counters["kernels"] = static_cast<double>(c.device_ops);
  st.counters["late"] = static_cast<double>(c.breakdown_late);
  st.counters["retained"] = static_cast<double>(analysis.RetainedItemsForTest());
}

void BM_DrainIntoAnalysis(benchmark::State& state) {
  DrainBenchmark(
      state, /*tsc=*/false, [] { return std::make_unique<brrr::Analysis>(); }, ReportAnalysis);
}
BENCHMARK(BM_DrainIntoAnalysis)->Unit(benchmark::kMillisecond);

// The same mix with each kernel and memcpy record delivered 200,000 device records (~200 ms of this
// loop) after its call's API record: that many launches wait for their kernel at once, as in a run
// whose device is far behind (the simulated device's launch loop: 0.5-1 s) or whose device records
// CUPTI hands over late.
void BM_DrainIntoAnalysisDeviceLate(benchmark::State& state) {
  DrainBenchmark(
      state, /*tsc=*/false, [] { return std::make_unique<brrr::Analysis>(); }, ReportAnalysis,
      /*device_lag=*/200'000);
}
BENCHMARK(BM_DrainIntoAnalysisDeviceLate)->Unit(benchmark::kMillisecond);

// The mix as the shim writes it with BRRR_LAUNCH_RECORDS=0: CUPTI writes no API record for a
// launch (two records a launch, not three), which joins its kernel by the id it carries.
void BM_DrainIntoAnalysisNoLaunchRecords(benchmark::State& state) {
  DrainBenchmark(
      state, /*tsc=*/false, [] { return std::make_unique<brrr::Analysis>(); }, ReportAnalysis,
      /*device_lag=*/0, Ids::kCarriedNoLaunchRecords);
}
BENCHMARK(BM_DrainIntoAnalysisNoLaunchRecords)->Unit(benchmark::kMillisecond);

// The mix as the shim wrote it before launches carried their id (and still does with
// BRRR_CALLBACKS=0): every call joins its API record by time alone.
void BM_DrainIntoAnalysisNoIds(benchmark::State& state) {
  DrainBenchmark(
      state, /*tsc=*/false, [] { return std::make_unique<brrr::Analysis>(); }, ReportAnalysis,
      /*device_lag=*/0, Ids::kNone);
}
BENCHMARK(BM_DrainIntoAnalysisNoIds)->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace brrr::ingest

BENCHMARK_MAIN();
