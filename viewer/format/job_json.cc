// JSON of a report's process identity and job view. See job_json.h.
//
// Must never: write an unknown rank or exit code as a number (they are null), or crash on any tree.
#include "viewer/format/job_json.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "viewer/format/breakdown_json.h"
#include "viewer/format/json_fields.h"
#include "viewer/format/json_object_builder.h"
#include "viewer/format/timeline_json.h"

namespace brrr {
namespace {

using Json = nlohmann::ordered_json;

// A rank or exit code: null when unknown (negative).
Json OptionalInt(int64_t value) { return value < 0 ? Json(nullptr) : Json(value); }

Json RowJson(const ProcessRow& p) {
  JsonObjectBuilder row(13);
  row.Add("pid", p.pid)
      .Add("rank", OptionalInt(p.rank))
      .Add("host", p.host)
      .Add("command", p.command)
      .Add("exit_code", p.exit_code.has_value() ? Json(*p.exit_code) : Json(nullptr))
      .Add("ended", p.ended)
      .Add("wall_ns", p.wall_ns)
      .Add("kernels", JsonObjectBuilder(2)
                          .Add("launches", p.kernels.launches)
                          .Add("device_ns", p.kernels.device_ns)
                          .Build())
      .Add("devices", DevicesJson(p.devices));
  if (p.timeline.has_value()) row.Add("timeline", TimelineJson(*p.timeline));
  return row.Add("events_dropped", p.events_dropped)
      .Add("top_stall", p.top_stall)
      .Add("verdict",
           JsonObjectBuilder(2).Add("regime", p.verdict.regime).Add("why", p.verdict.why).Build())
      .Build();
}

using Kind = nlohmann::json::value_t;

// A rank: null (unknown, -1) or an integer >= 0.
void ReadRank(JsonFieldReader& r, const nlohmann::json& obj, absl::string_view key,
              const std::string& path, int64_t& out) {
  const nlohmann::json* v = FindMember(obj, key);
  if (v != nullptr && v->is_null()) {
    out = -1;
    return;
  }
  r.Integer<int64_t>(obj, key, path, out, 0);
}

void ReadRow(JsonFieldReader& r, const nlohmann::json& e, const std::string& path, ProcessRow& p) {
  r.Integer(e, "pid", path, p.pid);
  ReadRank(r, e, "rank", path, p.rank);
  r.String(e, "host", path, p.host);
  r.String(e, "command", path, p.command);
  if (const nlohmann::json* code = FindMember(e, "exit_code");
      code != nullptr && !code->is_null()) {
    int value = 0;
    r.Integer(e, "exit_code", path, value);
    p.exit_code = value;
  }
  r.String(e, "ended", path, p.ended);
  r.Integer(e, "wall_ns", path, p.wall_ns);
  if (const nlohmann::json* k = r.Member(e, "kernels", path, Kind::object)) {
    r.Integer(*k, "launches", path + ".kernels", p.kernels.launches);
    r.Integer(*k, "device_ns", path + ".kernels", p.kernels.device_ns);
  }
  DecodeDevices(r, e, path, p.devices);
  // Absent when the row has none (or in reports written before job timelines).
  if (const nlohmann::json* t = FindMember(e, "timeline"); t != nullptr && r.ok()) {
    r.Record(
        DecodeTimelineObject(*t, path + ".timeline", kMaxJobTimelineBuckets, p.timeline.emplace()));
  }
  r.Integer(e, "events_dropped", path, p.events_dropped);
  r.String(e, "top_stall", path, p.top_stall);
  if (const nlohmann::json* v = r.Member(e, "verdict", path, Kind::object)) {
    r.String(*v, "regime", path + ".verdict", p.verdict.regime);
    r.String(*v, "why", path + ".verdict", p.verdict.why);
  }
}

Json CollectiveLogJson(const CollectiveLog& log) {
  Json streams = JsonArrayWithRoom(log.streams.size());
  for (const CollectiveStream& s : log.streams) {
    streams.push_back(JsonObjectBuilder(3)
                          .Add("stream_id", s.stream_id)
                          .Add("start_ns", s.start_ns)
                          .Add("end_ns", s.end_ns)
                          .Build());
  }
  return JsonObjectBuilder(3)
      .Add("count", log.count)
      .Add("unix_minus_monotonic_ns", log.unix_minus_monotonic_ns)
      .Add("streams", std::move(streams))
      .Build();
}

void ReadCollectiveLog(JsonFieldReader& r, const nlohmann::json& c, CollectiveLog& log) {
  const std::string path = "$.collectives";
  r.Integer(c, "count", path, log.count);
  r.Integer(c, "unix_minus_monotonic_ns", path, log.unix_minus_monotonic_ns);
  size_t kept = 0;
  r.Objects(c, "streams", path, [&](const nlohmann::json& e, const std::string& item) {
    CollectiveStream& s = log.streams.emplace_back();
    r.Integer(e, "stream_id", item, s.stream_id);
    const size_t room = kMaxCollectivesKept - std::min(kept, kMaxCollectivesKept);
    r.Integers(e, "start_ns", item, s.start_ns, 0, room);
    r.Integers(e, "end_ns", item, s.end_ns, 0, room);
    if (r.ok() && s.start_ns.size() != s.end_ns.size()) {
      r.Fail(absl::StrCat(item, ": ", s.start_ns.size(), " starts but ", s.end_ns.size(), " ends"));
    }
    kept += s.start_ns.size();
  });
}

Json JobCollectivesJson(const JobCollectives& c) {
  Json waits = JsonArrayWithRoom(c.waits.size());
  for (const CollectiveWait& w : c.waits) {
    waits.push_back(JsonObjectBuilder(5)
                        .Add("rank", OptionalInt(w.rank))
                        .Add("pid", w.pid)
                        .Add("wait_ns", w.wait_ns)
                        .Add("last_arrivals", w.last_arrivals)
                        .Add("caused_wait_ns", w.caused_wait_ns)
                        .Build());
  }
  Json last = nullptr;
  if (c.last_arriver.has_value()) {
    last = JsonObjectBuilder(3)
               .Add("rank", OptionalInt(c.last_arriver->rank))
               .Add("pid", c.last_arriver->pid)
               .Add("share", c.last_arriver->share)
               .Build();
  }
  return JsonObjectBuilder(6)
      .Add("count", c.count)
      .Add("processes", c.processes)
      .Add("waits", std::move(waits))
      .Add("last_arriver", std::move(last))
      .Add("alignment", c.alignment)
      .Add("unmatched", c.unmatched)
      .Build();
}

void ReadJobCollectives(JsonFieldReader& r, const nlohmann::json& c, JobCollectives& out) {
  const std::string path = "$.job.collectives";
  r.Integer(c, "count", path, out.count);
  r.Integer(c, "processes", path, out.processes);
  r.Objects(c, "waits", path, [&](const nlohmann::json& e, const std::string& item) {
    CollectiveWait& w = out.waits.emplace_back();
    ReadRank(r, e, "rank", item, w.rank);
    r.Integer(e, "pid", item, w.pid);
    r.Integer(e, "wait_ns", item, w.wait_ns, int64_t{0});
    r.Integer(e, "last_arrivals", item, w.last_arrivals);
    r.Integer(e, "caused_wait_ns", item, w.caused_wait_ns, int64_t{0});
  });
  const nlohmann::json* last = FindMember(c, "last_arriver");
  if (last != nullptr && !last->is_null()) {
    if (const nlohmann::json* o = r.Member(c, "last_arriver", path, Kind::object)) {
      LastArriver& l = out.last_arriver.emplace();
      ReadRank(r, *o, "rank", path + ".last_arriver", l.rank);
      r.Integer(*o, "pid", path + ".last_arriver", l.pid);
      r.Number(*o, "share", path + ".last_arriver", 1, l.share);
    }
  }
  r.String(c, "alignment", path, out.alignment);
  r.Integer(c, "unmatched", path, out.unmatched);
}

}  // namespace

void AddJobMembers(JsonObjectBuilder& doc, const Report& r) {
  if (r.process.has_value()) {
    const ProcessIdentity& p = *r.process;
    doc.Add("process", JsonObjectBuilder(8)
                           .Add("pid", p.pid)
                           .Add("host", p.host)
                           .Add("rank", OptionalInt(p.rank))
                           .Add("local_rank", OptionalInt(p.local_rank))
                           .Add("world_size", OptionalInt(p.world_size))
                           .Add("rank_from", p.rank_from)
                           .Add("exit_seen", p.exit_seen)
                           .Add("term_signal", p.term_signal)
                           .Build());
  }
  if (r.collectives.has_value()) doc.Add("collectives", CollectiveLogJson(*r.collectives));
  if (!r.processes.empty() || r.job.has_value()) {
    Json rows = JsonArrayWithRoom(r.processes.size());
    for (const ProcessRow& row : r.processes) rows.push_back(RowJson(row));
    doc.Add("processes", std::move(rows));
  }
  if (r.job.has_value()) {
    Json straggler = nullptr;
    if (r.job->straggler.has_value()) {
      straggler = JsonObjectBuilder(4)
                      .Add("rank", OptionalInt(r.job->straggler->rank))
                      .Add("pid", r.job->straggler->pid)
                      .Add("why", r.job->straggler->why)
                      .Add("basis", r.job->straggler->basis)
                      .Build();
    }
    JsonObjectBuilder job(6);
    job.Add("processes", r.job->processes)
        .Add("ranks", r.job->ranks)
        .Add("straggler", std::move(straggler));
    if (r.job->collectives.has_value()) {
      job.Add("collectives", JobCollectivesJson(*r.job->collectives));
    }
    doc.Add("job", job.Add("timeline_rows_left_out", r.job->timeline_rows_left_out)
                       .Add("timeline_note", r.job->timeline_note)
                       .Build());
  }
}

absl::Status DecodeJobMembers(const nlohmann::json& root, Report& out) {
  JsonFieldReader r;
  if (const nlohmann::json* p = r.Member(root, "process", "$", Kind::object)) {
    ProcessIdentity& id = out.process.emplace();
    const std::string path = "$.process";
    r.Integer(*p, "pid", path, id.pid);
    r.String(*p, "host", path, id.host);
    ReadRank(r, *p, "rank", path, id.rank);
    ReadRank(r, *p, "local_rank", path, id.local_rank);
    ReadRank(r, *p, "world_size", path, id.world_size);
    r.String(*p, "rank_from", path, id.rank_from);
    r.Bool(*p, "exit_seen", path, id.exit_seen);
    r.Integer(*p, "term_signal", path, id.term_signal, 0);
  }
  if (const nlohmann::json* c = r.Member(root, "collectives", "$", Kind::object)) {
    ReadCollectiveLog(r, *c, out.collectives.emplace());
  }
  r.Objects(root, "processes", "$", [&](const nlohmann::json& e, const std::string& item) {
    ReadRow(r, e, item, out.processes.emplace_back());
  });
  const nlohmann::json* job = FindMember(root, "job");
  if (job != nullptr && !job->is_null()) {
    if (const nlohmann::json* j = r.Member(root, "job", "$", Kind::object)) {
      JobSummary& s = out.job.emplace();
      r.Integer(*j, "processes", "$.job", s.processes);
      r.Integer(*j, "ranks", "$.job", s.ranks);
      const nlohmann::json* st = FindMember(*j, "straggler");
      if (st != nullptr && !st->is_null()) {
        if (const nlohmann::json* o = r.Member(*j, "straggler", "$.job", Kind::object)) {
          Straggler& g = s.straggler.emplace();
          ReadRank(r, *o, "rank", "$.job.straggler", g.rank);
          r.Integer(*o, "pid", "$.job.straggler", g.pid);
          r.String(*o, "why", "$.job.straggler", g.why);
          r.String(*o, "basis", "$.job.straggler", g.basis);  // absent in older reports
        }
      }
      // Absent without collectives (and in reports written before them).
      if (const nlohmann::json* c = r.Member(*j, "collectives", "$.job", Kind::object)) {
        ReadJobCollectives(r, *c, s.collectives.emplace());
      }
      // Both absent in reports written before job timelines.
      r.Integer(*j, "timeline_rows_left_out", "$.job", s.timeline_rows_left_out);
      r.String(*j, "timeline_note", "$.job", s.timeline_note);
    }
  }
  return r.status();
}

}  // namespace brrr
