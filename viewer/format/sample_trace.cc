// The sample Trace for the viewer's tests. See sample_trace.h.
//
// Must never: depend on the code under test.
#include "viewer/format/sample_trace.h"

#include <cstdint>
#include <limits>

namespace brrr {

Trace SampleTrace() {
  Trace t;
  t.app_pid = 4242;
  t.cap = 12;
  t.omitted_host_calls = 3;
  t.omitted_device_ops = 5;
  t.omitted_api_activities = 0;
  t.omitted_sync_activities = 1;
  t.names = {"_Z4tinyPf", "weird \"name\"\n\\ \xc3\xa9"};
  t.host_calls.push_back({1'000, 5'000, 0, 0, 77, 3, 0, 3, 0});
  t.host_calls.push_back({6'000, 9'500, 0x7f00, 1 << 20, 78, 0, 700, 22, 2});
  t.host_calls.push_back({-50, std::numeric_limits<int64_t>::max(), ~uint64_t{0}, ~uint64_t{0},
                          ~uint32_t{0}, ~uint32_t{0}, std::numeric_limits<int32_t>::min(), 0xffff,
                          0xff});
  // start, end, bytes, device, stream, correlation, name_index, kind, copy_kind
  t.device_ops.push_back({7'000, 8'000, 0, 0, 7, 11, 0, 0, 0});
  TraceDeviceOp copy;
  copy.start_ns = 9'000;
  copy.end_ns = 9'400;
  copy.bytes = 1 << 20;
  copy.device_id = 1;
  copy.stream_id = 13;
  copy.correlation_id = 12;
  copy.kind = 1;
  copy.copy_kind = 2;
  t.device_ops.push_back(copy);
  TraceDeviceOp renamed = t.device_ops[0];
  renamed.name_index = 1;
  renamed.start_ns = 8'500;  // ends before it starts: exported with duration 0
  renamed.end_ns = 8'400;
  renamed.correlation_id = 0;
  t.device_ops.push_back(renamed);
  t.api_activities.push_back({1'100, 4'900, 211, 77, 11, 0, false});
  t.api_activities.push_back({6'100, 9'400, 41, 78, 12, 0, true});
  t.sync_activities.push_back({8'100, 8'900, 3, 13, 7});
  // NVTX: "step" pushed and popped on thread 77 (default domain), a mark in domain "my domain".
  t.names.push_back("step");
  t.names.push_back("my domain");
  t.nvtx.push_back({900, 0, 77, 2, kNoTraceName, 1});
  t.nvtx.push_back({9'600, 0, 77, kNoTraceName, kNoTraceName, 2});
  t.nvtx.push_back({5'500, 0, 78, 2, 3, 5});
  t.omitted_nvtx = 4;
  return t;
}

}  // namespace brrr
