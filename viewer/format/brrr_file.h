// Writing and reading .brrr files: a saved profiling run (the Report, and room for later sections
// such as a full event trace) in the versioned container defined in brrr_file_format.h and
// documented in BRRR_FORMAT.md.
//
// Thread safety: the functions are independent and may be called concurrently (on different paths).
// Must never: crash, hang or allocate without bound on any input bytes; leave a partly written file
// at `path` (writes go to a temporary file in the same directory, then an atomic rename); create a
// file readable by other users (mode 0600 regardless of the umask).
#ifndef BRRR_VIEWER_FORMAT_BRRR_FILE_H_
#define BRRR_VIEWER_FORMAT_BRRR_FILE_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "viewer/format/atomic_file.h"
#include "viewer/format/report.h"
#include "viewer/format/trace.h"

namespace brrr {

// Serializes `report` into the .brrr byte format (header + one report section).
std::string SerializeBrrrFile(const Report& report);
// The same plus, when `trace` is not null, a trace events section (type 2) after the report.
std::string SerializeBrrrFile(const Report& report, const Trace* trace);

// Writes `report` to `path` atomically with mode 0600 (replacing an existing file). Errors name the
// path and the failing step (e.g. "brrr: cannot create /x/.f.brrr.tmp-1-2: Permission denied").
absl::Status WriteBrrrFile(const std::string& path, const Report& report);
// Replace::kNo keeps a file already at `path` (AlreadyExists). The trace is encoded twice as it is
// written (its CRC, then its bytes): it must not change meanwhile.
absl::Status WriteBrrrFile(const std::string& path, const Report& report, const Trace* trace,
                           Replace replace = Replace::kYes);

// Reads and validates a .brrr file. Every error names the file and what is wrong with it (bad
// magic, truncated at byte N, CRC mismatch in section K, written by a newer brrr, ...).
absl::StatusOr<Report> ReadBrrrFile(const std::string& path);

// Same as ReadBrrrFile on bytes already in memory; `name` is used in error messages.
absl::StatusOr<Report> ParseBrrrFile(absl::string_view bytes, absl::string_view name = "<memory>");

// Everything a .brrr file holds that this reader knows: the report and, when the file has one, the
// full event trace (section type 2), checked as strictly as the report (CRC, every count and
// length, at most one trace section). ReadBrrrFile skips the trace section unread.
struct BrrrContents {
  Report report;
  std::optional<Trace> trace;
};
absl::StatusOr<BrrrContents> ReadBrrrContents(const std::string& path);
absl::StatusOr<BrrrContents> ParseBrrrContents(absl::string_view bytes,
                                               absl::string_view name = "<memory>");

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_BRRR_FILE_H_
