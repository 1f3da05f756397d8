// Report -> JSON "brrr.report/1", built as an nlohmann::ordered_json document (member order
// follows the schema in BRRR_FORMAT.md) and dumped by nlohmann.
//
// Must never: drop or reorder schema fields, round integers (int64 and uint64 are written exactly),
// or throw: strings from outside (kernel names, file names, Python qualnames) may be invalid
// UTF-8, so the dump replaces such bytes with U+FFFD instead of failing.
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "viewer/format/breakdown_json.h"
#include "viewer/format/job_json.h"
#include "viewer/format/json_object_builder.h"
#include "viewer/format/report_json.h"
#include "viewer/format/steps_json.h"
#include "viewer/format/timeline_json.h"

namespace brrr {
namespace {

using Json = nlohmann::ordered_json;


Json Strings(const std::vector<std::string>& list) {
  Json out = JsonArrayWithRoom(list.size());
  for (const std::string& s : list) out.push_back(s);
  return out;
}


Json ApiJson(const std::vector<ApiStat>& api) {
  Json out = JsonArrayWithRoom(api.size());
  for (const ApiStat& a : api) {
    out.push_back(JsonObjectBuilder(6)
                      .Add("name", a.name)
                      .Add("category", a.category)
                      .Add("calls", a.calls)
                      .Add("total_ns", a.total_ns)
                      .Add("p50_ns", a.p50_ns)
                      .Add("p99_ns", a.p99_ns)
                      .Build());
  }
  return out;
}

// Adds `value` as member `key` when it is set and finite (JSON has no NaN or infinity).
void OptionalDouble(JsonObjectBuilder& obj, const char* key, const std::optional<double>& value) {
  if (value.has_value() && std::isfinite(*value)) obj.Add(key, *value);
}

Json KernelJson(const KernelStat& k) {
  JsonObjectBuilder out(10);
  out.Add("name", k.name)
      .Add("launches", k.launches)
      .Add("device_ns", k.device_ns)
      .Add("mean_ns", k.mean_ns)
      .Add("class", k.kernel_class);
  // Hardware counters: only for kernels they were joined to.
  OptionalDouble(out, "achieved_sm_pct", k.achieved_sm_pct);
  OptionalDouble(out, "achieved_dram_pct", k.achieved_dram_pct);
  OptionalDouble(out, "counter_coverage", k.counter_coverage);
  OptionalDouble(out, "counter_shared", k.counter_shared);
  if (k.counter_lower_bound) out.Add("counter_lower_bound", true);
  return out.Build();
}

Json KernelsJson(const Report& r) {
  Json top = JsonArrayWithRoom(r.kernels.top.size());
  for (const KernelStat& k : r.kernels.top) top.push_back(KernelJson(k));
  Json classes = JsonArrayWithRoom(r.kernels.classes.size());
  for (const KernelClassStat& c : r.kernels.classes) {
    classes.push_back(JsonObjectBuilder(3)
                          .Add("class", c.kernel_class)
                          .Add("launches", c.launches)
                          .Add("device_ns", c.device_ns)
                          .Build());
  }
  JsonObjectBuilder out(6);
  out.Add("launches", r.kernels.launches)
      .Add("launch_calls", r.kernels.launch_calls)
      .Add("device_ns", r.kernels.device_ns);
  if (r.kernels.estimated) out.Add("estimated", true);  // scaled from sampled tracing
  if (r.kernels.counters.has_value()) {
    const KernelCounterJoin& c = *r.kernels.counters;
    JsonObjectBuilder counters(13);
    counters.Add("clock", c.clock)
        .Add("samples", c.samples)
        .Add("samples_unaligned", c.samples_unaligned)
        .Add("samples_late", c.samples_late)
        .Add("kernels_late", c.kernels_late);
    if (!c.unavailable.empty()) counters.Add("unavailable", c.unavailable);
    if (!c.metrics.empty()) counters.Add("metrics", c.metrics);
    OptionalDouble(counters, "busy_sm_pct", c.busy_sm_pct);
    OptionalDouble(counters, "busy_dram_pct", c.busy_dram_pct);
    if (c.busy_sm_pct.has_value() || c.busy_dram_pct.has_value()) {
      counters.Add("busy_samples", c.busy_samples);
    }
    counters.Add("device", c.device)
        .Add("other_device_kernels", c.other_device_kernels)
        .Add("other_device_ns", c.other_device_ns);
    out.Add("counters", counters.Build());
  }
  return out.Add("top", std::move(top)).Add("classes", std::move(classes)).Build();
}

Json LatencyJson(const LatencySummary& l) {
  return JsonObjectBuilder(6)
      .Add("count", l.count)
      .Add("p50", l.p50)
      .Add("p90", l.p90)
      .Add("p99", l.p99)
      .Add("max", l.max)
      .Add("histogram", LatencyHistogramJson(l))
      .Build();
}

Json StallsJson(const std::vector<Stall>& stalls) {
  Json out = JsonArrayWithRoom(stalls.size());
  for (const Stall& s : stalls) {
    JsonObjectBuilder row(7);
    row.Add("api", s.api)
        .Add("reason", s.reason)
        .Add("calls", s.calls)
        .Add("total_ns", s.total_ns)
        .Add("stack", Strings(s.stack));
    if (s.plumbing_frames > 0) row.Add("plumbing_frames", s.plumbing_frames);
    if (!s.ended_early.empty()) row.Add("ended_early", s.ended_early);
    out.push_back(row.Build());
  }
  return out;
}

Json PhasesJson(const std::vector<Phase>& phases) {
  Json out = JsonArrayWithRoom(phases.size());
  for (const Phase& p : phases) {
    out.push_back(JsonObjectBuilder(7)
                      .Add("name", p.name)
                      .Add("calls", p.calls)
                      .Add("wall_ns", p.wall_ns)
                      .Add("launches", p.launches)
                      .Add("device_ns", p.device_ns)
                      .Add("stall_ns", p.stall_ns)
                      .Add("idle", IdleJson(p.idle))
                      .Build());
  }
  return out;
}

Json CaptureJson(const Capture& c) {
  return JsonObjectBuilder(5)
      .Add("mode", c.mode)
      .Add("nvtx_name", c.nvtx_name)
      .Add("ranges", c.ranges)
      .Add("captured_ns", c.captured_ns)
      .Add("records_dropped", c.records_dropped)
      .Build();
}

Json DeviceSamplingJson(const DeviceSampling& s) {
  JsonObjectBuilder out(11);
  out.Add("fraction", s.fraction);
  OptionalDouble(out, "budget_pct", s.budget_pct);
  out.Add("windows", s.windows)
      .Add("traced_ns", s.traced_ns)
      .Add("span_ns", s.span_ns)
      .Add("traced_launches", s.traced_launches)
      .Add("scale", s.scale)
      .Add("device", s.device);
  OptionalDouble(out, "busy_pct", s.busy_pct);
  OptionalDouble(out, "busy_error_points", s.busy_error_points);
  out.Add("error_windows", s.error_windows);
  out.Add("cupti_detaches", s.cupti_detaches);
  out.Add("calls_classified_early", s.calls_classified_early);
  return out.Build();
}

Json OverheadJson(const Overhead& o) {
  JsonObjectBuilder out(8);
  out.Add("pct_of_wall", o.unmeasured.empty() ? Json(o.pct_of_wall) : Json(nullptr))
      .Add("at_least_pct", o.pct_of_wall);
  if (!o.unmeasured.empty()) out.Add("unmeasured", o.unmeasured);
  if (o.hooks_ns.has_value()) out.Add("hooks_ns", *o.hooks_ns);
  if (o.device_tracing_ns.has_value()) out.Add("device_tracing_ns", *o.device_tracing_ns);
  if (o.collector_cpu_ns.has_value()) out.Add("collector_cpu_ns", *o.collector_cpu_ns);
  if (o.hidden_by_device_ns.has_value()) out.Add("hidden_by_device_ns", *o.hidden_by_device_ns);
  out.Add("basis", o.basis);
  return out.Build();
}

Json PythonJson(const PythonFrames& p) {
  JsonObjectBuilder out(5);
  out.Add("status", p.status)
      .Add("version", p.version)
      .Add("frames_dropped", p.frames_dropped)
      .Add("note", p.note);
  if (!p.torch_annotations.empty()) {
    out.Add("torch", JsonObjectBuilder(3)
                         .Add("version", p.torch_version)
                         .Add("annotations", p.torch_annotations)
                         .Add("reason", p.torch_reason)
                         .Build());
  }
  return out.Build();
}

Json LaunchSitesJson(const std::vector<LaunchSite>& sites) {
  Json out = JsonArrayWithRoom(sites.size());
  for (const LaunchSite& site : sites) {
    JsonObjectBuilder row(5);
    row.Add("stack", Strings(site.stack)).Add("launches", site.launches);
    if (site.plumbing_frames > 0) row.Add("plumbing_frames", site.plumbing_frames);
    if (!site.ended_early.empty()) row.Add("ended_early", site.ended_early);
    if (!site.kernels.empty()) {
      Json kernels = JsonArrayWithRoom(site.kernels.size());
      for (const LaunchKernel& k : site.kernels) {
        kernels.push_back(JsonObjectBuilder(4)
                              .Add("name", k.name)
                              .Add("device", k.device)
                              .Add("kernels", k.kernels)
                              .Add("device_ns", k.device_ns)
                              .Build());
      }
      row.Add("kernels", std::move(kernels));
    }
    out.push_back(row.Build());
  }
  return out;
}

Json StackEndsJson(const StackEnds& e) {
  Json ended = JsonArrayWithRoom(e.ended_early.size());
  for (const StackEnds::Ended& row : e.ended_early) {
    ended.push_back(JsonObjectBuilder(3)
                        .Add("kind", row.kind)
                        .Add("stacks", row.stacks)
                        .Add("calls", row.calls)
                        .Build());
  }
  return JsonObjectBuilder(3)
      .Add("stacks", e.stacks)
      .Add("whole", e.whole)
      .Add("ended_early", std::move(ended))
      .Build();
}

Json CoverageJson(const Coverage& c) {
  Json without_stack = JsonArrayWithRoom(c.without_stack.size());
  for (const CallsWithoutStack& row : c.without_stack) {
    without_stack.push_back(
        JsonObjectBuilder(2).Add("api", row.api).Add("calls", row.calls).Build());
  }
  return JsonObjectBuilder(8)
      .Add("hooked_calls", c.hooked_calls)
      .Add("callback_calls", c.callback_calls)
      .Add("cupti_only_calls", c.cupti_only_calls)
      .Add("calls_without_stack", c.calls_without_stack)
      .Add("without_stack", std::move(without_stack))
      .Add("untimed_device_ops", c.untimed_device_ops)
      .Add("complete", c.complete)
      .Add("gaps", Strings(c.gaps))
      .Build();
}

Json EventCountsJson(const Report::EventCounts& counts) {
  return JsonObjectBuilder(2)
      .Add("recorded", counts.recorded)
      .Add("dropped", counts.dropped)
      .Build();
}

Json VerdictJson(const Verdict& v) {
  JsonObjectBuilder out(9);
  out.Add("regime", v.regime).Add("why", v.why);
  if (!v.runner_up.empty()) {
    out.Add("runner_up", v.runner_up)
        .Add("margin_pts", v.margin_pts.has_value() ? Json(*v.margin_pts) : Json(nullptr))
        .Add("close", v.close);
    if (v.close) out.Add("close_note", v.close_note);
  }
  if (v.device_regime.has_value()) {
    const DeviceRegime& dr = *v.device_regime;
    out.Add("device_regime", JsonObjectBuilder(3)
                                 .Add("regime", dr.regime)
                                 .Add("basis", dr.basis)
                                 .Add("why", dr.why)
                                 .Build());
  }
  return out.Add("advice", Strings(v.advice)).Build();
}

Json ReportDocument(const Report& r) {
  JsonObjectBuilder doc(32);
  doc.Add("schema", r.schema)
      .Add("command", r.command)
      .Add("wall_ns", r.wall_ns)
      .Add("exit_code", r.exit_code_known ? Json(r.exit_code) : Json(nullptr));
  if (!r.end.empty()) doc.Add("end", r.end);
  doc.Add("host_only", r.host_only)
      .Add("host_only_reason", r.host_only_reason)
      .Add("events", JsonObjectBuilder(4)
                         .Add("recorded", r.events.recorded)
                         .Add("dropped", r.events.dropped)
                         .Add("host", EventCountsJson(r.events.host))
                         .Add("device", EventCountsJson(r.events.device))
                         .Build());
  if (r.coverage.has_value()) doc.Add("coverage", CoverageJson(*r.coverage));
  if (r.python.has_value()) doc.Add("python", PythonJson(*r.python));
  if (r.capture.has_value()) doc.Add("capture", CaptureJson(*r.capture));
  if (r.device_sampling.has_value()) {
    doc.Add("device_sampling", DeviceSamplingJson(*r.device_sampling));
  }
  if (r.overhead.has_value()) doc.Add("overhead", OverheadJson(*r.overhead));
  if (r.trace.has_value()) {
    doc.Add("trace", JsonObjectBuilder(4)
                         .Add("cap", r.trace->cap)
                         .Add("kept", r.trace->kept)
                         .Add("left_out", r.trace->left_out)
                         .Add("span_ns", r.trace->span_ns)
                         .Build());
  }
  doc.Add("api", ApiJson(r.api))
      .Add("kernels", KernelsJson(r))
      .Add("launch_latency_ns", LatencyJson(r.launch_latency_ns))
      .Add("devices", DevicesJson(r.devices));
  if (r.timeline.has_value()) doc.Add("timeline", TimelineJson(*r.timeline));
  Json reasons = JsonArrayWithRoom(r.stall_reasons.size());
  for (const StallReasonTotal& t : r.stall_reasons) {
    reasons.push_back(JsonObjectBuilder(3)
                          .Add("reason", t.reason)
                          .Add("calls", t.calls)
                          .Add("total_ns", t.total_ns)
                          .Build());
  }
  doc.Add("stalls", StallsJson(r.stalls)).Add("stall_reasons", std::move(reasons));
  if (r.sync_calls.has_value()) {
    doc.Add("sync_calls", JsonObjectBuilder(3)
                              .Add("calls", r.sync_calls->calls)
                              .Add("sites", r.sync_calls->sites)
                              .Add("rows", StallsJson(r.sync_calls->rows))
                              .Build());
  }
  doc
      .Add("phases", PhasesJson(r.phases))
      .Add("phases_over_cap", r.phases_over_cap)
      .Add("launch_sample_period", r.launch_sample_period)
      .Add("launch_sites", LaunchSitesJson(r.launch_sites));
  if (r.stack_ends.has_value()) doc.Add("stack_ends", StackEndsJson(*r.stack_ends));
  if (r.steps.has_value()) doc.Add("steps", StepsJson(*r.steps));
  doc.Add("verdict", VerdictJson(r.verdict));
  AddJobMembers(doc, r);  // process, processes, job: when the report has them
  return doc.Build();
}

// indent -1: one line; otherwise that many spaces per level and a trailing newline.
std::string Render(const Report& r, int indent) {
  try {
    std::string out = ReportDocument(r).dump(indent, ' ', /*ensure_ascii=*/false,
                                             nlohmann::json::error_handler_t::replace);
    if (indent >= 0) out.push_back('\n');
    return out;
  } catch (const nlohmann::json::exception&) {
    // Not reached: with error_handler_t::replace, dump() throws nothing of its own. Should it
    // ever, an empty document fails loudly in every reader instead of passing as a report.
    return std::string();
  }
}

}  // namespace

std::string RenderJson(const Report& report) { return Render(report, /*indent=*/2); }

std::string RenderJsonCompact(const Report& report) { return Render(report, /*indent=*/-1); }

}  // namespace brrr
