// JSON "brrr.report/1" -> Report: maps the parsed JSON tree onto the Report struct, checking the
// type and range of every field it reads. Errors name the JSON path of the offending member.
//
// Must never: accept a wrong type or an out-of-range integer silently, or crash on any tree.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "viewer/format/job_json.h"
#include "viewer/format/json_value.h"
#include "viewer/format/report_json.h"
#include "viewer/format/timeline_json.h"

namespace brrr {
namespace {

// Shortens a member's text for an error message.
std::string Excerpt(const JsonValue& v) {
  if (v.kind == JsonValue::Kind::kNumber) return v.text.substr(0, 40);
  if (v.kind == JsonValue::Kind::kString) return "a string";
  return std::string(JsonKindName(v.kind));
}

class Decoder {
 public:
  absl::Status status() const { return status_; }

  // Each Read* leaves `out` unchanged when the member is absent, and records the first error.
  void ReadString(const JsonValue& obj, absl::string_view key, const std::string& path,
                  std::string& out) {
    const JsonValue* v = Member(obj, key, path, JsonValue::Kind::kString);
    if (v != nullptr) out = v->text;
  }

  void ReadBool(const JsonValue& obj, absl::string_view key, const std::string& path, bool& out) {
    const JsonValue* v = Member(obj, key, path, JsonValue::Kind::kBool);
    if (v != nullptr) out = v->boolean;
  }

  template <typename Int>
  void ReadInt(const JsonValue& obj, absl::string_view key, const std::string& path, Int& out) {
    const JsonValue* v = Member(obj, key, path, JsonValue::Kind::kNumber);
    if (v == nullptr) return;
    // SimpleAtoi rejects fractions, exponents, overflow and (for unsigned types) a minus sign.
    using Wide = std::conditional_t<std::is_signed_v<Int>, int64_t, uint64_t>;
    Wide wide = 0;
    if (!absl::SimpleAtoi(v->text, &wide) || !std::in_range<Int>(wide)) {
      Fail(absl::StrCat(path, ".", key, ": expected an integer in [",
                        std::numeric_limits<Int>::min(), ", ", std::numeric_limits<Int>::max(),
                        "], got ", Excerpt(*v)));
      return;
    }
    out = static_cast<Int>(wide);
  }

  // The member `key` if it is present with the right kind; nullptr otherwise (recording an error
  // if it is present with another kind).
  const JsonValue* Member(const JsonValue& obj, absl::string_view key, const std::string& path,
                          JsonValue::Kind kind) {
    const JsonValue* v = obj.Find(key);
    if (v == nullptr || !status_.ok()) return nullptr;
    if (v->kind != kind) {
      Fail(absl::StrCat(path, ".", key, ": expected ", JsonKindName(kind), ", got ", Excerpt(*v)));
      return nullptr;
    }
    return v;
  }

  void Fail(absl::string_view what) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("report JSON: ", what));
  }

 private:
  absl::Status status_;
};

void DecodeApi(Decoder& d, const JsonValue& list, std::vector<ApiStat>& out) {
  for (size_t i = 0; i < list.elements.size(); ++i) {
    const JsonValue& e = list.elements[i];
    const std::string path = absl::StrCat("$.api[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(path, ": expected object"));
    ApiStat& a = out.emplace_back();
    d.ReadString(e, "name", path, a.name);
    d.ReadString(e, "category", path, a.category);
    d.ReadInt(e, "calls", path, a.calls);
    d.ReadInt(e, "total_ns", path, a.total_ns);
    d.ReadInt(e, "p50_ns", path, a.p50_ns);
    d.ReadInt(e, "p99_ns", path, a.p99_ns);
  }
}

void DecodeKernels(Decoder& d, const JsonValue& obj, Report& r) {
  const std::string path = "$.kernels";
  d.ReadInt(obj, "launches", path, r.kernels.launches);
  d.ReadInt(obj, "launch_calls", path, r.kernels.launch_calls);
  d.ReadInt(obj, "device_ns", path, r.kernels.device_ns);
  const JsonValue* top = d.Member(obj, "top", path, JsonValue::Kind::kArray);
  if (top == nullptr) return;
  for (size_t i = 0; i < top->elements.size(); ++i) {
    const JsonValue& e = top->elements[i];
    const std::string item = absl::StrCat(path, ".top[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(item, ": expected object"));
    KernelStat& k = r.kernels.top.emplace_back();
    d.ReadString(e, "name", item, k.name);
    d.ReadInt(e, "launches", item, k.launches);
    d.ReadInt(e, "device_ns", item, k.device_ns);
    d.ReadInt(e, "mean_ns", item, k.mean_ns);
    d.ReadString(e, "class", item, k.kernel_class);  // absent before kernel classes
  }
  // Absent in reports written before kernel classes.
  const JsonValue* classes = d.Member(obj, "classes", path, JsonValue::Kind::kArray);
  if (classes == nullptr) return;
  for (size_t i = 0; i < classes->elements.size(); ++i) {
    const JsonValue& e = classes->elements[i];
    const std::string item = absl::StrCat(path, ".classes[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(item, ": expected object"));
    KernelClassStat& c = r.kernels.classes.emplace_back();
    d.ReadString(e, "class", item, c.kernel_class);
    d.ReadInt(e, "launches", item, c.launches);
    d.ReadInt(e, "device_ns", item, c.device_ns);
  }
}

void DecodeDevices(Decoder& d, const JsonValue& list, std::vector<DeviceBreakdown>& out) {
  for (size_t i = 0; i < list.elements.size(); ++i) {
    const JsonValue& e = list.elements[i];
    const std::string path = absl::StrCat("$.devices[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(path, ": expected object"));
    DeviceBreakdown& dev = out.emplace_back();
    d.ReadInt(e, "id", path, dev.id);
    d.ReadInt(e, "wall_ns", path, dev.wall_ns);
    d.ReadInt(e, "busy_ns", path, dev.busy_ns);
    if (const JsonValue* idle = d.Member(e, "idle", path, JsonValue::Kind::kObject)) {
      const std::string idle_path = path + ".idle";
      d.ReadInt(*idle, "launch_bound_ns", idle_path, dev.idle.launch_bound_ns);
      d.ReadInt(*idle, "sync_drain_ns", idle_path, dev.idle.sync_drain_ns);
      d.ReadInt(*idle, "host_outside_cuda_ns", idle_path, dev.idle.host_outside_cuda_ns);
    }
    // Absent in reports written before start-up and teardown were split off (then 0).
    d.ReadInt(e, "startup_ns", path, dev.startup_ns);
    d.ReadInt(e, "teardown_ns", path, dev.teardown_ns);
  }
}

void DecodeStalls(Decoder& d, const JsonValue& list, std::vector<Stall>& out) {
  for (size_t i = 0; i < list.elements.size(); ++i) {
    const JsonValue& e = list.elements[i];
    const std::string path = absl::StrCat("$.stalls[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(path, ": expected object"));
    Stall& s = out.emplace_back();
    d.ReadString(e, "api", path, s.api);
    d.ReadString(e, "reason", path, s.reason);
    d.ReadInt(e, "calls", path, s.calls);
    d.ReadInt(e, "total_ns", path, s.total_ns);
    const JsonValue* stack = d.Member(e, "stack", path, JsonValue::Kind::kArray);
    if (stack == nullptr) continue;
    for (size_t f = 0; f < stack->elements.size(); ++f) {
      const JsonValue& frame = stack->elements[f];
      if (frame.kind != JsonValue::Kind::kString) {
        return d.Fail(absl::StrCat(path, ".stack[", f, "]: expected string"));
      }
      s.stack.push_back(frame.text);
    }
  }
}

void DecodePhases(Decoder& d, const JsonValue& list, std::vector<Phase>& out) {
  for (size_t i = 0; i < list.elements.size(); ++i) {
    const JsonValue& e = list.elements[i];
    const std::string path = absl::StrCat("$.phases[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(path, ": expected object"));
    Phase& p = out.emplace_back();
    d.ReadString(e, "name", path, p.name);
    d.ReadInt(e, "calls", path, p.calls);
    d.ReadInt(e, "wall_ns", path, p.wall_ns);
    d.ReadInt(e, "launches", path, p.launches);
    d.ReadInt(e, "device_ns", path, p.device_ns);
    d.ReadInt(e, "stall_ns", path, p.stall_ns);
    if (const JsonValue* idle = d.Member(e, "idle", path, JsonValue::Kind::kObject)) {
      const std::string idle_path = path + ".idle";
      d.ReadInt(*idle, "launch_bound_ns", idle_path, p.idle.launch_bound_ns);
      d.ReadInt(*idle, "sync_drain_ns", idle_path, p.idle.sync_drain_ns);
      d.ReadInt(*idle, "host_outside_cuda_ns", idle_path, p.idle.host_outside_cuda_ns);
    }
  }
}

void DecodeLaunchSites(Decoder& d, const JsonValue& list, std::vector<LaunchSite>& out) {
  for (size_t i = 0; i < list.elements.size(); ++i) {
    const JsonValue& e = list.elements[i];
    const std::string path = absl::StrCat("$.launch_sites[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return d.Fail(absl::StrCat(path, ": expected object"));
    LaunchSite& site = out.emplace_back();
    d.ReadInt(e, "launches", path, site.launches);
    const JsonValue* stack = d.Member(e, "stack", path, JsonValue::Kind::kArray);
    if (stack == nullptr) continue;
    for (size_t f = 0; f < stack->elements.size(); ++f) {
      const JsonValue& frame = stack->elements[f];
      if (frame.kind != JsonValue::Kind::kString) {
        return d.Fail(absl::StrCat(path, ".stack[", f, "]: expected string"));
      }
      site.stack.push_back(frame.text);
    }
  }
}

void DecodeCapture(Decoder& d, const JsonValue& obj, Capture& c) {
  const std::string path = "$.capture";
  d.ReadString(obj, "mode", path, c.mode);
  d.ReadString(obj, "nvtx_name", path, c.nvtx_name);
  d.ReadInt(obj, "ranges", path, c.ranges);
  d.ReadInt(obj, "captured_ns", path, c.captured_ns);
  d.ReadInt(obj, "records_dropped", path, c.records_dropped);
}

void DecodePython(Decoder& d, const JsonValue& obj, PythonFrames& p) {
  const std::string path = "$.python";
  d.ReadString(obj, "status", path, p.status);
  d.ReadString(obj, "version", path, p.version);
  d.ReadInt(obj, "frames_dropped", path, p.frames_dropped);
  d.ReadString(obj, "note", path, p.note);
}

void DecodeCoverage(Decoder& d, const JsonValue& obj, Coverage& c) {
  const std::string path = "$.coverage";
  d.ReadInt(obj, "hooked_calls", path, c.hooked_calls);
  d.ReadInt(obj, "callback_calls", path, c.callback_calls);
  d.ReadInt(obj, "cupti_only_calls", path, c.cupti_only_calls);
  d.ReadInt(obj, "calls_without_stack", path, c.calls_without_stack);
  if (const JsonValue* list = d.Member(obj, "without_stack", path, JsonValue::Kind::kArray)) {
    for (size_t i = 0; i < list->elements.size(); ++i) {
      const JsonValue& e = list->elements[i];
      const std::string item = absl::StrCat(path, ".without_stack[", i, "]");
      if (e.kind != JsonValue::Kind::kObject)
        return d.Fail(absl::StrCat(item, ": expected object"));
      CallsWithoutStack& row = c.without_stack.emplace_back();
      d.ReadString(e, "api", item, row.api);
      d.ReadInt(e, "calls", item, row.calls);
    }
  }
  d.ReadBool(obj, "complete", path, c.complete);
  if (const JsonValue* gaps = d.Member(obj, "gaps", path, JsonValue::Kind::kArray)) {
    for (size_t i = 0; i < gaps->elements.size(); ++i) {
      const JsonValue& gap = gaps->elements[i];
      if (gap.kind != JsonValue::Kind::kString) {
        return d.Fail(absl::StrCat(path, ".gaps[", i, "]: expected string"));
      }
      c.gaps.push_back(gap.text);
    }
  }
}

}  // namespace

absl::StatusOr<Report> ParseReportJson(absl::string_view json) {
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("report ", parsed.status().message()));
  }
  const JsonValue& root = *parsed;
  if (root.kind != JsonValue::Kind::kObject) {
    return absl::InvalidArgumentError(absl::StrCat(
        "report JSON: the document is ", JsonKindName(root.kind), ", expected an object"));
  }
  const JsonValue* schema = root.Find("schema");
  if (schema == nullptr || schema->kind != JsonValue::Kind::kString) {
    return absl::InvalidArgumentError("report JSON: no \"schema\" string; not a brrr report");
  }
  if (schema->text != kReportSchema) {
    return absl::InvalidArgumentError(
        absl::StrCat("report JSON: schema \"", absl::CHexEscape(schema->text.substr(0, 64)),
                     "\" is not supported; this brrr reads \"", kReportSchema, "\""));
  }

  Report r;
  Decoder d;
  const std::string path = "$";
  d.ReadString(root, "command", path, r.command);
  d.ReadInt(root, "wall_ns", path, r.wall_ns);
  if (const JsonValue* code = root.Find("exit_code");
      code != nullptr && code->kind == JsonValue::Kind::kNull) {
    r.exit_code_known = false;
  } else {
    d.ReadInt(root, "exit_code", path, r.exit_code);
  }
  d.ReadString(root, "end", path, r.end);
  d.ReadBool(root, "host_only", path, r.host_only);
  d.ReadString(root, "host_only_reason", path, r.host_only_reason);
  if (const JsonValue* events = d.Member(root, "events", path, JsonValue::Kind::kObject)) {
    d.ReadInt(*events, "recorded", "$.events", r.events.recorded);
    d.ReadInt(*events, "dropped", "$.events", r.events.dropped);
    for (auto [name, counts] : {std::pair{"host", &r.events.host}, {"device", &r.events.device}}) {
      const std::string sub_path = absl::StrCat("$.events.", name);
      if (const JsonValue* part = d.Member(*events, name, "$.events", JsonValue::Kind::kObject)) {
        d.ReadInt(*part, "recorded", sub_path, counts->recorded);
        d.ReadInt(*part, "dropped", sub_path, counts->dropped);
      }
    }
  }
  if (const JsonValue* coverage = d.Member(root, "coverage", path, JsonValue::Kind::kObject)) {
    DecodeCoverage(d, *coverage, r.coverage.emplace());
  }
  // Absent in reports written before Python frames were reported.
  if (const JsonValue* python = d.Member(root, "python", path, JsonValue::Kind::kObject)) {
    DecodePython(d, *python, r.python.emplace());
  }
  // Absent in reports written before capture ranges.
  if (const JsonValue* capture = d.Member(root, "capture", path, JsonValue::Kind::kObject)) {
    DecodeCapture(d, *capture, r.capture.emplace());
  }
  if (const JsonValue* api = d.Member(root, "api", path, JsonValue::Kind::kArray)) {
    DecodeApi(d, *api, r.api);
  }
  if (const JsonValue* kernels = d.Member(root, "kernels", path, JsonValue::Kind::kObject)) {
    DecodeKernels(d, *kernels, r);
  }
  if (const JsonValue* lat = d.Member(root, "launch_latency_ns", path, JsonValue::Kind::kObject)) {
    const std::string lat_path = "$.launch_latency_ns";
    d.ReadInt(*lat, "count", lat_path, r.launch_latency_ns.count);
    d.ReadInt(*lat, "p50", lat_path, r.launch_latency_ns.p50);
    d.ReadInt(*lat, "p90", lat_path, r.launch_latency_ns.p90);
    d.ReadInt(*lat, "p99", lat_path, r.launch_latency_ns.p99);
    d.ReadInt(*lat, "max", lat_path, r.launch_latency_ns.max);
  }
  if (const JsonValue* devices = d.Member(root, "devices", path, JsonValue::Kind::kArray)) {
    DecodeDevices(d, *devices, r.devices);
  }
  if (const JsonValue* stalls = d.Member(root, "stalls", path, JsonValue::Kind::kArray)) {
    DecodeStalls(d, *stalls, r.stalls);
  }
  // Absent in reports written before NVTX phases existed.
  if (const JsonValue* phases = d.Member(root, "phases", path, JsonValue::Kind::kArray)) {
    DecodePhases(d, *phases, r.phases);
  }
  d.ReadInt(root, "phases_over_cap", path, r.phases_over_cap);
  // Absent in reports written before launch sites were sampled.
  d.ReadInt(root, "launch_sample_period", path, r.launch_sample_period);
  if (const JsonValue* sites = d.Member(root, "launch_sites", path, JsonValue::Kind::kArray)) {
    DecodeLaunchSites(d, *sites, r.launch_sites);
  }
  if (const JsonValue* verdict = d.Member(root, "verdict", path, JsonValue::Kind::kObject)) {
    d.ReadString(*verdict, "regime", "$.verdict", r.verdict.regime);
    d.ReadString(*verdict, "why", "$.verdict", r.verdict.why);
    // Both absent in reports written before device regimes and advice.
    if (const JsonValue* dr =
            d.Member(*verdict, "device_regime", "$.verdict", JsonValue::Kind::kObject)) {
      DeviceRegime& out = r.verdict.device_regime.emplace();
      d.ReadString(*dr, "regime", "$.verdict.device_regime", out.regime);
      d.ReadString(*dr, "basis", "$.verdict.device_regime", out.basis);
      d.ReadString(*dr, "why", "$.verdict.device_regime", out.why);
    }
    if (const JsonValue* advice =
            d.Member(*verdict, "advice", "$.verdict", JsonValue::Kind::kArray)) {
      for (size_t i = 0; i < advice->elements.size(); ++i) {
        const JsonValue& e = advice->elements[i];
        if (e.kind != JsonValue::Kind::kString) {
          d.Fail(absl::StrCat("$.verdict.advice[", i, "]: expected string"));
          break;
        }
        r.verdict.advice.push_back(e.text);
      }
    }
  }
  if (!d.status().ok()) return d.status();
  // Both absent in reports written before the timeline and the latency histogram.
  if (absl::Status timeline = DecodeTimeline(root, r); !timeline.ok()) return timeline;
  if (const JsonValue* lat = root.Find("launch_latency_ns")) {  // an object: checked above
    if (absl::Status h = DecodeLatencyHistogram(*lat, r.launch_latency_ns); !h.ok()) return h;
  }
  // Absent in reports of one process written before multi-process jobs.
  if (absl::Status job = DecodeJobMembers(root, r); !job.ok()) return job;
  return r;
}

}  // namespace brrr
