// .brrr serialization (header + report section + optional trace section) and the atomic 0600 write.
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

void AppendSection(std::string& out, BrrrSectionType type, absl::string_view payload) {
  std::string header;
  AppendLe32(header, static_cast<uint32_t>(type));
  AppendLe64(header, payload.size());
  const uint32_t crc = Crc32Extend(Crc32(header), payload);
  out += header;
  AppendLe32(out, crc);
  out.append(payload.data(), payload.size());
}

}  // namespace

std::string SerializeBrrrFile(const Report& report) { return SerializeBrrrFile(report, nullptr); }

std::string SerializeBrrrFile(const Report& report, const Trace* trace) {
  const std::string json = RenderJsonCompact(report);
  const std::string trace_payload = trace != nullptr ? EncodeTracePayload(*trace) : std::string();
  std::string out;
  out.reserve(kBrrrHeaderSize + 2 * kBrrrSectionHeaderSize + json.size() + trace_payload.size());
  out.append(kBrrrMagic, sizeof(kBrrrMagic));
  AppendLe32(out, kBrrrFormatVersion);
  AppendLe32(out, trace != nullptr ? 2 : 1);  // section_count
  AppendSection(out, BrrrSectionType::kReportJson, json);
  if (trace != nullptr) AppendSection(out, BrrrSectionType::kTraceEvents, trace_payload);
  return out;
}

absl::Status WriteBrrrFile(const std::string& path, const Report& report) {
  return WriteBrrrFile(path, report, nullptr);
}

absl::Status WriteBrrrFile(const std::string& path, const Report& report, const Trace* trace,
                           Replace replace) {
  return WriteFileAtomically(path, SerializeBrrrFile(report, trace), replace);
}

}  // namespace brrr
