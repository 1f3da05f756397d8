// Exports a recorded Trace as Chrome trace / Perfetto JSON ("JSON Object Format": a
// "traceEvents" array plus "otherData"), for `brrr report FILE --chrome-trace OUT.json`.
// Host calls and CUPTI-seen API calls are complete ("X") events on the app's pid, one row per
// thread; device ops are "X" events on a separate process "GPU <device>" (pid kGpuPidBase +
// device), one row per stream; synchronization activity has its own row in the app's process,
// named by its type ("stream synchronize"); flow events link each API call to the first device op
// with its correlation id. Every process and thread row is named by metadata events (the command,
// without "(pid N)" that the viewers add; "thread TID", "main thread TID", "CUDA API (CUPTI thread
// N)", "stream N"); stalls are marked (ChromeTraceOptions.stall_reason); NVTX push/pop ranges are
// slices on their thread's row, start/end ranges async slices, marks instants (category "nvtx";
// ranges the trace ends inside are closed at its last event with args.unclosed). "otherData" says
// how many events the cap left out. Times are microseconds from the earliest event (exact to the
// ns).
//
// Thread safety: pure function.
// Must never: emit invalid JSON (all strings escaped), overflow on any timestamps, or emit more
// than one "X" event per recorded event.
#ifndef BRRR_VIEWER_CHROME_TRACE_H_
#define BRRR_VIEWER_CHROME_TRACE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "viewer/format/trace.h"

namespace brrr {

inline constexpr int64_t kGpuPidBase = int64_t{1} << 30;  // above any Linux pid (at most 2^22)

struct ChromeTraceOptions {
  std::string process_name;  // the app's row title, e.g. its command line ("" = "app")
  // Names for host calls (ring::Api values) and CUPTI-seen calls; defaults say "api N" / "cbid N".
  std::function<std::string(uint16_t api)> host_api_name;
  std::function<std::string(bool driver, uint32_t cbid)> cupti_call_name;
  // The stall reason of a host call ("d2h_copy") when the collector's rules make it a stall, ""
  // otherwise; unset: no call is marked. A stall's "X" event gets category "host,stall", its
  // reason in args and the "terrible" colour, and an instant event "stall: REASON" on its thread.
  std::function<std::string(const TraceHostCall& call)> stall_reason;
};

std::string RenderChromeTrace(const Trace& trace, const ChromeTraceOptions& options = {});

}  // namespace brrr

#endif  // BRRR_VIEWER_CHROME_TRACE_H_
