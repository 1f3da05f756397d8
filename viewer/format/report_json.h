// The report as JSON, schema "brrr.report/1" (field names and nesting as in viewer/format/report.h and
// viewer/format/BRRR_FORMAT.md), and the strict reader that turns such JSON back into a Report.
//
// Thread safety: pure functions.
// Must never: emit invalid JSON or inexact integers; crash or accept a document that is not a
// brrr.report/1 report (wrong types, out-of-range integers, another schema).
#ifndef BRRR_VIEWER_FORMAT_REPORT_JSON_H_
#define BRRR_VIEWER_FORMAT_REPORT_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "viewer/format/report.h"

namespace brrr {

// Pretty-printed (2-space indent), ends with a newline. For `brrr report --json`.
std::string RenderJson(const Report& report);

// The same document on one line, no trailing newline. Stored in .brrr files.
std::string RenderJsonCompact(const Report& report);

// Parses a brrr.report/1 document. "schema" must be present and equal "brrr.report/1"; other
// members that are absent keep their Report defaults; unknown members are ignored (later writers
// may add fields); a member with the wrong type or an integer out of its field's range is an
// error naming its path, e.g. "report JSON: $.api[2].calls: expected an unsigned 64-bit integer,
// got -1".
absl::StatusOr<Report> ParseReportJson(absl::string_view json);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_REPORT_JSON_H_
