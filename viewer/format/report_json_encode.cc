// Report -> JSON "brrr.report/1". Member order follows the schema in the issue/BRRR_FORMAT.md.
//
// Must never: drop or reorder schema fields, or round integers (they are written exactly).
#include "viewer/format/report_json.h"

#include "viewer/format/job_json.h"
#include "viewer/format/json_writer.h"
#include "viewer/format/timeline_json.h"

namespace brrr {
namespace {

void WriteApi(JsonWriter& w, const std::vector<ApiStat>& api) {
  w.BeginArray();
  for (const ApiStat& a : api) {
    w.BeginObject();
    w.StringMember("name", a.name);
    w.StringMember("category", a.category);
    w.UintMember("calls", a.calls);
    w.IntMember("total_ns", a.total_ns);
    w.IntMember("p50_ns", a.p50_ns);
    w.IntMember("p99_ns", a.p99_ns);
    w.EndObject();
  }
  w.EndArray();
}

void WriteKernels(JsonWriter& w, const Report& r) {
  w.BeginObject();
  w.UintMember("launches", r.kernels.launches);
  w.UintMember("launch_calls", r.kernels.launch_calls);
  w.IntMember("device_ns", r.kernels.device_ns);
  w.Key("top");
  w.BeginArray();
  for (const KernelStat& k : r.kernels.top) {
    w.BeginObject();
    w.StringMember("name", k.name);
    w.UintMember("launches", k.launches);
    w.IntMember("device_ns", k.device_ns);
    w.IntMember("mean_ns", k.mean_ns);
    w.StringMember("class", k.kernel_class);
    w.EndObject();
  }
  w.EndArray();
  w.Key("classes");
  w.BeginArray();
  for (const KernelClassStat& c : r.kernels.classes) {
    w.BeginObject();
    w.StringMember("class", c.kernel_class);
    w.UintMember("launches", c.launches);
    w.IntMember("device_ns", c.device_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteLatency(JsonWriter& w, const LatencySummary& l) {
  w.BeginObject();
  w.UintMember("count", l.count);
  w.IntMember("p50", l.p50);
  w.IntMember("p90", l.p90);
  w.IntMember("p99", l.p99);
  w.IntMember("max", l.max);
  WriteLatencyHistogram(w, l);
  w.EndObject();
}

void WriteDevices(JsonWriter& w, const std::vector<DeviceBreakdown>& devices) {
  w.BeginArray();
  for (const DeviceBreakdown& d : devices) {
    w.BeginObject();
    w.UintMember("id", d.id);
    w.IntMember("wall_ns", d.wall_ns);
    w.IntMember("busy_ns", d.busy_ns);
    w.Key("idle");
    w.BeginObject();
    w.IntMember("launch_bound_ns", d.idle.launch_bound_ns);
    w.IntMember("sync_drain_ns", d.idle.sync_drain_ns);
    w.IntMember("host_outside_cuda_ns", d.idle.host_outside_cuda_ns);
    w.EndObject();
    w.IntMember("startup_ns", d.startup_ns);
    w.IntMember("teardown_ns", d.teardown_ns);
    w.EndObject();
  }
  w.EndArray();
}

void WriteStalls(JsonWriter& w, const std::vector<Stall>& stalls) {
  w.BeginArray();
  for (const Stall& s : stalls) {
    w.BeginObject();
    w.StringMember("api", s.api);
    w.StringMember("reason", s.reason);
    w.UintMember("calls", s.calls);
    w.IntMember("total_ns", s.total_ns);
    w.Key("stack");
    w.BeginArray();
    for (const std::string& frame : s.stack) w.String(frame);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void WritePhases(JsonWriter& w, const std::vector<Phase>& phases) {
  w.BeginArray();
  for (const Phase& p : phases) {
    w.BeginObject();
    w.StringMember("name", p.name);
    w.UintMember("calls", p.calls);
    w.IntMember("wall_ns", p.wall_ns);
    w.UintMember("launches", p.launches);
    w.IntMember("device_ns", p.device_ns);
    w.IntMember("stall_ns", p.stall_ns);
    w.Key("idle");
    w.BeginObject();
    w.IntMember("launch_bound_ns", p.idle.launch_bound_ns);
    w.IntMember("sync_drain_ns", p.idle.sync_drain_ns);
    w.IntMember("host_outside_cuda_ns", p.idle.host_outside_cuda_ns);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
}

void WriteCapture(JsonWriter& w, const Capture& c) {
  w.BeginObject();
  w.StringMember("mode", c.mode);
  w.StringMember("nvtx_name", c.nvtx_name);
  w.UintMember("ranges", c.ranges);
  w.IntMember("captured_ns", c.captured_ns);
  w.UintMember("records_dropped", c.records_dropped);
  w.EndObject();
}

void WritePython(JsonWriter& w, const PythonFrames& p) {
  w.BeginObject();
  w.StringMember("status", p.status);
  w.StringMember("version", p.version);
  w.UintMember("frames_dropped", p.frames_dropped);
  w.StringMember("note", p.note);
  w.EndObject();
}

void WriteLaunchSites(JsonWriter& w, const std::vector<LaunchSite>& sites) {
  w.BeginArray();
  for (const LaunchSite& site : sites) {
    w.BeginObject();
    w.Key("stack");
    w.BeginArray();
    for (const std::string& frame : site.stack) w.String(frame);
    w.EndArray();
    w.UintMember("launches", site.launches);
    w.EndObject();
  }
  w.EndArray();
}

void WriteCoverage(JsonWriter& w, const Coverage& c) {
  w.BeginObject();
  w.UintMember("hooked_calls", c.hooked_calls);
  w.UintMember("callback_calls", c.callback_calls);
  w.UintMember("cupti_only_calls", c.cupti_only_calls);
  w.UintMember("calls_without_stack", c.calls_without_stack);
  w.Key("without_stack");
  w.BeginArray();
  for (const CallsWithoutStack& row : c.without_stack) {
    w.BeginObject();
    w.StringMember("api", row.api);
    w.UintMember("calls", row.calls);
    w.EndObject();
  }
  w.EndArray();
  w.BoolMember("complete", c.complete);
  w.Key("gaps");
  w.BeginArray();
  for (const std::string& gap : c.gaps) w.String(gap);
  w.EndArray();
  w.EndObject();
}

std::string Render(const Report& r, bool pretty) {
  JsonWriter w(pretty);
  w.BeginObject();
  w.StringMember("schema", r.schema);
  w.StringMember("command", r.command);
  w.IntMember("wall_ns", r.wall_ns);
  w.Key("exit_code");
  if (r.exit_code_known) {
    w.Int(r.exit_code);
  } else {
    w.Null();
  }
  if (!r.end.empty()) w.StringMember("end", r.end);
  w.BoolMember("host_only", r.host_only);
  w.StringMember("host_only_reason", r.host_only_reason);
  w.Key("events");
  w.BeginObject();
  w.UintMember("recorded", r.events.recorded);
  w.UintMember("dropped", r.events.dropped);
  for (const auto& [name, counts] :
       {std::pair{"host", r.events.host}, {"device", r.events.device}}) {
    w.Key(name);
    w.BeginObject();
    w.UintMember("recorded", counts.recorded);
    w.UintMember("dropped", counts.dropped);
    w.EndObject();
  }
  w.EndObject();
  if (r.coverage.has_value()) {
    w.Key("coverage");
    WriteCoverage(w, *r.coverage);
  }
  if (r.python.has_value()) {
    w.Key("python");
    WritePython(w, *r.python);
  }
  if (r.capture.has_value()) {
    w.Key("capture");
    WriteCapture(w, *r.capture);
  }
  w.Key("api");
  WriteApi(w, r.api);
  w.Key("kernels");
  WriteKernels(w, r);
  w.Key("launch_latency_ns");
  WriteLatency(w, r.launch_latency_ns);
  w.Key("devices");
  WriteDevices(w, r.devices);
  if (r.timeline.has_value()) {
    w.Key("timeline");
    WriteTimeline(w, *r.timeline);
  }
  w.Key("stalls");
  WriteStalls(w, r.stalls);
  w.Key("phases");
  WritePhases(w, r.phases);
  w.UintMember("phases_over_cap", r.phases_over_cap);
  w.UintMember("launch_sample_period", r.launch_sample_period);
  w.Key("launch_sites");
  WriteLaunchSites(w, r.launch_sites);
  w.Key("verdict");
  w.BeginObject();
  w.StringMember("regime", r.verdict.regime);
  w.StringMember("why", r.verdict.why);
  if (r.verdict.device_regime.has_value()) {
    const DeviceRegime& dr = *r.verdict.device_regime;
    w.Key("device_regime");
    w.BeginObject();
    w.StringMember("regime", dr.regime);
    w.StringMember("basis", dr.basis);
    w.StringMember("why", dr.why);
    w.EndObject();
  }
  w.Key("advice");
  w.BeginArray();
  for (const std::string& a : r.verdict.advice) w.String(a);
  w.EndArray();
  w.EndObject();
  WriteJobMembers(w, r);  // process, processes, job: when the report has them
  w.EndObject();
  return w.Finish();
}

}  // namespace

std::string RenderJson(const Report& report) { return Render(report, /*pretty=*/true); }

std::string RenderJsonCompact(const Report& report) { return Render(report, /*pretty=*/false); }

}  // namespace brrr
