// The .brrr file layout as constants: the single place that defines the on-disk format (documented
// for people in viewer/format/BRRR_FORMAT.md; keep the two in step). All integers are little-endian.
//
//   file    = header section*
//   header  = magic "BRRRFILE" (8 bytes) | format_version u32 | section_count u32      (16 bytes)
//   section = type u32 | length u64 | crc32 u32 | payload (length bytes)        (16 bytes +
//   payload) crc32   = CRC-32/IEEE over the section header's type and length fields (12 bytes, as
//   stored)
//             followed by the payload.
//
// Must never: change the meaning of an existing field or section type without bumping
// kBrrrFormatVersion; new section types are added without a bump (old readers skip them).
#ifndef BRRR_VIEWER_FORMAT_BRRR_FILE_FORMAT_H_
#define BRRR_VIEWER_FORMAT_BRRR_FILE_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace brrr {

inline constexpr char kBrrrMagic[8] = {'B', 'R', 'R', 'R', 'F', 'I', 'L', 'E'};
// The format's major version. A reader rejects files with a larger one.
inline constexpr uint32_t kBrrrFormatVersion = 1;

inline constexpr size_t kBrrrHeaderSize = 16;
inline constexpr size_t kBrrrSectionHeaderSize = 16;

enum class BrrrSectionType : uint32_t {
  kInvalid = 0,     // never written; a reader rejects it (a zeroed region is not a section)
  kReportJson = 1,  // the report as UTF-8 JSON, schema "brrr.report/1"; exactly one per file
  // Reserved for later versions of the writer (readers that do not know them skip them):
  kTraceEvents = 2,
  kSymbolTable = 3,
};

// Reader limits: anything larger is rejected as corrupt before any allocation.
inline constexpr uint32_t kBrrrMaxSections = 4096;
inline constexpr uint64_t kBrrrMaxReportJsonBytes = 16ull << 20;  // 16 MiB
inline constexpr uint64_t kBrrrMaxTraceBytes = 8ull << 30;        // 8 GiB

// The trace events payload (section type 2), versioned inside the payload:
//   header  = payload_version u32 | app_pid u32 | cap u64 | omitted host calls, device ops,
//             API activities, sync activities (4 x u64) | counts of host calls, device ops,
//             API activities, sync activities, names (5 x u64)                        (88 bytes)
//   then the records of each kind, in that order (fixed sizes below), then `names` strings,
//   each u32 length + bytes. Field offsets: viewer/format/BRRR_FORMAT.md.
// 2: NVTX events after the names. 3: host calls carry a correlation id (56 bytes).
inline constexpr uint32_t kTracePayloadVersion = 3;
inline constexpr size_t kTraceHeaderSize = 88;
inline constexpr size_t kTraceHostCallSize = 56;
inline constexpr size_t kTraceHostCallSizeV2 = 48;  // payload versions 1 and 2
inline constexpr size_t kTraceDeviceOpSize = 48;
inline constexpr size_t kTraceApiActivitySize = 40;
inline constexpr size_t kTraceSyncActivitySize = 32;
inline constexpr uint32_t kTraceMaxNameLength = 4096;
inline constexpr size_t kTraceNvtxHeaderSize = 16;  // version 2: NVTX count, omitted NVTX events
inline constexpr size_t kTraceNvtxSize = 32;

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_BRRR_FILE_FORMAT_H_
