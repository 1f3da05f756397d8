// The per-process timelines of a job on one clock. See job_timeline.h.
//
// Must never: multiply two values whose product could pass 2^127 (source widths are at most
// kMaxSourceBucketNs, values and walls below 2^63), or index a bucket past the row's count.
#include "collector/job/job_timeline.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace brrr::job {
namespace {

using Wide = __int128;

// The collector's widths stop at 2^55 ns (breakdown_timeline.cc); a wider one is not a timeline
// it wrote.
constexpr int64_t kMaxSourceBucketNs = int64_t{1} << 55;
constexpr int kMaxJobBucketShift = 62;
constexpr size_t kMaxRows = kMaxJobTimelineBuckets / kMinJobTimelineBuckets;

constexpr std::array<int64_t TimelineBucket::*, 6> kBucketParts = {
    &TimelineBucket::busy_ns,          &TimelineBucket::launch_bound_ns,
    &TimelineBucket::sync_drain_ns,    &TimelineBucket::host_outside_cuda_ns,
    &TimelineBucket::startup_ns,       &TimelineBucket::teardown_ns};

std::array<int64_t, 6> BreakdownParts(const DeviceBreakdown& d) {
  return {d.busy_ns,          d.idle.launch_bound_ns, d.idle.sync_drain_ns,
          d.idle.host_outside_cuda_ns, d.startup_ns,  d.teardown_ns};
}

// True when every bucket value is >= 0 and the buckets add up to `d` part by part.
bool AddsUp(const DeviceTimeline& t, const DeviceBreakdown& d) {
  const std::array<int64_t, 6> want = BreakdownParts(d);
  for (size_t p = 0; p < kBucketParts.size(); ++p) {
    Wide sum = 0;
    for (const TimelineBucket& b : t.buckets) {
      if (b.*kBucketParts[p] < 0) return false;
      sum += b.*kBucketParts[p];
    }
    if (sum != want[p]) return false;
  }
  return true;
}

const DeviceTimeline* FindRow(const Timeline& t, uint32_t id) {
  for (const DeviceTimeline& row : t.devices) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

struct Row {
  size_t process = 0;
  const DeviceBreakdown* device = nullptr;
  const DeviceTimeline* source = nullptr;
};

// Adds `v` spread evenly over [lo, hi) (hi > lo) to the job buckets of width `w` in `out`;
// anything past the last bucket goes into it.
void Apportion(int64_t v, Wide lo, Wide hi, Wide w, int64_t TimelineBucket::*part,
               std::vector<TimelineBucket>& out) {
  const Wide len = hi - lo;
  const Wide last = static_cast<Wide>(out.size()) - 1;
  Wide given = 0;
  for (Wide j = lo / w;; ++j) {
    if (j >= last) {
      out[static_cast<size_t>(last)].*part += static_cast<int64_t>(v - given);
      return;
    }
    const Wide edge = std::min(hi, (j + 1) * w);
    const Wide cumulative = static_cast<Wide>(v) * (edge - lo) / len;
    out[static_cast<size_t>(j)].*part += static_cast<int64_t>(cumulative - given);
    given = cumulative;
    if (edge == hi) return;
  }
}

// Where source bucket k of `row` lies on the job clock: [lo, hi), `offset` from the job origin.
std::pair<Wide, Wide> SourceExtent(const Row& row, int64_t source_ns, Wide offset, size_t k) {
  const Wide lo = offset + static_cast<Wide>(k) * source_ns;
  if (k + 1 < row.source->buckets.size()) return {lo, lo + source_ns};
  // The last bucket ends at the device's wall time (it may be shorter than the others).
  const Wide end = offset + std::max<Wide>(row.device->wall_ns, 0);
  return {lo, std::max(end, lo + 1)};
}

std::string Note(uint32_t total, uint32_t no_clock, uint32_t inconsistent, uint32_t over_cap,
                 bool straggler_kept) {
  std::vector<std::string> why;
  if (no_clock > 0) {
    why.push_back(absl::StrCat(no_clock,
                               " with no timeline on a common clock (no device work recorded, "
                               "or a report written before it)"));
  }
  if (inconsistent > 0) {
    why.push_back(absl::StrCat(inconsistent,
                               " whose buckets do not fit the breakdown (do not add up to it, or "
                               "are not as a collector writes them)"));
  }
  if (over_cap > 0) {
    why.push_back(absl::StrCat(over_cap, " over the cap of ", kMaxRows, " rows (",
                               straggler_kept ? "the straggler's kept first, then by rank"
                                              : "kept by rank",
                               ")"));
  }
  return absl::StrCat("Timelines left out for ", no_clock + inconsistent + over_cap, " of ", total,
                      " (process, GPU) rows: ", absl::StrJoin(why, "; "), ".");
}

}  // namespace

JobTimelines MergeTimelines(const std::vector<Report>& processes,
                            std::optional<size_t> keep_first) {
  JobTimelines out;
  out.per_process.resize(processes.size());
  // The candidate rows: every device of every process whose timeline can be placed.
  std::vector<Row> rows;
  uint32_t total = 0, no_clock = 0, inconsistent = 0;
  for (size_t i = 0; i < processes.size(); ++i) {
    const Report& r = processes[i];
    const std::optional<Timeline>& t = r.timeline;
    const bool placeable = t.has_value() && t->origin_unix_ns > 0 && t->bucket_ns > 0;
    // A job row is named by its device id alone: an id the process lists twice (no collector
    // writes that) could not say which entry it is, so none of them gets a row.
    std::vector<uint32_t> ids;
    if (placeable) {
      ids.reserve(r.devices.size());
      for (const DeviceBreakdown& d : r.devices) ids.push_back(d.id);
      std::sort(ids.begin(), ids.end());
    }
    for (const DeviceBreakdown& d : r.devices) {
      ++total;
      if (!placeable) {
        ++no_clock;
        continue;
      }
      const auto [first, last] = std::equal_range(ids.begin(), ids.end(), d.id);
      const DeviceTimeline* source = FindRow(*t, d.id);
      if (last - first > 1 || source == nullptr || source->buckets.empty() ||
          t->bucket_ns > kMaxSourceBucketNs || source->buckets.size() > kMaxTimelineBuckets ||
          !AddsUp(*source, d)) {
        ++inconsistent;
        continue;
      }
      rows.push_back({i, &d, source});
    }
  }
  uint32_t over_cap = 0;
  bool straggler_kept = false;
  if (rows.size() > kMaxRows) {
    // The straggler's rows first, then the others in order; the kept ones back in order.
    std::stable_partition(rows.begin(), rows.end(), [&](const Row& row) {
      return keep_first.has_value() && row.process == *keep_first;
    });
    straggler_kept = keep_first.has_value() && rows.front().process == *keep_first;
    over_cap = static_cast<uint32_t>(rows.size() - kMaxRows);
    rows.resize(kMaxRows);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.process < b.process; });
  }
  out.rows_left_out = no_clock + inconsistent + over_cap;
  if (out.rows_left_out > 0) {
    out.note = Note(total, no_clock, inconsistent, over_cap, straggler_kept);
  }
  if (rows.empty()) return out;

  // The job clock: origin, span, width and bucket count shared by every row.
  int64_t origin = INT64_MAX;
  int64_t widest = 1;
  for (const Row& row : rows) {
    const Timeline& t = *processes[row.process].timeline;
    origin = std::min(origin, t.origin_unix_ns);
    widest = std::max(widest, t.bucket_ns);
  }
  Wide span = 1;
  for (const Row& row : rows) {
    const Timeline& t = *processes[row.process].timeline;
    const Wide offset = static_cast<Wide>(t.origin_unix_ns) - origin;
    span = std::max(span, SourceExtent(row, t.bucket_ns, offset, row.source->buckets.size() - 1)
                              .second);
  }
  const size_t max_buckets = std::clamp<size_t>(kMaxJobTimelineBuckets / rows.size(),
                                                kMinJobTimelineBuckets, kMaxTimelineBuckets);
  int shift = 0;
  while ((int64_t{1} << shift) < widest) ++shift;
  while ((span + (Wide{1} << shift) - 1) >> shift > static_cast<Wide>(max_buckets) &&
         shift < kMaxJobBucketShift) {
    ++shift;
  }
  const Wide width = Wide{1} << shift;
  const size_t buckets = static_cast<size_t>(
      std::clamp<Wide>((span + width - 1) / width, 1, static_cast<Wide>(max_buckets)));

  for (const Row& row : rows) {
    const Timeline& t = *processes[row.process].timeline;
    const Wide offset = static_cast<Wide>(t.origin_unix_ns) - origin;
    std::optional<Timeline>& job_t = out.per_process[row.process];
    if (!job_t.has_value()) {
      job_t.emplace();
      job_t->bucket_ns = static_cast<int64_t>(width);
      job_t->origin_unix_ns = origin;
    }
    DeviceTimeline& to = job_t->devices.emplace_back();
    to.id = row.device->id;
    to.buckets.assign(buckets, TimelineBucket{});
    for (size_t k = 0; k < row.source->buckets.size(); ++k) {
      const auto [lo, hi] = SourceExtent(row, t.bucket_ns, offset, k);
      for (int64_t TimelineBucket::*part : kBucketParts) {
        const int64_t v = row.source->buckets[k].*part;
        if (v > 0) Apportion(v, lo, hi, width, part, to.buckets);
      }
    }
  }
  return out;
}

}  // namespace brrr::job
