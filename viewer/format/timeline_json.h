// The time-series parts of "brrr.report/1": `timeline` (the device-time breakdown per time bucket)
// and `launch_latency_ns.histogram` (power-of-two rows), also each job process row's `timeline`
// (job_json.cc). Written by report_json_encode.cc and read by report_json_decode.cc; both are
// absent in reports written before them.
//
// Must never: accept a negative duration or count, a timeline of more than kMaxTimelineBuckets
// buckets per device, a histogram of more than 65 rows, or a wrong type (errors name the path).
#ifndef BRRR_VIEWER_FORMAT_TIMELINE_JSON_H_
#define BRRR_VIEWER_FORMAT_TIMELINE_JSON_H_

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "viewer/format/report.h"

namespace brrr {

// The timeline object (the value of the report's "timeline").
nlohmann::ordered_json TimelineJson(const Timeline& t);
// The array of histogram rows (the value of launch_latency_ns's "histogram").
nlohmann::ordered_json LatencyHistogramJson(const LatencySummary& l);

// Reads the member "timeline" of the report object `root`, if present.
absl::Status DecodeTimeline(const nlohmann::json& root, Report& r);
// Reads a timeline object at `path` (for errors) with at most `max_buckets` buckets per device
// into `out` (a job's process rows: kMaxJobTimelineBuckets).
absl::Status DecodeTimelineObject(const nlohmann::json& timeline, const std::string& path,
                                  size_t max_buckets, Timeline& out);
// Reads the member "histogram" of the launch_latency_ns object `latency`, if present.
absl::Status DecodeLatencyHistogram(const nlohmann::json& latency, LatencySummary& out);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_TIMELINE_JSON_H_
