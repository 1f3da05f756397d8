// Trace section payload encoding and paranoid decoding. See trace_payload.h.
//
// Must never: size a vector from a count before the payload's length has proven the count's
// records are there.
#include "viewer/format/trace_payload.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "viewer/format/brrr_file_format.h"
#include "viewer/format/byte_order.h"

namespace brrr {
namespace {

void AppendLe16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}
void AppendI64(std::string& out, int64_t v) { AppendLe64(out, static_cast<uint64_t>(v)); }
void AppendZeros(std::string& out, size_t n) { out.append(n, '\0'); }

// A cursor over the payload; callers check Remaining() before each fixed-size read.
class PayloadCursor {
 public:
  explicit PayloadCursor(absl::string_view bytes) : bytes_(bytes) {}
  uint64_t Remaining() const { return bytes_.size() - at_; }
  size_t at() const { return at_; }
  size_t size() const { return bytes_.size(); }
  uint8_t U8() { return static_cast<uint8_t>(bytes_[at_++]); }
  uint16_t U16() {
    const uint16_t v = static_cast<uint16_t>(static_cast<uint8_t>(bytes_[at_]) |
                                             static_cast<uint8_t>(bytes_[at_ + 1]) << 8);
    at_ += 2;
    return v;
  }
  uint32_t U32() {
    const uint32_t v = LoadLe32(bytes_.data() + at_);
    at_ += 4;
    return v;
  }
  uint64_t U64() {
    const uint64_t v = LoadLe64(bytes_.data() + at_);
    at_ += 8;
    return v;
  }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  int32_t I32() { return static_cast<int32_t>(U32()); }
  void Skip(size_t n) { at_ += n; }
  absl::string_view Take(size_t n) {
    const absl::string_view v = bytes_.substr(at_, n);
    at_ += n;
    return v;
  }

 private:
  absl::string_view bytes_;
  size_t at_ = 0;
};

absl::Status Bad(size_t at, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("trace: at byte ", at, ": ", what));
}

// Where each of the header's counts sits in TraceHeader::counts, in the header's order.
enum TraceCount { kHostCalls, kDeviceOps, kApiActivities, kSyncActivities, kNames, kTraceCounts };

// What the header says besides the Trace's own fields.
struct TraceHeader {
  uint32_t version = 0;
  uint64_t counts[kTraceCounts] = {};
  uint64_t events = 0;  // host calls, device ops, API and sync activities: what the cap counts
};

absl::Status CheckVersion(uint32_t version) {
  if (version == 0) return Bad(0, "invalid trace payload version 0");
  if (version > kTracePayloadVersion) {
    return absl::UnimplementedError(
        absl::StrCat("trace: written by a newer brrr (trace payload version ", version,
                     "); this brrr reads up to ", kTracePayloadVersion));
  }
  return absl::OkStatus();
}

// The header's counts, each within kMaxTraceCap. The caller has checked the header's bytes.
absl::Status ReadCounts(PayloadCursor& c, uint64_t (&counts)[kTraceCounts]) {
  const char* const kCountNames[kTraceCounts] = {"host calls", "device ops", "API activities",
                                                 "sync activities", "names"};
  for (int i = 0; i < kTraceCounts; ++i) {
    const size_t at = c.at();
    counts[i] = c.U64();
    if (counts[i] > kMaxTraceCap) {
      return Bad(
          at, absl::StrCat(counts[i], " ", kCountNames[i], " exceed the limit of ", kMaxTraceCap));
    }
  }
  return absl::OkStatus();
}

// The fixed-size header: the version, the Trace's own fields and the counts, checked against the
// limits and the cap.
absl::Status ReadHeader(PayloadCursor& c, TraceHeader& h, Trace& t) {
  if (c.Remaining() < kTraceHeaderSize) {
    return Bad(c.size(),
               absl::StrCat("truncated: the trace header needs ", kTraceHeaderSize, " bytes"));
  }
  h.version = c.U32();
  if (absl::Status s = CheckVersion(h.version); !s.ok()) return s;
  t.app_pid = c.U32();
  t.cap = c.U64();
  t.omitted_host_calls = c.U64();
  t.omitted_device_ops = c.U64();
  t.omitted_api_activities = c.U64();
  t.omitted_sync_activities = c.U64();
  if (absl::Status s = ReadCounts(c, h.counts); !s.ok()) return s;
  if (t.cap > kMaxTraceCap) {
    return Bad(8, absl::StrCat("cap ", t.cap, " exceeds the limit of ", kMaxTraceCap));
  }
  h.events = h.counts[kHostCalls] + h.counts[kDeviceOps] + h.counts[kApiActivities] +
             h.counts[kSyncActivities];
  if (h.events > t.cap) {
    return Bad(48, absl::StrCat(h.events, " events but the cap is ", t.cap));
  }
  return absl::OkStatus();
}

// The record readers below read without bounds checks: ReadFixedRecords has proven every record's
// bytes are there before it calls them. Each checks its values.
absl::Status ReadHostCall(PayloadCursor& c, uint32_t version, TraceHostCall& h) {
  const size_t at = c.at();
  h.enter_ns = c.I64();
  h.exit_ns = c.I64();
  h.stream = c.U64();
  h.bytes = c.U64();
  h.tid = c.U32();
  h.stack_id = c.U32();
  h.result = c.I32();
  h.api = c.U16();
  h.copy_kind = c.U8();
  h.source = c.U8();  // reserved (0) in versions 1 and 2 and in files written before it
  if (version >= 3) {
    h.correlation_id = c.U32();
    h.cbid = c.U32();
  }
  if (h.source > kTraceCallDriverCallback) {
    return Bad(at + 47, absl::StrCat("host call source ", h.source, " is not 0..2"));
  }
  return absl::OkStatus();
}

// Its kind and its name index (among `names` names) checked.
absl::Status ReadDeviceOp(PayloadCursor& c, uint64_t names, TraceDeviceOp& d) {
  const size_t at = c.at();
  d.start_ns = c.I64();
  d.end_ns = c.I64();
  d.bytes = c.U64();
  d.device_id = c.U32();
  d.stream_id = c.U32();
  d.correlation_id = c.U32();
  d.name_index = c.U32();
  d.kind = c.U8();
  d.copy_kind = c.U8();
  c.Skip(6);
  if (d.kind > 2) return Bad(at + 40, absl::StrCat("device op kind ", d.kind, " is not 0..2"));
  if (d.name_index != kNoTraceName && d.name_index >= names) {
    return Bad(at + 36, absl::StrCat("name index ", d.name_index, " but only ", names, " names"));
  }
  return absl::OkStatus();
}

// Its driver flag checked.
absl::Status ReadApiActivity(PayloadCursor& c, TraceApiActivity& a) {
  const size_t at = c.at();
  a.start_ns = c.I64();
  a.end_ns = c.I64();
  a.cbid = c.U32();
  a.thread_id = c.U32();
  a.correlation_id = c.U32();
  a.result = c.I32();
  const uint8_t driver = c.U8();
  c.Skip(7);
  if (driver > 1) return Bad(at + 32, absl::StrCat("driver flag ", driver, " is not 0 or 1"));
  a.driver = driver == 1;
  return absl::OkStatus();
}

void ReadSyncActivity(PayloadCursor& c, TraceSyncActivity& s) {
  s.start_ns = c.I64();
  s.end_ns = c.I64();
  s.type = c.U32();
  s.correlation_id = c.U32();
  s.stream_id = c.U32();
  c.Skip(4);
}

// The host calls, device ops, API and sync activities, once the payload's length has proven that
// they and the names' lengths are there.
absl::Status ReadFixedRecords(PayloadCursor& c, const TraceHeader& h, Trace& t) {
  // Counts are at most 1e8 each, so these products and sums cannot overflow.
  const size_t host_call_size = h.version >= 3 ? kTraceHostCallSize : kTraceHostCallSizeV2;
  const uint64_t fixed = h.counts[kHostCalls] * host_call_size +
                         h.counts[kDeviceOps] * kTraceDeviceOpSize +
                         h.counts[kApiActivities] * kTraceApiActivitySize +
                         h.counts[kSyncActivities] * kTraceSyncActivitySize + h.counts[kNames] * 4;
  if (fixed > c.Remaining()) {
    return Bad(c.size(), absl::StrCat("truncated: the counts need at least ", fixed,
                                      " more bytes, ", c.Remaining(), " remain"));
  }
  t.host_calls.resize(h.counts[kHostCalls]);
  for (TraceHostCall& x : t.host_calls) {
    if (absl::Status s = ReadHostCall(c, h.version, x); !s.ok()) return s;
  }
  t.device_ops.resize(h.counts[kDeviceOps]);
  for (TraceDeviceOp& d : t.device_ops) {
    if (absl::Status s = ReadDeviceOp(c, h.counts[kNames], d); !s.ok()) return s;
  }
  t.api_activities.resize(h.counts[kApiActivities]);
  for (TraceApiActivity& a : t.api_activities) {
    if (absl::Status s = ReadApiActivity(c, a); !s.ok()) return s;
  }
  t.sync_activities.resize(h.counts[kSyncActivities]);
  for (TraceSyncActivity& x : t.sync_activities) ReadSyncActivity(c, x);
  return absl::OkStatus();
}

// The string table: each name's length, checked against the limit and the bytes left, then its
// bytes.
absl::Status ReadNames(PayloadCursor& c, uint64_t count, std::vector<std::string>& names) {
  names.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    if (c.Remaining() < 4) return Bad(c.at(), absl::StrCat("truncated: name ", i, " length"));
    const size_t at = c.at();
    const uint32_t length = c.U32();
    if (length > kTraceMaxNameLength) {
      return Bad(at, absl::StrCat("name ", i, " of ", length, " bytes exceeds the limit of ",
                                  kTraceMaxNameLength));
    }
    if (length > c.Remaining()) {
      return Bad(at, absl::StrCat("truncated: name ", i, " declares ", length, " bytes, ",
                                  c.Remaining(), " remain"));
    }
    names.emplace_back(c.Take(length));
  }
  return absl::OkStatus();
}

// Reads without checks (ReadNvtx has proven its bytes are there); its op and its name indices
// (among `names` names) checked.
absl::Status ReadNvtxEvent(PayloadCursor& c, uint64_t names, TraceNvtx& n) {
  const size_t at = c.at();
  n.time_ns = c.I64();
  n.range_id = c.U64();
  n.tid = c.U32();
  n.message_index = c.U32();
  n.domain_index = c.U32();
  n.op = c.U8();
  c.Skip(3);
  if (n.op < 1 || n.op > 5) return Bad(at + 28, absl::StrCat("NVTX op ", n.op, " is not 1..5"));
  for (const uint32_t index : {n.message_index, n.domain_index}) {
    if (index != kNoTraceName && index >= names) {
      return Bad(at + 20, absl::StrCat("name index ", index, " but only ", names, " names"));
    }
  }
  return absl::OkStatus();
}

// Version 2 on: the NVTX count and omitted count, the count checked against the cap (with the
// other events) and the bytes left, then the NVTX events.
absl::Status ReadNvtx(PayloadCursor& c, const TraceHeader& h, Trace& t) {
  if (c.Remaining() < kTraceNvtxHeaderSize) {
    return Bad(c.at(), "truncated: the NVTX count needs 16 bytes");
  }
  const size_t at = c.at();
  const uint64_t count = c.U64();
  t.omitted_nvtx = c.U64();
  if (count > kMaxTraceCap || h.events + count > t.cap) {
    return Bad(at, absl::StrCat(count, " NVTX events with ", h.events, " others exceed the cap of ",
                                t.cap));
  }
  if (count * kTraceNvtxSize > c.Remaining()) {
    return Bad(at, absl::StrCat("truncated: ", count, " NVTX events need ", count * kTraceNvtxSize,
                                " bytes, ", c.Remaining(), " remain"));
  }
  t.nvtx.resize(count);
  for (TraceNvtx& n : t.nvtx) {
    if (absl::Status s = ReadNvtxEvent(c, h.counts[kNames], n); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckNothingAfter(const PayloadCursor& c, uint32_t version) {
  if (c.Remaining() != 0) {
    return Bad(c.at(), absl::StrCat(c.Remaining(), " unexpected bytes after the last ",
                                    version >= 2 ? "NVTX event" : "name"));
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t TracePayloadSize(const Trace& t) {
  uint64_t size = kTraceHeaderSize + t.host_calls.size() * kTraceHostCallSize +
                  t.device_ops.size() * kTraceDeviceOpSize +
                  t.api_activities.size() * kTraceApiActivitySize +
                  t.sync_activities.size() * kTraceSyncActivitySize + kTraceNvtxHeaderSize +
                  t.nvtx.size() * kTraceNvtxSize;
  for (const std::string& name : t.names) size += 4 + name.size();
  return size;
}

void EncodeTracePayload(const Trace& t, ByteSink& sink) {
  std::string out;
  out.reserve(PieceBuffer::kPieceBytes + 8192);  // a piece may end past it by one record or name
  PieceBuffer pieces(out, sink);
  AppendLe32(out, kTracePayloadVersion);
  AppendLe32(out, t.app_pid);
  AppendLe64(out, t.cap);
  AppendLe64(out, t.omitted_host_calls);
  AppendLe64(out, t.omitted_device_ops);
  AppendLe64(out, t.omitted_api_activities);
  AppendLe64(out, t.omitted_sync_activities);
  AppendLe64(out, t.host_calls.size());
  AppendLe64(out, t.device_ops.size());
  AppendLe64(out, t.api_activities.size());
  AppendLe64(out, t.sync_activities.size());
  AppendLe64(out, t.names.size());
  for (const TraceHostCall& h : t.host_calls) {
    AppendI64(out, h.enter_ns);
    AppendI64(out, h.exit_ns);
    AppendLe64(out, h.stream);
    AppendLe64(out, h.bytes);
    AppendLe32(out, h.tid);
    AppendLe32(out, h.stack_id);
    AppendLe32(out, static_cast<uint32_t>(h.result));
    AppendLe16(out, h.api);
    out.push_back(static_cast<char>(h.copy_kind));
    out.push_back(static_cast<char>(h.source));
    AppendLe32(out, h.correlation_id);
    AppendLe32(out, h.cbid);

    pieces.AtRecordEnd();
  }
  for (const TraceDeviceOp& d : t.device_ops) {
    AppendI64(out, d.start_ns);
    AppendI64(out, d.end_ns);
    AppendLe64(out, d.bytes);
    AppendLe32(out, d.device_id);
    AppendLe32(out, d.stream_id);
    AppendLe32(out, d.correlation_id);
    AppendLe32(out, d.name_index);
    out.push_back(static_cast<char>(d.kind));
    out.push_back(static_cast<char>(d.copy_kind));
    AppendZeros(out, 6);

    pieces.AtRecordEnd();
  }
  for (const TraceApiActivity& a : t.api_activities) {
    AppendI64(out, a.start_ns);
    AppendI64(out, a.end_ns);
    AppendLe32(out, a.cbid);
    AppendLe32(out, a.thread_id);
    AppendLe32(out, a.correlation_id);
    AppendLe32(out, static_cast<uint32_t>(a.result));
    out.push_back(a.driver ? 1 : 0);
    AppendZeros(out, 7);

    pieces.AtRecordEnd();
  }
  for (const TraceSyncActivity& s : t.sync_activities) {
    AppendI64(out, s.start_ns);
    AppendI64(out, s.end_ns);
    AppendLe32(out, s.type);
    AppendLe32(out, s.correlation_id);
    AppendLe32(out, s.stream_id);
    AppendZeros(out, 4);

    pieces.AtRecordEnd();
  }
  for (const std::string& name : t.names) {
    AppendLe32(out, static_cast<uint32_t>(name.size()));
    out += name;

    pieces.AtRecordEnd();
  }
  AppendLe64(out, t.nvtx.size());
  AppendLe64(out, t.omitted_nvtx);
  for (const TraceNvtx& n : t.nvtx) {
    AppendI64(out, n.time_ns);
    AppendLe64(out, n.range_id);
    AppendLe32(out, n.tid);
    AppendLe32(out, n.message_index);
    AppendLe32(out, n.domain_index);
    out.push_back(static_cast<char>(n.op));
    AppendZeros(out, 3);

    pieces.AtRecordEnd();
  }
  pieces.Finish();
}

std::string EncodeTracePayload(const Trace& t) {
  std::string out;
  out.reserve(TracePayloadSize(t));
  StringByteSink sink(&out);
  EncodeTracePayload(t, sink);
  return out;
}

absl::StatusOr<Trace> DecodeTracePayload(absl::string_view payload) {
  PayloadCursor c(payload);
  TraceHeader h;
  Trace t;
  if (absl::Status s = ReadHeader(c, h, t); !s.ok()) return s;
  if (absl::Status s = ReadFixedRecords(c, h, t); !s.ok()) return s;
  if (absl::Status s = ReadNames(c, h.counts[kNames], t.names); !s.ok()) return s;
  if (h.version >= 2) {
    if (absl::Status s = ReadNvtx(c, h, t); !s.ok()) return s;
  }
  if (absl::Status s = CheckNothingAfter(c, h.version); !s.ok()) return s;
  return t;
}

}  // namespace brrr
