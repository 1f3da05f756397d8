// The job merge's fuzz entry point (see job_merge_fuzz_entry.h).
#include "collector/job/job_merge_fuzz_entry.h"

#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collector/job/job_merge.h"
#include "viewer/format/report.h"
#include "viewer/format/report_json.h"
#include "viewer/render_html.h"
#include "viewer/render_text.h"

namespace brrr::job {
namespace {

using Parts = int64_t TimelineBucket::*;
constexpr Parts kParts[] = {&TimelineBucket::busy_ns,       &TimelineBucket::launch_bound_ns,
                            &TimelineBucket::sync_drain_ns, &TimelineBucket::host_outside_cuda_ns,
                            &TimelineBucket::startup_ns,    &TimelineBucket::teardown_ns};
constexpr const char* kPartNames[] = {"busy",    "launch_bound", "sync_drain", "host_outside_cuda",
                                      "startup", "teardown"};

int64_t PartOf(const DeviceBreakdown& d, size_t part) {
  switch (part) {
    case 0:
      return d.busy_ns;
    case 1:
      return d.idle.launch_bound_ns;
    case 2:
      return d.idle.sync_drain_ns;
    case 3:
      return d.idle.host_outside_cuda_ns;
    case 4:
      return d.startup_ns;
    default:
      return d.teardown_ns;
  }
}

// A kept row against its device's breakdown, part by part, summed without overflow.
std::string CheckRow(const ProcessRow& row, const DeviceTimeline& t, const DeviceBreakdown& d) {
  for (size_t p = 0; p < std::size(kParts); ++p) {
    __int128 sum = 0;
    for (const TimelineBucket& b : t.buckets) {
      if (b.*kParts[p] < 0) {
        return absl::StrCat("pid ", row.pid, " device ", t.id, ": negative ", kPartNames[p]);
      }
      sum += b.*kParts[p];
    }
    if (sum != PartOf(d, p)) {
      return absl::StrCat("pid ", row.pid, " device ", t.id, ": ", kPartNames[p],
                          " buckets add up to ", static_cast<int64_t>(sum), " (low 64 bits), not ",
                          PartOf(d, p));
    }
  }
  return "";
}

std::string CheckTimelines(const Report& job, size_t inputs, JobMergeFuzzOutcome& out) {
  if (job.processes.size() != inputs) {
    return absl::StrCat(inputs, " processes in, ", job.processes.size(), " rows out");
  }
  if (!job.job.has_value()) return "no job summary";
  size_t devices = 0, buckets = 0;
  std::optional<int64_t> width, origin;
  std::optional<size_t> count;
  for (const ProcessRow& row : job.processes) {
    devices += row.devices.size();
    if (!row.timeline.has_value()) continue;
    const Timeline& tl = *row.timeline;
    if (tl.devices.empty()) return absl::StrCat("pid ", row.pid, ": a timeline without rows");
    if (tl.bucket_ns <= 0 || (tl.bucket_ns & (tl.bucket_ns - 1)) != 0) {
      return absl::StrCat("pid ", row.pid, ": bucket width ", tl.bucket_ns, " not a power of 2");
    }
    if (tl.origin_unix_ns <= 0) return absl::StrCat("pid ", row.pid, ": no origin");
    if (!width.has_value()) width = tl.bucket_ns, origin = tl.origin_unix_ns;
    if (tl.bucket_ns != *width || tl.origin_unix_ns != *origin) {
      return absl::StrCat("pid ", row.pid, ": not on the job's clock");
    }
    // Kept rows follow the process's device list (job_timeline.h): match them in order. A row is
    // named by its id, which must name one device of the process (readers match by id).
    size_t next = 0;
    for (const DeviceTimeline& t : tl.devices) {
      while (next < row.devices.size() && row.devices[next].id != t.id) ++next;
      if (next == row.devices.size()) {
        return absl::StrCat("pid ", row.pid, ": a row for device ", t.id, " out of its list");
      }
      for (size_t other = next + 1; other < row.devices.size(); ++other) {
        if (row.devices[other].id == t.id) {
          return absl::StrCat("pid ", row.pid, ": a row for device ", t.id, ", listed twice");
        }
      }
      if (!count.has_value()) count = t.buckets.size();
      if (t.buckets.empty() || t.buckets.size() != *count ||
          t.buckets.size() > kMaxTimelineBuckets) {
        return absl::StrCat("pid ", row.pid, ": ", t.buckets.size(), " buckets, others ", *count);
      }
      if (std::string bad = CheckRow(row, t, row.devices[next]); !bad.empty()) return bad;
      ++next;
      ++out.kept_rows;
      buckets += t.buckets.size();
    }
  }
  out.left_out = job.job->timeline_rows_left_out;
  if (out.kept_rows + out.left_out != devices) {
    return absl::StrCat(devices, " devices, ", out.kept_rows, " rows kept and ", out.left_out,
                        " left out");
  }
  if ((out.left_out == 0) != job.job->timeline_note.empty()) {
    return absl::StrCat(out.left_out, " rows left out, note \"", job.job->timeline_note, "\"");
  }
  if (buckets > kMaxJobTimelineBuckets ||
      out.kept_rows > kMaxJobTimelineBuckets / kMinJobTimelineBuckets) {
    return absl::StrCat(out.kept_rows, " rows of ", buckets, " buckets: over the caps");
  }
  return "";
}

}  // namespace

std::vector<std::string_view> SplitFuzzPieces(std::string_view data) {
  std::vector<std::string_view> pieces;
  while (pieces.size() + 1 < kMaxFuzzPieces) {
    const size_t cut = data.find(kFuzzPieceSeparator);
    if (cut == std::string_view::npos) break;
    pieces.push_back(data.substr(0, cut));
    data.remove_prefix(cut + 1);
  }
  pieces.push_back(data);
  return pieces;
}

JobMergeFuzzOutcome FuzzJobMerge(const uint8_t* data, size_t size) {
  JobMergeFuzzOutcome out;
  const std::vector<std::string_view> pieces =
      SplitFuzzPieces(std::string_view(reinterpret_cast<const char*>(data), size));
  out.pieces = pieces.size();
  std::vector<Report> in;
  for (std::string_view piece : pieces) {
    absl::StatusOr<Report> r = ParseReportJson(absl::string_view(piece.data(), piece.size()));
    // As `brrr merge` reads its files (process_reports.h): a job report is not a process.
    if (!r.ok() || r->job.has_value() || !r->processes.empty()) continue;
    in.push_back(*std::move(r));
  }
  out.merged = in.size();
  if (in.empty()) return out;
  const Report job = MergeJob(in, {});
  if (job.job.has_value() && job.job->straggler.has_value()) {
    out.straggler_rank = job.job->straggler->rank;
  }
  out.violation = CheckTimelines(job, in.size(), out);
  if (!out.violation.empty()) return out;
  (void)RenderText(job);
  (void)RenderHtml(job);
  const std::string json = RenderJson(job);
  absl::StatusOr<Report> again = ParseReportJson(json);
  if (!again.ok()) {
    out.violation = absl::StrCat("the job's JSON does not read back: ", again.status().message());
  } else if (RenderJson(*again) != json) {
    out.violation = "the job's JSON reads back as another report";
  }
  return out;
}

}  // namespace brrr::job
