// An EventSink that keeps every event it receives, in order, for tests to inspect.
//
// Must never: be used outside tests (it grows with the run).
#ifndef BRRR_COLLECTOR_INGEST_TESTING_RECORDING_SINK_H_
#define BRRR_COLLECTOR_INGEST_TESTING_RECORDING_SINK_H_

#include <string>
#include <vector>

#include "collector/events.h"

namespace brrr::ingest::testing {

class RecordingSink : public EventSink {
 public:
  void OnHostCall(const HostCall& c) override {
    calls.push_back(c);
    order += 'H';
  }
  void OnDeviceOp(const DeviceOp& op) override {
    ops.push_back(op);
    order += 'D';
  }
  void OnApiActivity(const ApiActivity& a) override {
    apis.push_back(a);
    order += 'A';
  }
  void OnSyncActivity(const SyncActivity& s) override {
    syncs.push_back(s);
    order += 'Y';
  }
  void OnStack(const Stack& s) override {
    stacks.push_back(s);
    order += 'S';
  }
  void OnNvtx(const NvtxEvent& e) override {
    nvtx.push_back(e);
    order += 'N';
  }
  void OnCountersRequested() override { order += 'R'; }
  void OnCounterSample(const CounterSampleEvent& e) override {
    samples.push_back(e);
    order += 'C';
  }
  void OnTracingWindow(const TracingWindowEvent& w) override {
    windows.push_back(w);
    order += 'W';
  }

  std::vector<HostCall> calls;
  std::vector<DeviceOp> ops;
  std::vector<ApiActivity> apis;
  std::vector<SyncActivity> syncs;
  std::vector<TracingWindowEvent> windows;
  std::vector<Stack> stacks;
  std::vector<NvtxEvent> nvtx;
  std::vector<CounterSampleEvent> samples;
  std::string order;  // one letter per event: H D A Y S N, R (counters requested), C (sample)
};

}  // namespace brrr::ingest::testing

#endif  // BRRR_COLLECTOR_INGEST_TESTING_RECORDING_SINK_H_
