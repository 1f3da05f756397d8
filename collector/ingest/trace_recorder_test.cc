// Tests for TraceRecorder: the cap is exact across all kinds, what is left out is counted per kind,
// every event reaches the wrapped sink unchanged, and kernel names are stored once each.
#include "collector/ingest/trace_recorder.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::ingest {
namespace {

// Records what it receives, as text, so forwarding can be compared field by field.
class LoggingSink : public EventSink {
 public:
  void OnHostCall(const HostCall& c) override {
    log.push_back("host " + std::to_string(static_cast<int>(c.api)) + " " + std::to_string(c.tid) +
                  " " + std::to_string(c.pthread_id) + " " + std::to_string(c.enter_ns) + " " +
                  std::to_string(c.exit_ns) + " " + std::to_string(c.stream) + " " +
                  std::to_string(c.bytes) + " " + std::to_string(c.result) + " " +
                  std::to_string(c.stack_id) + " " + std::to_string(c.flags));
  }
  void OnDeviceOp(const DeviceOp& o) override {
    log.push_back("dev " + std::to_string(static_cast<int>(o.kind)) + " " +
                  std::to_string(o.stream_id) + " " + std::to_string(o.correlation_id) + " " +
                  std::to_string(o.start_ns) + " " + std::to_string(o.end_ns) + " " +
                  std::to_string(o.queued_ns) + " " + o.name);
  }
  void OnApiActivity(const ApiActivity& a) override {
    log.push_back("api " + std::to_string(a.cbid) + " " + std::to_string(a.correlation_id) + " " +
                  std::to_string(a.start_ns));
  }
  void OnSyncActivity(const SyncActivity& s) override {
    log.push_back("sync " + std::to_string(s.type) + " " + std::to_string(s.start_ns));
  }
  void OnStack(const Stack& s) override { log.push_back("stack " + std::to_string(s.id)); }
  std::vector<std::string> log;
};

HostCall MakeHostCall(int i) {
  HostCall c;
  c.api = Api::kCudaMemcpyAsync;
  c.tid = 100 + i;
  c.pthread_id = 0xabc000 + i;
  c.enter_ns = 1000 * i;
  c.exit_ns = 1000 * i + 7;
  c.stream = 0x5000 + i;
  c.bytes = 4096;
  c.result = i % 3;
  c.stack_id = 9;
  c.flags = 1;
  c.copy_kind = CopyKind::kDtoH;
  return c;
}

DeviceOp MakeKernel(int i, const std::string& name) {
  DeviceOp o;
  o.kind = DeviceOpKind::kKernel;
  o.device_id = 1;
  o.stream_id = 7;
  o.correlation_id = 500 + i;
  o.start_ns = 2000 * i;
  o.end_ns = 2000 * i + 900;
  o.queued_ns = 5;
  o.name = name;
  return o;
}

// Feeds a fixed mix of 4 * n events (and n stacks) to `sink`.
void FeedMix(EventSink& sink, int n) {
  for (int i = 0; i < n; ++i) {
    sink.OnHostCall(MakeHostCall(i));
    sink.OnStack(Stack{static_cast<uint32_t>(i + 1), {0x1000, 0x2000}});
    sink.OnDeviceOp(MakeKernel(i, i % 2 ? "kernelA" : "kernelB"));
    sink.OnApiActivity(ApiActivity{false, 211, 900u + i, 500u + i, 10 * i, 10 * i + 3, 0});
    sink.OnSyncActivity(SyncActivity{3, 0, 7, 40 * i, 40 * i + 9});
  }
}

TEST(TraceRecorderTest, ForwardsEveryEventUnchangedWhateverTheCap) {
  LoggingSink direct;
  FeedMix(direct, 50);
  for (uint64_t cap : {0ull, 1ull, 7ull, 200ull, 1000ull}) {
    LoggingSink behind;
    TraceRecorder recorder(&behind, cap, 42);
    FeedMix(recorder, 50);
    EXPECT_EQ(behind.log, direct.log) << "cap " << cap;
  }
}

TEST(TraceRecorderTest, KeepsExactlyTheCapAndCountsTheRestPerKind) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 7, 42);
  FeedMix(recorder, 50);  // 200 events in the order host, device, api, sync, host, ...
  const Trace& t = recorder.trace();
  EXPECT_EQ(t.cap, 7u);
  EXPECT_EQ(t.app_pid, 42u);
  EXPECT_EQ(t.kept(), 7u);
  // The first 7 events: host, dev, api, sync, host, dev, api.
  EXPECT_EQ(t.host_calls.size(), 2u);
  EXPECT_EQ(t.device_ops.size(), 2u);
  EXPECT_EQ(t.api_activities.size(), 2u);
  EXPECT_EQ(t.sync_activities.size(), 1u);
  EXPECT_EQ(t.omitted_host_calls, 48u);
  EXPECT_EQ(t.omitted_device_ops, 48u);
  EXPECT_EQ(t.omitted_api_activities, 48u);
  EXPECT_EQ(t.omitted_sync_activities, 49u);
  EXPECT_EQ(t.omitted(), 193u);
}

TEST(TraceRecorderTest, BelowTheCapEverythingIsKeptAndNothingOmitted) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 1000, 1);
  FeedMix(recorder, 50);
  EXPECT_EQ(recorder.trace().kept(), 200u);
  EXPECT_EQ(recorder.trace().omitted(), 0u);
}

TEST(TraceRecorderTest, CapZeroKeepsNothing) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 0, 1);
  FeedMix(recorder, 3);
  EXPECT_EQ(recorder.trace().kept(), 0u);
  EXPECT_EQ(recorder.trace().omitted(), 12u);
}

TEST(TraceRecorderTest, RecordsCarryTheEventsFields) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 100, 1);
  FeedMix(recorder, 3);
  const Trace& t = recorder.trace();
  ASSERT_EQ(t.host_calls.size(), 3u);
  const TraceHostCall& h = t.host_calls[2];
  EXPECT_EQ(h.api, static_cast<uint16_t>(Api::kCudaMemcpyAsync));
  EXPECT_EQ(h.tid, 102u);
  EXPECT_EQ(h.enter_ns, 2000);
  EXPECT_EQ(h.exit_ns, 2007);
  EXPECT_EQ(h.stream, 0x5002u);
  EXPECT_EQ(h.bytes, 4096u);
  EXPECT_EQ(h.result, 2);
  EXPECT_EQ(h.stack_id, 9u);
  EXPECT_EQ(h.copy_kind, static_cast<uint8_t>(CopyKind::kDtoH));
  const TraceDeviceOp& d = t.device_ops[1];
  EXPECT_EQ(d.kind, 0);
  EXPECT_EQ(d.device_id, 1u);
  EXPECT_EQ(d.stream_id, 7u);
  EXPECT_EQ(d.correlation_id, 501u);
  EXPECT_EQ(d.start_ns, 2000);
  EXPECT_EQ(d.end_ns, 2900);
  ASSERT_LT(d.name_index, t.names.size());
  EXPECT_EQ(t.names[d.name_index], "kernelA");
  EXPECT_EQ(t.api_activities[1].correlation_id, 501u);
  EXPECT_EQ(t.api_activities[1].cbid, 211u);
  EXPECT_EQ(t.sync_activities[2].start_ns, 80);
}

// A call seen through a CUPTI callback has no api: the trace keeps how it was seen and its
// callback id, by which the exports name it.
TEST(TraceRecorderTest, CallsSeenThroughCallbacksKeepTheirSourceAndCallbackId) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 100, 1);
  HostCall driver = MakeHostCall(0);
  driver.source = CallSource::kCuptiCallback;
  driver.api = Api::kUnknown;
  driver.driver = true;
  driver.cbid = 307;
  driver.correlation_id = 41;
  HostCall runtime = driver;
  runtime.driver = false;
  runtime.cbid = 211;
  runtime.correlation_id = 42;
  recorder.OnHostCall(driver);
  recorder.OnHostCall(runtime);
  recorder.OnHostCall(MakeHostCall(1));
  const Trace& t = recorder.trace();
  ASSERT_EQ(t.host_calls.size(), 3u);
  EXPECT_EQ(t.host_calls[0].source, kTraceCallDriverCallback);
  EXPECT_EQ(t.host_calls[0].cbid, 307u);
  EXPECT_EQ(t.host_calls[0].correlation_id, 41u);
  EXPECT_EQ(t.host_calls[1].source, kTraceCallRuntimeCallback);
  EXPECT_EQ(t.host_calls[1].cbid, 211u);
  EXPECT_EQ(t.host_calls[2].source, kTraceCallHook);
  EXPECT_EQ(t.host_calls[2].cbid, 0u);
}

TEST(TraceRecorderTest, KernelNamesAreStoredOnceAndUnnamedOpsHaveNoName) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 100, 1);
  for (int i = 0; i < 10; ++i) recorder.OnDeviceOp(MakeKernel(i, i % 2 ? "a" : "b"));
  DeviceOp copy;
  copy.kind = DeviceOpKind::kMemcpy;
  recorder.OnDeviceOp(copy);
  const Trace& t = recorder.trace();
  EXPECT_THAT(t.names, ::testing::UnorderedElementsAre("a", "b"));
  EXPECT_EQ(t.device_ops.back().name_index, kNoTraceName);
  EXPECT_EQ(t.names[t.device_ops[0].name_index], "b");
  EXPECT_EQ(t.names[t.device_ops[1].name_index], "a");
}

TEST(TraceRecorderTest, OverlongNamesAreCut) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 100, 1);
  recorder.OnDeviceOp(MakeKernel(0, std::string(TraceRecorder::kMaxTraceNameLength + 10, 'k')));
  ASSERT_EQ(recorder.trace().names.size(), 1u);
  EXPECT_EQ(recorder.trace().names[0].size(), TraceRecorder::kMaxTraceNameLength);
  // The forwarded op still has the full name.
  EXPECT_EQ(behind.log.back().size() - behind.log.back().rfind(' ') - 1,
            TraceRecorder::kMaxTraceNameLength + 10);
}

TEST(TraceRecorderTest, CapIsClampedToTheMaximum) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, kMaxTraceCap + 5, 1);
  EXPECT_EQ(recorder.trace().cap, kMaxTraceCap);
}

}  // namespace
}  // namespace brrr::ingest

namespace brrr::ingest {
namespace {

class NvtxLog : public LoggingSink {
 public:
  void OnNvtx(const NvtxEvent& e) override {
    log.push_back("nvtx " + std::to_string(static_cast<int>(e.op)) + " " + e.message);
  }
};

NvtxEvent Nvtx(ring::NvtxOp op, int64_t t, const std::string& message,
               const std::string& domain = "") {
  NvtxEvent e;
  e.op = op;
  e.tid = 77;
  e.time_ns = t;
  e.message = message;
  e.domain = domain;
  e.range_id = op == ring::NvtxOp::kStart || op == ring::NvtxOp::kEnd ? 9 : 0;
  return e;
}

TEST(TraceRecorderTest, NvtxEventsAreKeptWithinTheCapAndForwarded) {
  NvtxLog behind;
  TraceRecorder recorder(&behind, 4, 42);
  recorder.OnHostCall(MakeHostCall(0));
  recorder.OnNvtx(Nvtx(ring::NvtxOp::kPush, 10, "step"));
  recorder.OnNvtx(Nvtx(ring::NvtxOp::kStart, 20, "load", "data"));
  recorder.OnNvtx(Nvtx(ring::NvtxOp::kPop, 30, ""));
  recorder.OnNvtx(Nvtx(ring::NvtxOp::kPush, 40, "step"));  // over the cap
  recorder.OnNvtx(Nvtx(ring::NvtxOp::kEnd, 50, ""));       // over the cap
  const Trace& t = recorder.trace();
  EXPECT_EQ(t.kept(), 4u);
  ASSERT_EQ(t.nvtx.size(), 3u);
  EXPECT_EQ(t.omitted_nvtx, 2u);
  EXPECT_EQ(t.omitted(), 2u);
  EXPECT_EQ(t.names, (std::vector<std::string>{"step", "load", "data"}));
  EXPECT_EQ(t.nvtx[0], (TraceNvtx{10, 0, 77, 0, kNoTraceName, 1}));
  EXPECT_EQ(t.nvtx[1], (TraceNvtx{20, 9, 77, 1, 2, 3}));
  EXPECT_EQ(t.nvtx[2], (TraceNvtx{30, 0, 77, kNoTraceName, kNoTraceName, 2}));
  // Every event reached the analysis, in order.
  ASSERT_EQ(behind.log.size(), 6u);
  EXPECT_EQ(behind.log[1], "nvtx 1 step");
  EXPECT_EQ(behind.log[5], "nvtx 4 ");
}

// A CUPTI RUNTIME record inside a hooked call of its thread (by tid or by pthread_self's low 32
// bits) is that call seen twice: folded into it (its correlation id on the call), no slot of its
// own; a record of a callback call's correlation id likewise. Driver records, records outside any
// call, and a second record for an already folded call are kept. Everything is still forwarded.
TEST(TraceRecorderTest, RecordsOfCallsAlreadyKeptAreFoldedIntoThem) {
  LoggingSink behind;
  TraceRecorder recorder(&behind, 100, 1);
  HostCall launch = MakeHostCall(0);  // tid 100, pthread 0xabc000, [0, 7]
  launch.enter_ns = 10'000;
  launch.exit_ns = 15'000;
  recorder.OnHostCall(launch);
  HostCall from_callback = MakeHostCall(1);
  from_callback.source = CallSource::kCuptiCallback;
  from_callback.correlation_id = 77;
  recorder.OnHostCall(from_callback);
  // {driver, cbid, thread, correlation, start, end, result}
  recorder.OnApiActivity(ApiActivity{false, 211, 100, 41, 10'100, 14'900, 0});       // folded
  recorder.OnApiActivity(ApiActivity{false, 211, 0xabc000, 42, 10'200, 14'800, 0});  // kept: done
  recorder.OnApiActivity(ApiActivity{true, 307, 100, 43, 10'300, 14'700, 0});        // driver
  recorder.OnApiActivity(ApiActivity{false, 211, 100, 44, 20'000, 21'000, 0});       // outside
  recorder.OnApiActivity(ApiActivity{true, 307, 101, 77, 1'000, 1'007, 0});          // callback's
  const Trace& t = recorder.trace();
  EXPECT_EQ(recorder.folded(), 2u);
  ASSERT_EQ(t.host_calls.size(), 2u);
  EXPECT_EQ(t.host_calls[0].correlation_id, 41u);
  EXPECT_EQ(t.host_calls[1].correlation_id, 77u);
  ASSERT_EQ(t.api_activities.size(), 3u);
  EXPECT_EQ(t.api_activities[0].correlation_id, 42u);
  EXPECT_EQ(t.api_activities[1].correlation_id, 43u);
  EXPECT_EQ(t.api_activities[2].correlation_id, 44u);
  EXPECT_EQ(t.kept(), 5u);
  EXPECT_EQ(behind.log.size(), 7u);  // every event forwarded
  // By pthread_self's low 32 bits when CUPTI names the thread that way.
  TraceRecorder by_pthread(&behind, 100, 1);
  by_pthread.OnHostCall(launch);
  by_pthread.OnApiActivity(ApiActivity{false, 211, 0xabc000, 45, 10'100, 14'900, 0});
  EXPECT_EQ(by_pthread.trace().host_calls[0].correlation_id, 45u);
  EXPECT_TRUE(by_pthread.trace().api_activities.empty());
}

}  // namespace
}  // namespace brrr::ingest
