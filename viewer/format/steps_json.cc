// JSON of a report's steps. See steps_json.h.
//
// Must never: read past the caps (samples, outliers), or crash on any tree.
#include "viewer/format/steps_json.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "viewer/format/json_fields.h"
#include "viewer/format/json_object_builder.h"

namespace brrr {
namespace {

using Json = nlohmann::json;
using Kind = Json::value_t;
constexpr size_t kMaxOutliers = 50;
constexpr double kHuge = 9.2e18;  // any mean a run can have

nlohmann::ordered_json PerStepJson(const StepsSummary::PerStep& p) {
  JsonObjectBuilder out(10);
  out.Add("busy_ns", p.busy_ns)
      .Add("launch_bound_ns", p.launch_bound_ns)
      .Add("sync_drain_ns", p.sync_drain_ns)
      .Add("host_outside_cuda_ns", p.host_outside_cuda_ns)
      .Add("launches", p.launches)
      .Add("stall_calls", p.stall_calls)
      .Add("stall_ns", p.stall_ns)
      .Add("h2d_bytes", p.h2d_bytes)
      .Add("d2h_bytes", p.d2h_bytes);
  if (p.sync_calls.has_value()) out.Add("sync_calls", *p.sync_calls);
  return out.Build();
}

}  // namespace

nlohmann::ordered_json StepsJson(const StepsSummary& s) {
  const StepsSummary::PerStep& p = s.per_step;
  nlohmann::ordered_json outliers = JsonArrayWithRoom(s.outliers.size());
  for (const StepOutlier& o : s.outliers) {
    outliers.push_back(JsonObjectBuilder(5)
                           .Add("index", o.index)
                           .Add("name", o.name)
                           .Add("wall_ns", o.wall_ns)
                           .Add("cause", o.cause)
                           .Add("top_stall", o.top_stall)
                           .Build());
  }
  const StepsSummary::PartSamples& ps = s.part_samples;
  return JsonObjectBuilder(13)
      .Add("source", s.source)
      .Add("count", s.count)
      .Add("kept", s.kept)
      .Add("unfinished", s.unfinished)
      .Add("wall_ns", JsonObjectBuilder(5)
                          .Add("p50", s.wall_ns.p50)
                          .Add("p90", s.wall_ns.p90)
                          .Add("p99", s.wall_ns.p99)
                          .Add("max", s.wall_ns.max)
                          .Add("mean", s.wall_ns.mean)
                          .Build())
      .Add("estimated", s.estimated)
      .Add("device_parts_scaled", s.device_parts_scaled)
      .Add("per_step", PerStepJson(p))
      .Add("outlier_rule", s.outlier_rule)
      .Add("outliers_total", s.outliers_total)
      .Add("outliers", std::move(outliers))
      .Add("wall_samples_ns", s.wall_samples_ns)
      .Add("part_samples_ns", JsonObjectBuilder(4)
                                  .Add("busy", ps.busy_ns)
                                  .Add("launch_bound", ps.launch_bound_ns)
                                  .Add("sync_drain", ps.sync_drain_ns)
                                  .Add("host_outside_cuda", ps.host_outside_cuda_ns)
                                  .Build())
      .Build();
}

absl::Status DecodeSteps(const nlohmann::json& root, Report& r) {
  JsonFieldReader d;
  const Json* steps = d.Member(root, "steps", "$", Kind::object);
  if (steps == nullptr) return d.status();
  StepsSummary& s = r.steps.emplace();
  const std::string path = "$.steps";
  d.String(*steps, "source", path, s.source);
  d.Integer(*steps, "count", path, s.count);
  d.Integer(*steps, "kept", path, s.kept);
  d.Integer(*steps, "unfinished", path, s.unfinished);
  if (const Json* w = d.Member(*steps, "wall_ns", path, Kind::object)) {
    const std::string wp = path + ".wall_ns";
    d.Integer(*w, "p50", wp, s.wall_ns.p50, int64_t{0});
    d.Integer(*w, "p90", wp, s.wall_ns.p90, int64_t{0});
    d.Integer(*w, "p99", wp, s.wall_ns.p99, int64_t{0});
    d.Integer(*w, "max", wp, s.wall_ns.max, int64_t{0});
    d.Number(*w, "mean", wp, kHuge, s.wall_ns.mean);
  }
  d.Bool(*steps, "estimated", path, s.estimated);
  // Absent in reports written before sampled runs scaled the steps' device parts.
  if (steps->contains("device_parts_scaled")) {
    d.Bool(*steps, "device_parts_scaled", path, s.device_parts_scaled);
  }
  if (const Json* p = d.Member(*steps, "per_step", path, Kind::object)) {
    const std::string pp = path + ".per_step";
    StepsSummary::PerStep& m = s.per_step;
    for (const auto& [key, out] : {std::pair<const char*, double*>{"busy_ns", &m.busy_ns},
                                   {"launch_bound_ns", &m.launch_bound_ns},
                                   {"sync_drain_ns", &m.sync_drain_ns},
                                   {"host_outside_cuda_ns", &m.host_outside_cuda_ns},
                                   {"launches", &m.launches},
                                   {"stall_calls", &m.stall_calls},
                                   {"stall_ns", &m.stall_ns},
                                   {"h2d_bytes", &m.h2d_bytes},
                                   {"d2h_bytes", &m.d2h_bytes}}) {
      d.Number(*p, key, pp, kHuge, *out);
    }
    if (FindMember(*p, "sync_calls") != nullptr) {  // absent in reports written before it
      double sync_calls = 0;
      d.Number(*p, "sync_calls", pp, kHuge, sync_calls);
      m.sync_calls = sync_calls;
    }
  }
  d.String(*steps, "outlier_rule", path, s.outlier_rule);
  d.Integer(*steps, "outliers_total", path, s.outliers_total);
  if (const Json* list = FindMember(*steps, "outliers");
      list != nullptr && list->is_array() && list->size() > kMaxOutliers) {
    d.Fail(absl::StrCat(path, ".outliers: more than ", kMaxOutliers));
  }
  d.Objects(*steps, "outliers", path, [&](const Json& e, const std::string& item) {
    StepOutlier& o = s.outliers.emplace_back();
    d.Integer(e, "index", item, o.index);
    d.String(e, "name", item, o.name);
    d.Integer(e, "wall_ns", item, o.wall_ns, int64_t{0});
    d.String(e, "cause", item, o.cause);
    d.String(e, "top_stall", item, o.top_stall);
  });
  d.Integers(*steps, "wall_samples_ns", path, s.wall_samples_ns, 0, kMaxStepsKept);
  if (const Json* ps = d.Member(*steps, "part_samples_ns", path, Kind::object)) {
    const std::string pp = path + ".part_samples_ns";
    StepsSummary::PartSamples& out = s.part_samples;
    d.Integers(*ps, "busy", pp, out.busy_ns, 0, kMaxStepBars);
    d.Integers(*ps, "launch_bound", pp, out.launch_bound_ns, 0, kMaxStepBars);
    d.Integers(*ps, "sync_drain", pp, out.sync_drain_ns, 0, kMaxStepBars);
    d.Integers(*ps, "host_outside_cuda", pp, out.host_outside_cuda_ns, 0, kMaxStepBars);
    const size_t n = out.busy_ns.size();
    if (d.ok() && (out.launch_bound_ns.size() != n || out.sync_drain_ns.size() != n ||
                   out.host_outside_cuda_ns.size() != n)) {
      d.Fail(absl::StrCat(pp, ": arrays of different lengths"));
    }
  }
  return d.status();
}

}  // namespace brrr
