// JSON of a report's process identity and job view. See job_json.h.
//
// Must never: write an unknown rank or exit code as a number (they are null), or crash on any tree.
#include "viewer/format/job_json.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace brrr {
namespace {

using Json = nlohmann::ordered_json;

// A rank or exit code: null when unknown (negative).
Json OptionalInt(int64_t value) { return value < 0 ? Json(nullptr) : Json(value); }

Json DevicesJson(const std::vector<DeviceBreakdown>& devices) {
  Json out = Json::array();
  for (const DeviceBreakdown& d : devices) {
    out.push_back({{"id", d.id},
                   {"wall_ns", d.wall_ns},
                   {"busy_ns", d.busy_ns},
                   {"idle",
                    {{"launch_bound_ns", d.idle.launch_bound_ns},
                     {"sync_drain_ns", d.idle.sync_drain_ns},
                     {"host_outside_cuda_ns", d.idle.host_outside_cuda_ns}}}});
  }
  return out;
}

Json RowJson(const ProcessRow& p) {
  return {{"pid", p.pid},
          {"rank", OptionalInt(p.rank)},
          {"host", p.host},
          {"command", p.command},
          {"exit_code", p.exit_code.has_value() ? Json(*p.exit_code) : Json(nullptr)},
          {"ended", p.ended},
          {"wall_ns", p.wall_ns},
          {"kernels", {{"launches", p.kernels.launches}, {"device_ns", p.kernels.device_ns}}},
          {"devices", DevicesJson(p.devices)},
          {"events_dropped", p.events_dropped},
          {"top_stall", p.top_stall},
          {"verdict", {{"regime", p.verdict.regime}, {"why", p.verdict.why}}}};
}

class Reader {
 public:
  absl::Status status() const { return status_; }

  void Fail(absl::string_view what) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("report JSON: ", what));
  }

  // The member `key` of `obj` when present with `kind`; an error when present with another kind.
  const JsonValue* Member(const JsonValue& obj, absl::string_view key, const std::string& path,
                          JsonValue::Kind kind) {
    const JsonValue* v = obj.Find(key);
    if (v == nullptr || !status_.ok()) return nullptr;
    if (v->kind != kind) {
      Fail(absl::StrCat(path, ".", key, ": expected ", JsonKindName(kind), ", got ",
                        JsonKindName(v->kind)));
      return nullptr;
    }
    return v;
  }

  void String(const JsonValue& obj, absl::string_view key, const std::string& path,
              std::string& out) {
    if (const JsonValue* v = Member(obj, key, path, JsonValue::Kind::kString)) out = v->text;
  }

  void Bool(const JsonValue& obj, absl::string_view key, const std::string& path, bool& out) {
    if (const JsonValue* v = Member(obj, key, path, JsonValue::Kind::kBool)) out = v->boolean;
  }

  template <typename Int>
  void Integer(const JsonValue& obj, absl::string_view key, const std::string& path, Int& out,
               Int min = std::numeric_limits<Int>::min()) {
    const JsonValue* v = Member(obj, key, path, JsonValue::Kind::kNumber);
    if (v == nullptr) return;
    using Wide = std::conditional_t<std::is_signed_v<Int>, int64_t, uint64_t>;
    Wide wide = 0;
    if (!absl::SimpleAtoi(v->text, &wide) || !std::in_range<Int>(wide) || wide < min) {
      Fail(absl::StrCat(path, ".", key, ": expected an integer in [", min, ", ",
                        std::numeric_limits<Int>::max(), "], got ", v->text.substr(0, 40)));
      return;
    }
    out = static_cast<Int>(wide);
  }

  // A rank: null (unknown, -1) or an integer >= 0.
  void Rank(const JsonValue& obj, absl::string_view key, const std::string& path, int64_t& out) {
    const JsonValue* v = obj.Find(key);
    if (v == nullptr || !status_.ok()) return;
    if (v->kind == JsonValue::Kind::kNull) {
      out = -1;
      return;
    }
    Integer<int64_t>(obj, key, path, out, 0);
  }

 private:
  absl::Status status_;
};

void ReadVerdict(Reader& r, const JsonValue& obj, const std::string& path, Verdict& v) {
  if (const JsonValue* o = r.Member(obj, "verdict", path, JsonValue::Kind::kObject)) {
    r.String(*o, "regime", path + ".verdict", v.regime);
    r.String(*o, "why", path + ".verdict", v.why);
  }
}

void ReadDevices(Reader& r, const JsonValue& list, const std::string& path,
                 std::vector<DeviceBreakdown>& out) {
  for (size_t i = 0; i < list.elements.size(); ++i) {
    const JsonValue& e = list.elements[i];
    const std::string item = absl::StrCat(path, "[", i, "]");
    if (e.kind != JsonValue::Kind::kObject) return r.Fail(absl::StrCat(item, ": expected object"));
    DeviceBreakdown& d = out.emplace_back();
    r.Integer(e, "id", item, d.id);
    r.Integer(e, "wall_ns", item, d.wall_ns);
    r.Integer(e, "busy_ns", item, d.busy_ns);
    if (const JsonValue* idle = r.Member(e, "idle", item, JsonValue::Kind::kObject)) {
      r.Integer(*idle, "launch_bound_ns", item + ".idle", d.idle.launch_bound_ns);
      r.Integer(*idle, "sync_drain_ns", item + ".idle", d.idle.sync_drain_ns);
      r.Integer(*idle, "host_outside_cuda_ns", item + ".idle", d.idle.host_outside_cuda_ns);
    }
  }
}

void ReadRow(Reader& r, const JsonValue& e, const std::string& path, ProcessRow& p) {
  r.Integer(e, "pid", path, p.pid);
  r.Rank(e, "rank", path, p.rank);
  r.String(e, "host", path, p.host);
  r.String(e, "command", path, p.command);
  if (const JsonValue* code = e.Find("exit_code"); code != nullptr) {
    if (code->kind != JsonValue::Kind::kNull) {
      int value = 0;
      r.Integer(e, "exit_code", path, value);
      p.exit_code = value;
    }
  }
  r.String(e, "ended", path, p.ended);
  r.Integer(e, "wall_ns", path, p.wall_ns);
  if (const JsonValue* k = r.Member(e, "kernels", path, JsonValue::Kind::kObject)) {
    r.Integer(*k, "launches", path + ".kernels", p.kernels.launches);
    r.Integer(*k, "device_ns", path + ".kernels", p.kernels.device_ns);
  }
  if (const JsonValue* d = r.Member(e, "devices", path, JsonValue::Kind::kArray)) {
    ReadDevices(r, *d, path + ".devices", p.devices);
  }
  r.Integer(e, "events_dropped", path, p.events_dropped);
  r.String(e, "top_stall", path, p.top_stall);
  ReadVerdict(r, e, path, p.verdict);
}

}  // namespace

void AddJobMembers(Json& doc, const Report& r) {
  if (r.process.has_value()) {
    const ProcessIdentity& p = *r.process;
    doc["process"] = {{"pid", p.pid},
                      {"host", p.host},
                      {"rank", OptionalInt(p.rank)},
                      {"local_rank", OptionalInt(p.local_rank)},
                      {"world_size", OptionalInt(p.world_size)},
                      {"rank_from", p.rank_from},
                      {"exit_seen", p.exit_seen},
                      {"term_signal", p.term_signal}};
  }
  if (!r.processes.empty() || r.job.has_value()) {
    Json rows = Json::array();
    for (const ProcessRow& row : r.processes) rows.push_back(RowJson(row));
    doc["processes"] = std::move(rows);
  }
  if (r.job.has_value()) {
    Json straggler = nullptr;
    if (r.job->straggler.has_value()) {
      straggler = {{"rank", OptionalInt(r.job->straggler->rank)},
                   {"pid", r.job->straggler->pid},
                   {"why", r.job->straggler->why}};
    }
    doc["job"] = {{"processes", r.job->processes},
                  {"ranks", r.job->ranks},
                  {"straggler", std::move(straggler)}};
  }
}

absl::Status DecodeJobMembers(const JsonValue& root, Report& out) {
  Reader r;
  if (const JsonValue* p = r.Member(root, "process", "$", JsonValue::Kind::kObject)) {
    ProcessIdentity& id = out.process.emplace();
    const std::string path = "$.process";
    r.Integer(*p, "pid", path, id.pid);
    r.String(*p, "host", path, id.host);
    r.Rank(*p, "rank", path, id.rank);
    r.Rank(*p, "local_rank", path, id.local_rank);
    r.Rank(*p, "world_size", path, id.world_size);
    r.String(*p, "rank_from", path, id.rank_from);
    r.Bool(*p, "exit_seen", path, id.exit_seen);
    r.Integer(*p, "term_signal", path, id.term_signal, 0);
  }
  if (const JsonValue* list = r.Member(root, "processes", "$", JsonValue::Kind::kArray)) {
    for (size_t i = 0; i < list->elements.size(); ++i) {
      const JsonValue& e = list->elements[i];
      const std::string path = absl::StrCat("$.processes[", i, "]");
      if (e.kind != JsonValue::Kind::kObject) {
        r.Fail(absl::StrCat(path, ": expected object"));
        break;
      }
      ReadRow(r, e, path, out.processes.emplace_back());
    }
  }
  if (const JsonValue* job = root.Find("job"); job != nullptr && r.status().ok()) {
    if (job->kind != JsonValue::Kind::kNull) {
      if (const JsonValue* j = r.Member(root, "job", "$", JsonValue::Kind::kObject)) {
        JobSummary& s = out.job.emplace();
        r.Integer(*j, "processes", "$.job", s.processes);
        r.Integer(*j, "ranks", "$.job", s.ranks);
        const JsonValue* st = j->Find("straggler");
        if (st != nullptr && st->kind != JsonValue::Kind::kNull) {
          if (const JsonValue* o = r.Member(*j, "straggler", "$.job", JsonValue::Kind::kObject)) {
            Straggler& g = s.straggler.emplace();
            r.Rank(*o, "rank", "$.job.straggler", g.rank);
            r.Integer(*o, "pid", "$.job.straggler", g.pid);
            r.String(*o, "why", "$.job.straggler", g.why);
          }
        }
      }
    }
  }
  return r.status();
}

}  // namespace brrr
