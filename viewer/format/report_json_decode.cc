// JSON "brrr.report/1" -> Report: reads the tree of the strict JSON reader (strict_json.h) into the
// Report struct, checking the type and range of every field it reads. Errors name the JSON path of
// the offending member.
//
// Must never: accept a wrong type or an out-of-range integer silently, throw, or crash on any tree.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "viewer/format/breakdown_json.h"
#include "viewer/format/job_json.h"
#include "viewer/format/json_fields.h"
#include "viewer/format/report_json.h"
#include "viewer/format/steps_json.h"
#include "viewer/format/strict_json.h"
#include "viewer/format/timeline_json.h"

namespace brrr {
namespace {

using Json = nlohmann::json;
using Kind = Json::value_t;

// A member holding a number of any kind in [0, max] (give or take rounding), read as a double; absent leaves `out`
// unset, and a number out of range is an error (a share above 1 or a throughput above 100 % of
// peak is not something the collector writes).
void ReadOptionalDouble(JsonFieldReader& d, const Json& obj, absl::string_view key,
                        const std::string& path, double max, std::optional<double>& out) {
  if (FindMember(obj, key) == nullptr) return;
  double value = 0;
  d.Number(obj, key, path, max, value);
  if (d.ok()) out = value;
}

// A row of stalls or of sync_calls.rows.
void DecodeStallRow(JsonFieldReader& d, const Json& e, const std::string& item, Stall& s) {
  d.String(e, "api", item, s.api);
  d.String(e, "reason", item, s.reason);
  d.Integer(e, "calls", item, s.calls);
  d.Integer(e, "total_ns", item, s.total_ns);
  d.Strings(e, "stack", item, s.stack);
  d.Integer(e, "plumbing_frames", item, s.plumbing_frames);  // absent: none (or older reports)
  d.String(e, "ended_early", item, s.ended_early);           // absent: whole (or not known)
}

void DecodeKernels(JsonFieldReader& d, const Json& obj, Report& r) {
  const std::string path = "$.kernels";
  d.Integer(obj, "launches", path, r.kernels.launches);
  d.Integer(obj, "launch_calls", path, r.kernels.launch_calls);
  d.Integer(obj, "device_ns", path, r.kernels.device_ns);
  d.Bool(obj, "estimated", path, r.kernels.estimated);  // absent: as recorded
  // Absent without hardware counters (and in reports written before them).
  if (const Json* c = d.Member(obj, "counters", path, Kind::object)) {
    KernelCounterJoin& join = r.kernels.counters.emplace();
    const std::string counters_path = path + ".counters";
    d.String(*c, "clock", counters_path, join.clock);
    d.Integer(*c, "samples", counters_path, join.samples);
    d.Integer(*c, "samples_unaligned", counters_path, join.samples_unaligned);
    d.Integer(*c, "samples_late", counters_path, join.samples_late);
    d.Integer(*c, "kernels_late", counters_path, join.kernels_late);
    d.String(*c, "unavailable", counters_path, join.unavailable);  // absent when used
    d.String(*c, "metrics", counters_path, join.metrics);  // absent when none was configured
    ReadOptionalDouble(d, *c, "busy_sm_pct", counters_path, 100, join.busy_sm_pct);
    ReadOptionalDouble(d, *c, "busy_dram_pct", counters_path, 100, join.busy_dram_pct);
    d.Integer(*c, "busy_samples", counters_path, join.busy_samples);
    // Absent in reports written before the sampled device was recorded (then device 0, none).
    d.Integer(*c, "device", counters_path, join.device);
    d.Integer(*c, "other_device_kernels", counters_path, join.other_device_kernels);
    d.Integer(*c, "other_device_ns", counters_path, join.other_device_ns);
  }
  d.Objects(obj, "top", path, [&](const Json& e, const std::string& item) {
    KernelStat& k = r.kernels.top.emplace_back();
    d.String(e, "name", item, k.name);
    d.Integer(e, "launches", item, k.launches);
    d.Integer(e, "device_ns", item, k.device_ns);
    d.Integer(e, "mean_ns", item, k.mean_ns);
    d.String(e, "class", item, k.kernel_class);  // absent before kernel classes
    // Absent for kernels no counter sample was joined to.
    ReadOptionalDouble(d, e, "achieved_sm_pct", item, 100, k.achieved_sm_pct);
    ReadOptionalDouble(d, e, "achieved_dram_pct", item, 100, k.achieved_dram_pct);
    ReadOptionalDouble(d, e, "counter_coverage", item, 1, k.counter_coverage);
    ReadOptionalDouble(d, e, "counter_shared", item, 1, k.counter_shared);
    d.Bool(e, "counter_lower_bound", item, k.counter_lower_bound);
  });
  // Absent in reports written before kernel classes.
  d.Objects(obj, "classes", path, [&](const Json& e, const std::string& item) {
    KernelClassStat& c = r.kernels.classes.emplace_back();
    d.String(e, "class", item, c.kernel_class);
    d.Integer(e, "launches", item, c.launches);
    d.Integer(e, "device_ns", item, c.device_ns);
  });
}

void DecodeCoverage(JsonFieldReader& d, const Json& obj, Coverage& c) {
  const std::string path = "$.coverage";
  d.Integer(obj, "hooked_calls", path, c.hooked_calls);
  d.Integer(obj, "callback_calls", path, c.callback_calls);
  d.Integer(obj, "cupti_only_calls", path, c.cupti_only_calls);
  d.Integer(obj, "calls_without_stack", path, c.calls_without_stack);
  d.Objects(obj, "without_stack", path, [&](const Json& e, const std::string& item) {
    CallsWithoutStack& row = c.without_stack.emplace_back();
    d.String(e, "api", item, row.api);
    d.Integer(e, "calls", item, row.calls);
  });
  d.Integer(obj, "untimed_device_ops", path, c.untimed_device_ops);
  d.Bool(obj, "complete", path, c.complete);
  d.Strings(obj, "gaps", path, c.gaps);
}

void DecodeVerdict(JsonFieldReader& d, const Json& obj, Verdict& v) {
  const std::string path = "$.verdict";
  d.String(obj, "regime", path, v.regime);
  d.String(obj, "why", path, v.why);
  // Absent in reports written before the runner-up, and for no-cuda-work.
  d.String(obj, "runner_up", path, v.runner_up);
  if (const Json* m = FindMember(obj, "margin_pts"); m != nullptr && !m->is_null()) {
    double margin = 0;
    d.Number(obj, "margin_pts", path, 100, margin);
    v.margin_pts = margin;
  }
  d.Bool(obj, "close", path, v.close);
  d.String(obj, "close_note", path, v.close_note);
  // Both absent in reports written before device regimes and advice.
  if (const Json* dr = d.Member(obj, "device_regime", path, Kind::object)) {
    DeviceRegime& out = v.device_regime.emplace();
    d.String(*dr, "regime", "$.verdict.device_regime", out.regime);
    d.String(*dr, "basis", "$.verdict.device_regime", out.basis);
    d.String(*dr, "why", "$.verdict.device_regime", out.why);
  }
  d.Strings(obj, "advice", path, v.advice);
}

// Everything but the timeline, the latency histogram and the job members.
void DecodeMembers(JsonFieldReader& d, const Json& root, Report& r) {
  const std::string path = "$";
  d.String(root, "command", path, r.command);
  d.Integer(root, "wall_ns", path, r.wall_ns);
  if (const Json* code = FindMember(root, "exit_code"); code != nullptr && code->is_null()) {
    r.exit_code_known = false;
  } else {
    d.Integer(root, "exit_code", path, r.exit_code);
  }
  d.String(root, "end", path, r.end);
  d.Bool(root, "host_only", path, r.host_only);
  d.String(root, "host_only_reason", path, r.host_only_reason);
  if (const Json* events = d.Member(root, "events", path, Kind::object)) {
    d.Integer(*events, "recorded", "$.events", r.events.recorded);
    d.Integer(*events, "dropped", "$.events", r.events.dropped);
    for (auto [name, counts] : {std::pair{"host", &r.events.host}, {"device", &r.events.device}}) {
      const std::string sub_path = absl::StrCat("$.events.", name);
      if (const Json* part = d.Member(*events, name, "$.events", Kind::object)) {
        d.Integer(*part, "recorded", sub_path, counts->recorded);
        d.Integer(*part, "dropped", sub_path, counts->dropped);
      }
    }
  }
  if (const Json* coverage = d.Member(root, "coverage", path, Kind::object)) {
    DecodeCoverage(d, *coverage, r.coverage.emplace());
  }
  // Absent in reports written before Python frames were reported.
  if (const Json* p = d.Member(root, "python", path, Kind::object)) {
    PythonFrames& python = r.python.emplace();
    d.String(*p, "status", "$.python", python.status);
    d.String(*p, "version", "$.python", python.version);
    d.Integer(*p, "frames_dropped", "$.python", python.frames_dropped);
    d.String(*p, "note", "$.python", python.note);
    // Absent when no torch was seen (and in reports written before PyTorch's labels).
    if (const Json* t = d.Member(*p, "torch", "$.python", Kind::object)) {
      d.String(*t, "version", "$.python.torch", python.torch_version);
      d.String(*t, "annotations", "$.python.torch", python.torch_annotations);
      d.String(*t, "reason", "$.python.torch", python.torch_reason);
    }
  }
  // Absent when the whole run was traced (and in reports written before sampled tracing).
  if (const Json* c = d.Member(root, "device_sampling", path, Kind::object)) {
    DeviceSampling& s = r.device_sampling.emplace();
    const std::string sp = "$.device_sampling";
    std::optional<double> fraction, scale;
    ReadOptionalDouble(d, *c, "fraction", sp, 1, fraction);
    ReadOptionalDouble(d, *c, "busy_pct", sp, 100, s.busy_pct);  // absent: nothing traced
    ReadOptionalDouble(d, *c, "busy_error_points", sp, 1e6, s.busy_error_points);
    ReadOptionalDouble(d, *c, "budget_pct", sp, 100, s.budget_pct);  // absent: no budget
    ReadOptionalDouble(d, *c, "scale", sp, 1e12, scale);
    s.fraction = fraction.value_or(1);
    s.scale = scale.value_or(1);
    d.Integer(*c, "windows", sp, s.windows);
    d.Integer(*c, "traced_launches", sp, s.traced_launches);
    d.Integer(*c, "traced_ns", sp, s.traced_ns);
    d.Integer(*c, "span_ns", sp, s.span_ns, int64_t{0});  // absent before it existed
    d.Integer(*c, "device", sp, s.device);
    d.Integer(*c, "error_windows", sp, s.error_windows);
    d.Integer(*c, "cupti_detaches", sp, s.cupti_detaches, uint64_t{0});  // absent before it existed
    d.Integer(*c, "calls_classified_early", sp, s.calls_classified_early, uint64_t{0});  // likewise
  }
  // Absent in reports written before the overhead estimate; each part absent when unknown.
  if (const Json* c = d.Member(root, "overhead", path, Kind::object)) {
    Overhead& o = r.overhead.emplace();
    const std::string op = "$.overhead";
    std::optional<double> pct;
    if (const Json* whole = FindMember(*c, "pct_of_wall"); whole == nullptr || !whole->is_null()) {
      ReadOptionalDouble(d, *c, "pct_of_wall", op, 1e9, pct);
    }
    ReadOptionalDouble(d, *c, "at_least_pct", op, 1e9, pct);  // absent before the lower bound
    o.pct_of_wall = pct.value_or(0);
    d.String(*c, "unmeasured", op, o.unmeasured);
    for (auto [key, out] :
         {std::pair{"hooks_ns", &o.hooks_ns}, std::pair{"device_tracing_ns", &o.device_tracing_ns},
          std::pair{"collector_cpu_ns", &o.collector_cpu_ns},
          std::pair{"hidden_by_device_ns", &o.hidden_by_device_ns}}) {
      if (d.Member(*c, key, op, Kind::number_integer) != nullptr) {
        int64_t v = 0;
        d.Integer(*c, key, op, v, int64_t{0});
        *out = v;
      }
    }
    d.String(*c, "basis", op, o.basis);
    // Reports written before `unmeasured` left device tracing out of a number without saying so.
    if (FindMember(*c, "at_least_pct") == nullptr && !o.device_tracing_ns.has_value()) {
      o.unmeasured = "device tracing";
    }
  }
  // Absent without an event trace.
  if (const Json* t = d.Member(root, "trace", path, Kind::object)) {
    TraceSummary& trace = r.trace.emplace();
    d.Integer(*t, "cap", "$.trace", trace.cap);
    d.Integer(*t, "kept", "$.trace", trace.kept);
    d.Integer(*t, "left_out", "$.trace", trace.left_out);
    d.Integer(*t, "span_ns", "$.trace", trace.span_ns, int64_t{0});
  }
  // Absent in reports written before capture ranges.
  if (const Json* c = d.Member(root, "capture", path, Kind::object)) {
    Capture& capture = r.capture.emplace();
    d.String(*c, "mode", "$.capture", capture.mode);
    d.String(*c, "nvtx_name", "$.capture", capture.nvtx_name);
    d.Integer(*c, "ranges", "$.capture", capture.ranges);
    d.Integer(*c, "captured_ns", "$.capture", capture.captured_ns);
    d.Integer(*c, "records_dropped", "$.capture", capture.records_dropped);
  }
  d.Objects(root, "api", path, [&](const Json& e, const std::string& item) {
    ApiStat& a = r.api.emplace_back();
    d.String(e, "name", item, a.name);
    d.String(e, "category", item, a.category);
    d.Integer(e, "calls", item, a.calls);
    d.Integer(e, "total_ns", item, a.total_ns);
    d.Integer(e, "p50_ns", item, a.p50_ns);
    d.Integer(e, "p99_ns", item, a.p99_ns);
  });
  if (const Json* kernels = d.Member(root, "kernels", path, Kind::object)) {
    DecodeKernels(d, *kernels, r);
  }
  if (const Json* lat = d.Member(root, "launch_latency_ns", path, Kind::object)) {
    const std::string lat_path = "$.launch_latency_ns";
    d.Integer(*lat, "count", lat_path, r.launch_latency_ns.count);
    d.Integer(*lat, "p50", lat_path, r.launch_latency_ns.p50);
    d.Integer(*lat, "p90", lat_path, r.launch_latency_ns.p90);
    d.Integer(*lat, "p99", lat_path, r.launch_latency_ns.p99);
    d.Integer(*lat, "max", lat_path, r.launch_latency_ns.max);
  }
  DecodeDevices(d, root, path, r.devices);
  d.Objects(root, "stalls", path, [&](const Json& e, const std::string& item) {
    DecodeStallRow(d, e, item, r.stalls.emplace_back());
  });
  // Absent in reports written before syncing calls were counted.
  if (const Json* sc = d.Member(root, "sync_calls", path, Kind::object)) {
    SyncCalls& syncs = r.sync_calls.emplace();
    d.Integer(*sc, "calls", "$.sync_calls", syncs.calls);
    d.Integer(*sc, "sites", "$.sync_calls", syncs.sites);
    d.Objects(*sc, "rows", "$.sync_calls", [&](const Json& e, const std::string& item) {
      DecodeStallRow(d, e, item, syncs.rows.emplace_back());
    });
  }
  // Absent in reports written before NVTX phases existed.
  d.Objects(root, "phases", path, [&](const Json& e, const std::string& item) {
    Phase& p = r.phases.emplace_back();
    d.String(e, "name", item, p.name);
    d.Integer(e, "calls", item, p.calls);
    d.Integer(e, "wall_ns", item, p.wall_ns);
    d.Integer(e, "launches", item, p.launches);
    d.Integer(e, "device_ns", item, p.device_ns);
    d.Integer(e, "stall_ns", item, p.stall_ns);
    DecodeIdle(d, e, item, p.idle);
  });
  d.Integer(root, "phases_over_cap", path, r.phases_over_cap);
  // Absent in reports written before launch sites were sampled.
  d.Integer(root, "launch_sample_period", path, r.launch_sample_period);
  // Absent in reports written before it (the stall rows stand in).
  d.Objects(root, "stall_reasons", path, [&](const Json& e, const std::string& item) {
    StallReasonTotal& t = r.stall_reasons.emplace_back();
    d.String(e, "reason", item, t.reason);
    d.Integer(e, "calls", item, t.calls);
    d.Integer(e, "total_ns", item, t.total_ns);
  });
  d.Objects(root, "launch_sites", path, [&](const Json& e, const std::string& item) {
    LaunchSite& site = r.launch_sites.emplace_back();
    d.Integer(e, "launches", item, site.launches);
    d.Strings(e, "stack", item, site.stack);
    d.Integer(e, "plumbing_frames", item, site.plumbing_frames);
    d.String(e, "ended_early", item, site.ended_early);
    // Absent without device tracing, and in reports written before it.
    d.Objects(e, "kernels", item, [&](const Json& k, const std::string& kernel_item) {
      LaunchKernel& kernel = site.kernels.emplace_back();
      d.String(k, "name", kernel_item, kernel.name);
      d.Integer(k, "device", kernel_item, kernel.device);
      d.Integer(k, "kernels", kernel_item, kernel.kernels);
      d.Integer(k, "device_ns", kernel_item, kernel.device_ns);
    });
  });
  // Absent when no stack was captured, and in reports written before this count.
  if (const Json* e = d.Member(root, "stack_ends", path, Kind::object)) {
    StackEnds& ends = r.stack_ends.emplace();
    d.Integer(*e, "stacks", "$.stack_ends", ends.stacks);
    d.Integer(*e, "whole", "$.stack_ends", ends.whole);
    d.Objects(*e, "ended_early", "$.stack_ends",
              [&](const Json& row, const std::string& item) {
                StackEnds::Ended& ended = ends.ended_early.emplace_back();
                d.String(row, "kind", item, ended.kind);
                d.Integer(row, "stacks", item, ended.stacks);
                d.Integer(row, "calls", item, ended.calls);
              });
  }
  if (const Json* verdict = d.Member(root, "verdict", path, Kind::object)) {
    DecodeVerdict(d, *verdict, r.verdict);
  }
}

}  // namespace

absl::StatusOr<Report> ParseReportJson(absl::string_view json) {
  absl::StatusOr<Json> parsed = ParseStrictJson(json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("report ", parsed.status().message()));
  }
  const Json& root = *parsed;
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("report JSON: the document is ", root.type_name(), ", expected an object"));
  }
  const Json* schema = FindMember(root, "schema");
  const std::string* schema_text =
      schema == nullptr ? nullptr : schema->get_ptr<const Json::string_t*>();
  if (schema_text == nullptr) {
    return absl::InvalidArgumentError("report JSON: no \"schema\" string; not a brrr report");
  }
  if (*schema_text != kReportSchema) {
    return absl::InvalidArgumentError(
        absl::StrCat("report JSON: schema \"", absl::CHexEscape(schema_text->substr(0, 64)),
                     "\" is not supported; this brrr reads \"", kReportSchema, "\""));
  }

  Report r;
  JsonFieldReader d;
  DecodeMembers(d, root, r);
  if (!d.ok()) return d.status();
  // Both absent in reports written before the timeline and the latency histogram.
  if (absl::Status timeline = DecodeTimeline(root, r); !timeline.ok()) return timeline;
  if (const Json* lat = FindMember(root, "launch_latency_ns")) {  // an object: checked above
    if (absl::Status h = DecodeLatencyHistogram(*lat, r.launch_latency_ns); !h.ok()) return h;
  }
  // Absent without steps (and in reports written before them).
  if (absl::Status steps = DecodeSteps(root, r); !steps.ok()) return steps;
  // Absent in reports of one process written before multi-process jobs.
  if (absl::Status job = DecodeJobMembers(root, r); !job.ok()) return job;
  return r;
}

}  // namespace brrr
