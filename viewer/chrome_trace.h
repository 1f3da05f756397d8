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

#include <string>

#include "viewer/format/byte_sink.h"
#include "viewer/format/trace.h"
#include "viewer/trace_view.h"

namespace brrr {

// The options of the trace view (what is drawn, trace_view.h).
using ChromeTraceOptions = TraceViewOptions;

std::string RenderChromeTrace(const Trace& trace, const ChromeTraceOptions& options = {});
// The same from a view built already (the trace gives "otherData": its cap and omitted counts).
std::string RenderChromeTrace(const TraceView& view);
// The same document, handed to `out` in pieces of about a MiB as it is made.
void WriteChromeTrace(const TraceView& view, ByteSink& out);

}  // namespace brrr

#endif  // BRRR_VIEWER_CHROME_TRACE_H_
