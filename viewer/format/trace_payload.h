// The payload of a .brrr "trace events" section (type 2): encoding a Trace into the little-endian
// layout of brrr_file_format.h / BRRR_FORMAT.md and decoding it back with every count, length,
// index and enum checked against the bytes and the limits.
//
// Thread safety: pure functions.
// Must never: crash, read out of bounds or allocate beyond what the payload's own length proves,
// whatever the bytes.
#ifndef BRRR_VIEWER_FORMAT_TRACE_PAYLOAD_H_
#define BRRR_VIEWER_FORMAT_TRACE_PAYLOAD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "viewer/format/byte_sink.h"
#include "viewer/format/trace.h"

namespace brrr {

std::string EncodeTracePayload(const Trace& trace);
// The same bytes, handed to `out` in pieces of about a MiB (a big trace is never encoded whole in
// memory); TracePayloadSize says how many there will be.
void EncodeTracePayload(const Trace& trace, ByteSink& out);
uint64_t TracePayloadSize(const Trace& trace);

// Errors read "trace: at byte N: <what>" (N relative to the payload's first byte).
absl::StatusOr<Trace> DecodeTracePayload(absl::string_view payload);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_TRACE_PAYLOAD_H_
