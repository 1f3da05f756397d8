// Test helpers: terse constructors for hand-built event sequences. Test-only.
//
// Must never: be linked into the collector (it is header-only and included by tests only).
#ifndef BRRR_COLLECTOR_ANALYSIS_EVENT_BUILDERS_FOR_TEST_H_
#define BRRR_COLLECTOR_ANALYSIS_EVENT_BUILDERS_FOR_TEST_H_

#include <cstdint>
#include <string>
#include <utility>

#include "collector/events.h"

namespace brrr::testing {

inline constexpr uint32_t kTid = 1000;
inline constexpr uint64_t kPthread = 0x7f12'3456'7890ull;
inline constexpr uint32_t kRuntimeLaunchCbid = 505;      // __cudaLaunchKernel
inline constexpr uint32_t kRuntimeMemcpyCbid = 31;       // cudaMemcpy
inline constexpr uint32_t kRuntimeMemcpyAsyncCbid = 41;  // cudaMemcpyAsync
inline constexpr uint32_t kRuntimeStreamSyncCbid = 131;  // cudaStreamSynchronize
inline constexpr uint32_t kRuntimeFreeCbid = 22;         // cudaFree
inline constexpr uint32_t kRuntimeEventQueryCbid = 138;  // cudaEventQuery
inline constexpr uint32_t kDriverLaunchCbid = 307;       // cuLaunchKernel
inline constexpr uint32_t kDriverCtxSyncCbid = 17;       // cuCtxSynchronize

// An NVTX event of thread `tid` at `t` (message and domain for pushes and starts; range_id for
// start/end ranges).
inline NvtxEvent NvtxAt(ring::NvtxOp op, uint32_t tid, int64_t t, std::string message = "",
                        std::string domain = "", uint64_t range_id = 0) {
  NvtxEvent e;
  e.op = op;
  e.tid = tid;
  e.time_ns = t;
  e.message = std::move(message);
  e.domain = std::move(domain);
  e.range_id = range_id;
  return e;
}

inline HostCall Host(Api api, int64_t enter, int64_t exit, uint32_t stack_id = 0,
                     uint32_t tid = kTid, uint64_t pthread = kPthread) {
  HostCall c;
  c.api = api;
  c.tid = tid;
  c.pthread_id = pthread;
  c.enter_ns = enter;
  c.exit_ns = exit;
  c.stack_id = stack_id;
  return c;
}

inline HostCall Copy(Api api, int64_t enter, int64_t exit, CopyKind kind, HostMemory memory,
                     uint32_t stack_id = 0) {
  HostCall c = Host(api, enter, exit, stack_id);
  c.copy_kind = kind;
  c.host_memory = memory;
  return c;
}

inline ApiActivity Runtime(uint32_t cbid, uint32_t corr, int64_t start, int64_t end,
                           uint32_t thread = kTid, int32_t result = 0) {
  ApiActivity a;
  a.driver = false;
  a.cbid = cbid;
  a.thread_id = thread;
  a.correlation_id = corr;
  a.start_ns = start;
  a.end_ns = end;
  a.result = result;
  return a;
}

inline ApiActivity Driver(uint32_t cbid, uint32_t corr, int64_t start, int64_t end,
                          uint32_t thread = kTid) {
  ApiActivity a = Runtime(cbid, corr, start, end, thread);
  a.driver = true;
  return a;
}

inline DeviceOp Kernel(std::string name, uint32_t corr, int64_t start, int64_t end,
                       uint32_t device = 0) {
  DeviceOp op;
  op.kind = DeviceOpKind::kKernel;
  op.device_id = device;
  op.correlation_id = corr;
  op.start_ns = start;
  op.end_ns = end;
  op.name = std::move(name);
  return op;
}

inline DeviceOp Memcpy(uint32_t corr, int64_t start, int64_t end, uint8_t copy_kind,
                       uint8_t src_kind, uint8_t dst_kind, uint32_t device = 0) {
  DeviceOp op;
  op.kind = DeviceOpKind::kMemcpy;
  op.device_id = device;
  op.correlation_id = corr;
  op.start_ns = start;
  op.end_ns = end;
  op.copy_kind = copy_kind;
  op.src_kind = src_kind;
  op.dst_kind = dst_kind;
  return op;
}

inline RunInfo MakeRun(int64_t start, int64_t end, bool host_only = false) {
  RunInfo info;
  info.command = "./app";
  info.start_ns = start;
  info.end_ns = end;
  info.host_only = host_only;
  return info;
}

}  // namespace brrr::testing

#endif  // BRRR_COLLECTOR_ANALYSIS_EVENT_BUILDERS_FOR_TEST_H_
