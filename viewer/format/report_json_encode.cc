// Report -> JSON "brrr.report/1", built as an nlohmann::ordered_json document (member order
// follows the schema in BRRR_FORMAT.md) and dumped by nlohmann.
//
// Must never: drop or reorder schema fields, round integers (int64 and uint64 are written exactly),
// or throw: strings from outside (kernel names, file names, Python qualnames) may be invalid
// UTF-8, so the dump replaces such bytes with U+FFFD instead of failing.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "viewer/format/job_json.h"
#include "viewer/format/report_json.h"
#include "viewer/format/timeline_json.h"

namespace brrr {
namespace {

using Json = nlohmann::ordered_json;

Json Strings(const std::vector<std::string>& list) {
  Json out = Json::array();
  for (const std::string& s : list) out.push_back(s);
  return out;
}

Json IdleJson(const IdleBreakdown& idle) {
  return {{"launch_bound_ns", idle.launch_bound_ns},
          {"sync_drain_ns", idle.sync_drain_ns},
          {"host_outside_cuda_ns", idle.host_outside_cuda_ns}};
}

Json ApiJson(const std::vector<ApiStat>& api) {
  Json out = Json::array();
  for (const ApiStat& a : api) {
    out.push_back({{"name", a.name},
                   {"category", a.category},
                   {"calls", a.calls},
                   {"total_ns", a.total_ns},
                   {"p50_ns", a.p50_ns},
                   {"p99_ns", a.p99_ns}});
  }
  return out;
}

// Adds `value` as member `key` when it is set and finite (JSON has no NaN or infinity).
void OptionalDouble(Json& obj, const char* key, const std::optional<double>& value) {
  if (value.has_value() && std::isfinite(*value)) obj[key] = *value;
}

Json KernelJson(const KernelStat& k) {
  Json out = {{"name", k.name},
              {"launches", k.launches},
              {"device_ns", k.device_ns},
              {"mean_ns", k.mean_ns},
              {"class", k.kernel_class}};
  // Hardware counters: only for kernels they were joined to.
  OptionalDouble(out, "achieved_sm_pct", k.achieved_sm_pct);
  OptionalDouble(out, "achieved_dram_pct", k.achieved_dram_pct);
  OptionalDouble(out, "counter_coverage", k.counter_coverage);
  OptionalDouble(out, "counter_shared", k.counter_shared);
  if (k.counter_lower_bound) out["counter_lower_bound"] = true;
  return out;
}

Json KernelsJson(const Report& r) {
  Json top = Json::array();
  for (const KernelStat& k : r.kernels.top) top.push_back(KernelJson(k));
  Json classes = Json::array();
  for (const KernelClassStat& c : r.kernels.classes) {
    classes.push_back(
        {{"class", c.kernel_class}, {"launches", c.launches}, {"device_ns", c.device_ns}});
  }
  Json out = {{"launches", r.kernels.launches},
              {"launch_calls", r.kernels.launch_calls},
              {"device_ns", r.kernels.device_ns}};
  if (r.kernels.counters.has_value()) {
    const KernelCounterJoin& c = *r.kernels.counters;
    out["counters"] = {{"clock", c.clock},
                       {"samples", c.samples},
                       {"samples_unaligned", c.samples_unaligned},
                       {"samples_late", c.samples_late},
                       {"kernels_late", c.kernels_late}};
  }
  out["top"] = std::move(top);
  out["classes"] = std::move(classes);
  return out;
}

Json LatencyJson(const LatencySummary& l) {
  return {{"count", l.count},
          {"p50", l.p50},
          {"p90", l.p90},
          {"p99", l.p99},
          {"max", l.max},
          {"histogram", LatencyHistogramJson(l)}};
}

Json DevicesJson(const std::vector<DeviceBreakdown>& devices) {
  Json out = Json::array();
  for (const DeviceBreakdown& d : devices) {
    out.push_back({{"id", d.id},
                   {"wall_ns", d.wall_ns},
                   {"busy_ns", d.busy_ns},
                   {"idle", IdleJson(d.idle)},
                   {"startup_ns", d.startup_ns},
                   {"teardown_ns", d.teardown_ns}});
  }
  return out;
}

Json StallsJson(const std::vector<Stall>& stalls) {
  Json out = Json::array();
  for (const Stall& s : stalls) {
    out.push_back({{"api", s.api},
                   {"reason", s.reason},
                   {"calls", s.calls},
                   {"total_ns", s.total_ns},
                   {"stack", Strings(s.stack)}});
  }
  return out;
}

Json PhasesJson(const std::vector<Phase>& phases) {
  Json out = Json::array();
  for (const Phase& p : phases) {
    out.push_back({{"name", p.name},
                   {"calls", p.calls},
                   {"wall_ns", p.wall_ns},
                   {"launches", p.launches},
                   {"device_ns", p.device_ns},
                   {"stall_ns", p.stall_ns},
                   {"idle", IdleJson(p.idle)}});
  }
  return out;
}

Json CaptureJson(const Capture& c) {
  return {{"mode", c.mode},
          {"nvtx_name", c.nvtx_name},
          {"ranges", c.ranges},
          {"captured_ns", c.captured_ns},
          {"records_dropped", c.records_dropped}};
}

Json PythonJson(const PythonFrames& p) {
  return {{"status", p.status},
          {"version", p.version},
          {"frames_dropped", p.frames_dropped},
          {"note", p.note}};
}

Json LaunchSitesJson(const std::vector<LaunchSite>& sites) {
  Json out = Json::array();
  for (const LaunchSite& site : sites) {
    out.push_back({{"stack", Strings(site.stack)}, {"launches", site.launches}});
  }
  return out;
}

Json CoverageJson(const Coverage& c) {
  Json without_stack = Json::array();
  for (const CallsWithoutStack& row : c.without_stack) {
    without_stack.push_back({{"api", row.api}, {"calls", row.calls}});
  }
  return {{"hooked_calls", c.hooked_calls},
          {"callback_calls", c.callback_calls},
          {"cupti_only_calls", c.cupti_only_calls},
          {"calls_without_stack", c.calls_without_stack},
          {"without_stack", std::move(without_stack)},
          {"complete", c.complete},
          {"gaps", Strings(c.gaps)}};
}

Json EventCountsJson(const Report::EventCounts& counts) {
  return {{"recorded", counts.recorded}, {"dropped", counts.dropped}};
}

Json VerdictJson(const Verdict& v) {
  Json out = {{"regime", v.regime}, {"why", v.why}};
  if (v.device_regime.has_value()) {
    const DeviceRegime& dr = *v.device_regime;
    out["device_regime"] = {{"regime", dr.regime}, {"basis", dr.basis}, {"why", dr.why}};
  }
  out["advice"] = Strings(v.advice);
  return out;
}

Json ReportDocument(const Report& r) {
  Json doc = Json::object();
  doc["schema"] = r.schema;
  doc["command"] = r.command;
  doc["wall_ns"] = r.wall_ns;
  doc["exit_code"] = r.exit_code_known ? Json(r.exit_code) : Json(nullptr);
  if (!r.end.empty()) doc["end"] = r.end;
  doc["host_only"] = r.host_only;
  doc["host_only_reason"] = r.host_only_reason;
  doc["events"] = {{"recorded", r.events.recorded},
                   {"dropped", r.events.dropped},
                   {"host", EventCountsJson(r.events.host)},
                   {"device", EventCountsJson(r.events.device)}};
  if (r.coverage.has_value()) doc["coverage"] = CoverageJson(*r.coverage);
  if (r.python.has_value()) doc["python"] = PythonJson(*r.python);
  if (r.capture.has_value()) doc["capture"] = CaptureJson(*r.capture);
  doc["api"] = ApiJson(r.api);
  doc["kernels"] = KernelsJson(r);
  doc["launch_latency_ns"] = LatencyJson(r.launch_latency_ns);
  doc["devices"] = DevicesJson(r.devices);
  if (r.timeline.has_value()) doc["timeline"] = TimelineJson(*r.timeline);
  doc["stalls"] = StallsJson(r.stalls);
  doc["phases"] = PhasesJson(r.phases);
  doc["phases_over_cap"] = r.phases_over_cap;
  doc["launch_sample_period"] = r.launch_sample_period;
  doc["launch_sites"] = LaunchSitesJson(r.launch_sites);
  doc["verdict"] = VerdictJson(r.verdict);
  AddJobMembers(doc, r);  // process, processes, job: when the report has them
  return doc;
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
