// JSON of a report's timeline and launch-latency histogram. See timeline_json.h.
//
// Must never: crash on any tree, or size anything from a count it has not checked.
#include "viewer/format/timeline_json.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "viewer/format/json_fields.h"
#include "viewer/format/json_object_builder.h"

namespace brrr {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxHistogramRows = 65;

absl::Status Bad(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("report JSON: ", path, ": ", what));
}

// A required non-negative integer member.
template <typename Int>
absl::Status ReadCount(const Json& obj, absl::string_view key, const std::string& path, Int& out) {
  const Json* v = FindMember(obj, key);
  if (v == nullptr) return Bad(path, absl::StrCat("no \"", key, "\""));
  int64_t value = 0;
  if (!ToInteger(*v, value) || value < 0) {
    return Bad(absl::StrCat(path, ".", key), "expected an integer in [0, 2^63)");
  }
  out = static_cast<Int>(value);
  return absl::OkStatus();
}

absl::Status DecodeBucket(const Json& e, const std::string& path, TimelineBucket& b) {
  if (!e.is_object()) return Bad(path, "expected object");
  for (auto [key, member] : {std::pair{"busy_ns", &b.busy_ns},
                             {"launch_bound_ns", &b.launch_bound_ns},
                             {"sync_drain_ns", &b.sync_drain_ns},
                             {"host_outside_cuda_ns", &b.host_outside_cuda_ns},
                             {"startup_ns", &b.startup_ns},
                             {"teardown_ns", &b.teardown_ns}}) {
    if (absl::Status s = ReadCount(e, key, path, *member); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

nlohmann::ordered_json TimelineJson(const Timeline& t) {
  nlohmann::ordered_json devices = JsonArrayWithRoom(t.devices.size());
  for (const DeviceTimeline& d : t.devices) {
    nlohmann::ordered_json buckets = JsonArrayWithRoom(d.buckets.size());
    for (const TimelineBucket& b : d.buckets) {
      buckets.push_back(JsonObjectBuilder(6)
                            .Add("busy_ns", b.busy_ns)
                            .Add("launch_bound_ns", b.launch_bound_ns)
                            .Add("sync_drain_ns", b.sync_drain_ns)
                            .Add("host_outside_cuda_ns", b.host_outside_cuda_ns)
                            .Add("startup_ns", b.startup_ns)
                            .Add("teardown_ns", b.teardown_ns)
                            .Build());
    }
    devices.push_back(
        JsonObjectBuilder(2).Add("id", d.id).Add("buckets", std::move(buckets)).Build());
  }
  return JsonObjectBuilder(3)
      .Add("bucket_ns", t.bucket_ns)
      .Add("devices", std::move(devices))
      .Add("origin_unix_ns", t.origin_unix_ns)
      .Build();
}

nlohmann::ordered_json LatencyHistogramJson(const LatencySummary& l) {
  nlohmann::ordered_json rows = JsonArrayWithRoom(l.histogram.size());
  for (const LatencyBucket& b : l.histogram) {
    rows.push_back(JsonObjectBuilder(2).Add("lo_ns", b.lo_ns).Add("count", b.count).Build());
  }
  return rows;
}

absl::Status DecodeTimelineObject(const Json& timeline, const std::string& path, size_t max_buckets,
                                  Timeline& out) {
  const Json* v = &timeline;
  if (!v->is_object()) return Bad(path, "expected object");
  Timeline t;
  if (absl::Status s = ReadCount(*v, "bucket_ns", path, t.bucket_ns); !s.ok()) return s;
  if (t.bucket_ns <= 0) return Bad(path + ".bucket_ns", "expected a positive integer");
  const Json* devices = FindMember(*v, "devices");
  if (devices == nullptr || !devices->is_array()) return Bad(path + ".devices", "expected array");
  const Json::array_t& device_list = ElementsOf(*devices);
  for (size_t i = 0; i < device_list.size(); ++i) {
    const Json& e = device_list[i];
    const std::string dpath = absl::StrCat(path, ".devices[", i, "]");
    if (!e.is_object()) return Bad(dpath, "expected object");
    DeviceTimeline& d = t.devices.emplace_back();
    uint64_t id = 0;
    if (absl::Status s = ReadCount(e, "id", dpath, id); !s.ok()) return s;
    if (id > UINT32_MAX) return Bad(dpath + ".id", "expected an integer in [0, 2^32)");
    d.id = static_cast<uint32_t>(id);
    const Json* buckets = FindMember(e, "buckets");
    if (buckets == nullptr || !buckets->is_array()) {
      return Bad(dpath + ".buckets", "expected array");
    }
    const Json::array_t& bucket_list = ElementsOf(*buckets);
    if (bucket_list.size() > max_buckets) {
      return Bad(dpath + ".buckets", absl::StrCat("more than ", max_buckets, " buckets"));
    }
    for (size_t j = 0; j < bucket_list.size(); ++j) {
      absl::Status s = DecodeBucket(bucket_list[j], absl::StrCat(dpath, ".buckets[", j, "]"),
                                    d.buckets.emplace_back());
      if (!s.ok()) return s;
    }
  }
  // Absent in reports written before it (then 0: unknown).
  if (const Json* origin = FindMember(*v, "origin_unix_ns")) {
    if (!ToInteger(*origin, t.origin_unix_ns)) {
      return Bad(path + ".origin_unix_ns", "expected a 64-bit integer");
    }
  }
  out = std::move(t);
  return absl::OkStatus();
}

absl::Status DecodeTimeline(const Json& root, Report& r) {
  const Json* v = FindMember(root, "timeline");
  if (v == nullptr) return absl::OkStatus();
  return DecodeTimelineObject(*v, "$.timeline", kMaxTimelineBuckets, r.timeline.emplace());
}

absl::Status DecodeLatencyHistogram(const Json& latency, LatencySummary& out) {
  const Json* v = FindMember(latency, "histogram");
  if (v == nullptr) return absl::OkStatus();
  const std::string path = "$.launch_latency_ns.histogram";
  if (!v->is_array()) return Bad(path, "expected array");
  const Json::array_t& rows = ElementsOf(*v);
  if (rows.size() > kMaxHistogramRows) {
    return Bad(path, absl::StrCat("more than ", kMaxHistogramRows, " rows"));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Json& e = rows[i];
    const std::string item = absl::StrCat(path, "[", i, "]");
    if (!e.is_object()) return Bad(item, "expected object");
    LatencyBucket& b = out.histogram.emplace_back();
    if (absl::Status s = ReadCount(e, "lo_ns", item, b.lo_ns); !s.ok()) return s;
    if (absl::Status s = ReadCount(e, "count", item, b.count); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace brrr
