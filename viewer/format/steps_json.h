// The `steps` member of "brrr.report/1" (report.h, StepsSummary): written by
// report_json_encode.cc and read by report_json_decode.cc; absent when the run had no steps.
//
// Must never: accept a negative duration or count, a share above what it is of, more than
// kMaxStepsKept samples or 50 outliers, or a wrong type (errors name the path).
#ifndef BRRR_VIEWER_FORMAT_STEPS_JSON_H_
#define BRRR_VIEWER_FORMAT_STEPS_JSON_H_

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "viewer/format/report.h"

namespace brrr {

nlohmann::ordered_json StepsJson(const StepsSummary& s);
// Reads the member "steps" of the report object `root`, if present.
absl::Status DecodeSteps(const nlohmann::json& root, Report& r);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_STEPS_JSON_H_
