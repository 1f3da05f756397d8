// .brrr parsing: header, then each section bounds-checked, CRC-checked when it is read, unknown
// sections (and the trace section, unless the caller wants it) skipped. Every error names the
// file, the byte offset and what is wrong.
//
// Must never: trust a length before checking it against the bytes that remain; allocate more than
// kBrrrMaxReportJsonBytes for a report or kBrrrMaxTraceBytes (and never more than the file holds)
// for a trace; crash on any input.
#include <optional>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/brrr_file_format.h"
#include "viewer/format/byte_order.h"
#include "viewer/format/byte_source.h"
#include "viewer/format/crc32.h"
#include "viewer/format/report_json.h"
#include "viewer/format/trace_payload.h"

namespace brrr {
namespace {

std::string SectionTypeName(uint32_t type) {
  switch (static_cast<BrrrSectionType>(type)) {
    case BrrrSectionType::kReportJson:
      return "report JSON";
    case BrrrSectionType::kTraceEvents:
      return "trace events";
    case BrrrSectionType::kSymbolTable:
      return "symbol table";
    default:
      return absl::StrCat("unknown type ", type);
  }
}

class BrrrReader {
 public:
  BrrrReader(ByteSource& source, absl::string_view name, bool want_trace)
      : source_(source), name_(name), want_trace_(want_trace) {}

  absl::StatusOr<BrrrContents> Read() {
    if (absl::Status s = ReadHeader(); !s.ok()) return s;
    uint64_t offset = kBrrrHeaderSize;
    for (uint32_t k = 1; k <= section_count_; ++k) {
      if (absl::Status s = ReadSection(k, offset); !s.ok()) return s;
    }
    if (offset != source_.size()) {
      return Corrupt(absl::StrCat(source_.size() - offset, " unexpected bytes after the last of ",
                                  section_count_, " sections (from byte ", offset, ")"));
    }
    if (!report_.has_value()) return Corrupt("no report section (type 1) in the file");
    BrrrContents contents;
    contents.report = *std::move(report_);
    contents.trace = std::move(trace_);
    return contents;
  }

 private:
  absl::Status Corrupt(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(name_, ": ", what));
  }

  absl::Status Truncated(uint64_t needed_end, absl::string_view what) const {
    return Corrupt(absl::StrCat("truncated at byte ", source_.size(), ": ", what, " needs ",
                                needed_end, " bytes"));
  }

  absl::Status ReadHeader() {
    const uint64_t size = source_.size();
    if (size == 0) return Corrupt("empty file (a .brrr file starts with \"BRRRFILE\")");
    const size_t magic_bytes = size < sizeof(kBrrrMagic) ? size : sizeof(kBrrrMagic);
    if (absl::Status s = source_.ReadAt(0, magic_bytes, scratch_); !s.ok()) return s;
    if (scratch_ != absl::string_view(kBrrrMagic, magic_bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name_, ": not a .brrr file (bad magic: starts with \"",
                       absl::CHexEscape(scratch_.substr(0, 8)), "\", expected \"BRRRFILE\")"));
    }
    if (size < kBrrrHeaderSize) return Truncated(kBrrrHeaderSize, "the file header");
    if (absl::Status s = source_.ReadAt(0, kBrrrHeaderSize, scratch_); !s.ok()) return s;
    const uint32_t version = LoadLe32(scratch_.data() + 8);
    if (version == 0) return Corrupt("invalid format version 0");
    if (version > kBrrrFormatVersion) {
      return absl::UnimplementedError(absl::StrCat(name_, ": written by a newer brrr (format ",
                                                   version, "); this brrr reads up to ",
                                                   kBrrrFormatVersion));
    }
    section_count_ = LoadLe32(scratch_.data() + 12);
    if (section_count_ > kBrrrMaxSections) {
      return Corrupt(absl::StrCat("header claims ", section_count_, " sections; at most ",
                                  kBrrrMaxSections, " are allowed"));
    }
    return absl::OkStatus();
  }

  // Reads section number `k` (1-based) at `offset` and advances `offset` past it.
  absl::Status ReadSection(uint32_t k, uint64_t& offset) {
    const uint64_t size = source_.size();
    if (size - offset < kBrrrSectionHeaderSize) {
      return Truncated(
          offset + kBrrrSectionHeaderSize,
          absl::StrCat("section ", k, " of ", section_count_, " (header at byte ", offset, ")"));
    }
    if (absl::Status s = source_.ReadAt(offset, kBrrrSectionHeaderSize, scratch_); !s.ok()) {
      return s;
    }
    const std::string header = scratch_;
    const uint32_t type = LoadLe32(header.data());
    const uint64_t length = LoadLe64(header.data() + 4);
    const uint64_t payload_at = offset + kBrrrSectionHeaderSize;
    const std::string where =
        absl::StrCat("section ", k, " (", SectionTypeName(type), ", header at byte ", offset, ")");
    if (type == static_cast<uint32_t>(BrrrSectionType::kInvalid)) {
      return Corrupt(absl::StrCat(where, ": invalid section type 0"));
    }
    if (length > size - payload_at) {
      return Corrupt(absl::StrCat("truncated at byte ", size, ": ", where, " declares a ", length,
                                  "-byte payload but only ", size - payload_at, " bytes remain"));
    }
    offset = payload_at + length;
    if (type == static_cast<uint32_t>(BrrrSectionType::kTraceEvents) && want_trace_) {
      return ReadTrace(k, where, header, payload_at, length);
    }
    if (type != static_cast<uint32_t>(BrrrSectionType::kReportJson)) {
      // A section this reader does not use is skipped, but its CRC (which covers the type) is
      // still checked when it is small enough to read, so that a damaged type is not taken for a
      // section of a later writer.
      if (length > kBrrrMaxReportJsonBytes) return absl::OkStatus();
      absl::Status checked = ReadChecked(where, header, payload_at, length);
      scratch_.clear();
      return checked;
    }
    if (report_.has_value()) {
      return Corrupt(absl::StrCat(where, ": a second report section (the first is section ",
                                  report_section_, ")"));
    }
    if (length > kBrrrMaxReportJsonBytes) {
      return Corrupt(absl::StrCat(where, ": report of ", length, " bytes exceeds the limit of ",
                                  kBrrrMaxReportJsonBytes, " bytes"));
    }
    if (absl::Status s = ReadChecked(where, header, payload_at, length); !s.ok()) return s;
    absl::StatusOr<Report> report = ParseReportJson(scratch_);
    if (!report.ok()) {
      return Corrupt(absl::StrCat(where, ": ", report.status().message()));
    }
    report_ = *std::move(report);
    report_section_ = k;
    return absl::OkStatus();
  }

  absl::Status ReadTrace(uint32_t k, const std::string& where, const std::string& header,
                         uint64_t payload_at, uint64_t length) {
    if (trace_.has_value()) {
      return Corrupt(absl::StrCat(where, ": a second trace section (the first is section ",
                                  trace_section_, ")"));
    }
    if (length > kBrrrMaxTraceBytes) {
      return Corrupt(absl::StrCat(where, ": trace of ", length, " bytes exceeds the limit of ",
                                  kBrrrMaxTraceBytes, " bytes"));
    }
    if (absl::Status s = ReadChecked(where, header, payload_at, length); !s.ok()) return s;
    absl::StatusOr<Trace> trace = DecodeTracePayload(scratch_);
    scratch_.clear();
    scratch_.shrink_to_fit();
    if (!trace.ok()) {
      if (absl::IsUnimplemented(trace.status())) {
        return absl::UnimplementedError(
            absl::StrCat(name_, ": ", where, ": ", trace.status().message()));
      }
      return Corrupt(absl::StrCat(where, ": ", trace.status().message()));
    }
    trace_ = *std::move(trace);
    trace_section_ = k;
    return absl::OkStatus();
  }

  // Reads a section's payload into scratch_ and checks its CRC.
  absl::Status ReadChecked(const std::string& where, const std::string& header, uint64_t payload_at,
                           uint64_t length) {
    if (absl::Status s = source_.ReadAt(payload_at, static_cast<size_t>(length), scratch_);
        !s.ok()) {
      return s;
    }
    const uint32_t stored_crc = LoadLe32(header.data() + 12);
    const uint32_t crc = Crc32Extend(Crc32(absl::string_view(header).substr(0, 12)), scratch_);
    if (crc != stored_crc) {
      return Corrupt(absl::StrFormat("CRC mismatch in %s: stored 0x%08x, computed 0x%08x", where,
                                     stored_crc, crc));
    }
    return absl::OkStatus();
  }

  ByteSource& source_;
  std::string name_;
  std::string scratch_;
  uint32_t section_count_ = 0;
  bool want_trace_;
  std::optional<Report> report_;
  uint32_t report_section_ = 0;
  std::optional<Trace> trace_;
  uint32_t trace_section_ = 0;
};

}  // namespace

absl::StatusOr<Report> ParseBrrrFile(absl::string_view bytes, absl::string_view name) {
  MemoryByteSource source(bytes);
  absl::StatusOr<BrrrContents> contents = BrrrReader(source, name, /*want_trace=*/false).Read();
  if (!contents.ok()) return contents.status();
  return std::move(contents->report);
}

absl::StatusOr<Report> ReadBrrrFile(const std::string& path) {
  absl::StatusOr<std::unique_ptr<FileByteSource>> source = FileByteSource::Open(path);
  if (!source.ok()) return source.status();
  absl::StatusOr<BrrrContents> contents = BrrrReader(**source, path, /*want_trace=*/false).Read();
  if (!contents.ok()) return contents.status();
  return std::move(contents->report);
}

absl::StatusOr<BrrrContents> ParseBrrrContents(absl::string_view bytes, absl::string_view name) {
  MemoryByteSource source(bytes);
  return BrrrReader(source, name, /*want_trace=*/true).Read();
}

absl::StatusOr<BrrrContents> ReadBrrrContents(const std::string& path) {
  absl::StatusOr<std::unique_ptr<FileByteSource>> source = FileByteSource::Open(path);
  if (!source.ok()) return source.status();
  return BrrrReader(**source, path, /*want_trace=*/true).Read();
}

}  // namespace brrr
