// The multi-process parts of "brrr.report/1": `process` (who one process's report is), and a job
// report's `processes` rows and `job` summary (see collector/job/job_merge.h). Written by
// report_json_encode.cc and read by report_json_decode.cc; each part is optional (absent in reports
// of one process written before jobs existed, and `processes`/`job` absent outside a job).
//
// Must never: accept a wrong type or an out-of-range integer (errors name the JSON path).
#ifndef BRRR_VIEWER_FORMAT_JOB_JSON_H_
#define BRRR_VIEWER_FORMAT_JOB_JSON_H_

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "viewer/format/json_object_builder.h"
#include "viewer/format/report.h"

namespace brrr {

// Appends the members "process", "processes", "job" (those the report has) to the report object
// being built.
void AddJobMembers(JsonObjectBuilder& doc, const Report& r);

// Reads the same members of the report object `root` into `r`.
absl::Status DecodeJobMembers(const nlohmann::json& root, Report& r);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_JOB_JSON_H_
