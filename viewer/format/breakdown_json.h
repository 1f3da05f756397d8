// The device-time breakdown in "brrr.report/1": an `idle` object (launch-bound, sync drain, host
// outside CUDA) and a `devices` list, written and read here once for the report, its phases and
// each row of a job, so the three can never disagree on a member (a job row once lost its
// start-up and teardown that way).
//
// Must never: accept a wrong type or an out-of-range integer (errors name the JSON path).
#ifndef BRRR_VIEWER_FORMAT_BREAKDOWN_JSON_H_
#define BRRR_VIEWER_FORMAT_BREAKDOWN_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "viewer/format/json_fields.h"
#include "viewer/format/report.h"

namespace brrr {

nlohmann::ordered_json IdleJson(const IdleBreakdown& idle);
nlohmann::ordered_json DevicesJson(const std::vector<DeviceBreakdown>& devices);

// Read the member "idle" / "devices" of `obj` (at JSON path `path`); absent members keep their
// defaults, errors are recorded in `d`.
void DecodeIdle(JsonFieldReader& d, const nlohmann::json& obj, const std::string& path,
                IdleBreakdown& idle);
void DecodeDevices(JsonFieldReader& d, const nlohmann::json& obj, const std::string& path,
                   std::vector<DeviceBreakdown>& devices);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_BREAKDOWN_JSON_H_
