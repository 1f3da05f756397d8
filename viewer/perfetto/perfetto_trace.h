// A recorded Trace as a native Perfetto trace (protobuf `perfetto.protos.Trace`), for
// `brrr report FILE --perfetto OUT.pftrace` and ui.perfetto.dev: what is drawn is the trace view's
// (trace_view.h), the same slices, instants, NVTX ranges and flows as the Chrome JSON export.
//  - Tracks: a process track per process (the app; "GPU N" per device), a thread track per host
//    thread, named child tracks for the synchronization row and each stream; slices that would
//    overlap on one row without nesting go to a child track "ROW (overlapping N)"; NVTX start/end
//    ranges go on a child track of the app's process per range name (the same rule for overlaps).
//  - Each track is one packet sequence: its first packet clears the sequence's state, sets the
//    default track and an incremental clock (ClockSnapshot clock 64), so later packets carry only
//    a time delta; names, categories and argument keys are interned per sequence.
//  - Slices are TYPE_SLICE_BEGIN/END pairs; the call that launched device work carries the flow id
//    (its correlation id) and the device op's slice terminates it.
//  - Times are nanoseconds from the earliest event (as the Chrome export's), as BOOTTIME.
//  - Integer arguments that are 0 are left out (a missing argument reads as 0): the Chrome export
//    writes them. Handles (a call's stream) are hex text ("0x7f..."), interned per sequence.
//
// Thread safety: pure functions.
// Must never: write a packet out of time order on its sequence (its delta would wrap), an END
// without its BEGIN on the track, or refer to an interned id not yet emitted on the sequence.
#ifndef BRRR_VIEWER_PERFETTO_PERFETTO_TRACE_H_
#define BRRR_VIEWER_PERFETTO_PERFETTO_TRACE_H_

#include <string>

#include "viewer/format/byte_sink.h"
#include "viewer/format/trace.h"
#include "viewer/trace_view.h"

namespace brrr {

// The serialized perfetto.protos.Trace.
std::string RenderPerfettoTrace(const TraceView& view);
// The same trace, handed to `out` in pieces of a MiB as it is made.
void WritePerfettoTrace(const TraceView& view, ByteSink& out);
std::string RenderPerfettoTrace(const Trace& trace, const TraceViewOptions& options = {});

}  // namespace brrr

#endif  // BRRR_VIEWER_PERFETTO_PERFETTO_TRACE_H_
