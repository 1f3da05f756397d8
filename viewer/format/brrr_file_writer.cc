// .brrr serialization (header + report section + optional trace section) and the atomic 0600 write,
// streamed: a trace section is written as it is encoded, never whole in memory.
//
// Must never: write anything that ParseBrrrFile would reject, or write a partial file at the path.
#include <string>

#include "viewer/format/atomic_file.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/brrr_file_format.h"
#include "viewer/format/byte_order.h"
#include "viewer/format/crc32.h"
#include "viewer/format/report_json.h"
#include "viewer/format/trace_payload.h"

namespace brrr {
namespace {

// Computes the CRC of what it is handed (a first pass over the trace payload, whose section header
// must carry its CRC before the payload itself is written).
class CrcSink final : public ByteSink {
 public:
  explicit CrcSink(uint32_t crc) : crc_(crc) {}
  void Append(absl::string_view bytes) override { crc_ = Crc32Extend(crc_, bytes); }
  uint32_t crc() const { return crc_; }

 private:
  uint32_t crc_;
};

std::string SectionHeader(BrrrSectionType type, uint64_t size) {
  std::string header;
  AppendLe32(header, static_cast<uint32_t>(type));
  AppendLe64(header, size);
  return header;
}

// The file's bytes, handed to `out` in order: the trace payload is encoded twice (its CRC, then
// its bytes) rather than held whole in memory.
void WriteBrrrBytes(const Report& report, const Trace* trace, ByteSink& out) {
  std::string head(kBrrrMagic, sizeof(kBrrrMagic));
  AppendLe32(head, kBrrrFormatVersion);
  AppendLe32(head, trace != nullptr ? 2 : 1);  // section_count
  const std::string json = RenderJsonCompact(report);
  std::string header = SectionHeader(BrrrSectionType::kReportJson, json.size());
  head += header;
  AppendLe32(head, Crc32Extend(Crc32(header), json));
  out.Append(head);
  out.Append(json);
  if (trace == nullptr) return;
  header = SectionHeader(BrrrSectionType::kTraceEvents, TracePayloadSize(*trace));
  CrcSink crc(Crc32(header));
  EncodeTracePayload(*trace, crc);
  AppendLe32(header, crc.crc());
  out.Append(header);
  EncodeTracePayload(*trace, out);
}

}  // namespace

std::string SerializeBrrrFile(const Report& report) { return SerializeBrrrFile(report, nullptr); }

std::string SerializeBrrrFile(const Report& report, const Trace* trace) {
  std::string out;
  StringByteSink sink(&out);
  WriteBrrrBytes(report, trace, sink);
  return out;
}

absl::Status WriteBrrrFile(const std::string& path, const Report& report) {
  return WriteBrrrFile(path, report, nullptr);
}

absl::Status WriteBrrrFile(const std::string& path, const Report& report, const Trace* trace,
                           Replace replace) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
      AtomicFileWriter::Create(path, replace);
  if (!writer.ok()) return writer.status();
  WriteBrrrBytes(report, trace, **writer);
  return (*writer)->Commit();
}

}  // namespace brrr
