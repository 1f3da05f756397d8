// Test support: reads a Perfetto trace written by brrr back into slices and instants, checking as
// it goes what a reader relies on (every sequence starts by clearing its state, interned ids are
// emitted before use, an END closes a BEGIN on its track, tracks are described). Used by the
// export's unit tests and the end-to-end test that compares it with the Chrome export.
//
// Must never: be linked into anything but tests.
#ifndef BRRR_VIEWER_PERFETTO_PERFETTO_READ_FOR_TEST_H_
#define BRRR_VIEWER_PERFETTO_PERFETTO_READ_FOR_TEST_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "viewer/perfetto/perfetto_trace.pb.h"

namespace brrr::perfetto_test {

struct ReadSlice {
  std::string track;  // the track's name (a thread's thread_name, a process's process_name)
  std::string name;
  std::string category;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t flow_out = 0;
  uint64_t flow_in = 0;
  std::map<std::string, std::string> args;  // as text
  bool instant = false;
};

struct ReadTrace {
  std::vector<ReadSlice> slices;  // in the order their BEGIN (or instant) was read
  std::map<uint64_t, std::string> track_names;
  std::map<uint64_t, uint64_t> track_parents;
  std::vector<std::string> errors;  // what a reader would reject; empty when well formed
};

inline ReadTrace ReadPerfettoTrace(const std::string& bytes) {
  ReadTrace out;
  perfetto::protos::Trace trace;
  if (!trace.ParseFromString(bytes)) {
    out.errors.push_back("does not parse as perfetto.protos.Trace");
    return out;
  }
  struct Sequence {
    bool cleared = false;
    uint64_t time = 0;
    uint64_t track = 0;
    std::map<uint64_t, std::string> names, categories, keys, values;
  };
  std::map<uint32_t, Sequence> sequences;
  std::map<uint64_t, std::vector<size_t>> open;  // per track: open slices
  for (const perfetto::protos::TracePacket& p : trace.packet()) {
    if (p.has_track_descriptor()) {
      const auto& d = p.track_descriptor();
      out.track_names[d.uuid()] = d.has_process()  ? d.process().process_name()
                                  : d.has_thread() ? d.thread().thread_name()
                                                   : d.name();
      out.track_parents[d.uuid()] = d.parent_uuid();
      continue;
    }
    Sequence& seq = sequences[p.trusted_packet_sequence_id()];
    if ((p.sequence_flags() & 1) != 0) {
      seq = Sequence();
      seq.cleared = true;
    }
    if (p.has_clock_snapshot()) {
      for (const auto& c : p.clock_snapshot().clocks()) {
        if (c.clock_id() == 64) seq.time = c.timestamp();
      }
    }
    if (p.has_trace_packet_defaults()) {
      seq.track = p.trace_packet_defaults().track_event_defaults().track_uuid();
    }
    if (!p.has_track_event()) continue;
    if (!seq.cleared) out.errors.push_back("an event before its sequence was cleared");
    seq.time += p.timestamp();
    for (const auto& n : p.interned_data().event_names()) seq.names[n.iid()] = n.name();
    for (const auto& c : p.interned_data().event_categories()) seq.categories[c.iid()] = c.name();
    for (const auto& k : p.interned_data().debug_annotation_names()) seq.keys[k.iid()] = k.name();
    for (const auto& v : p.interned_data().debug_annotation_string_values()) {
      seq.values[v.iid()] = v.str();
    }
    const auto& e = p.track_event();
    const uint64_t track = e.has_track_uuid() ? e.track_uuid() : seq.track;
    if (!out.track_names.count(track)) out.errors.push_back("an event on an undescribed track");
    const auto lookup = [&](const std::map<uint64_t, std::string>& table, uint64_t iid) {
      auto it = table.find(iid);
      if (it == table.end()) {
        out.errors.push_back(absl::StrCat("interned id ", iid, " used before it was emitted"));
        return std::string("?");
      }
      return it->second;
    };
    if (e.type() == perfetto::protos::TrackEvent::TYPE_SLICE_END) {
      auto& stack = open[track];
      if (stack.empty()) {
        out.errors.push_back("an END without a BEGIN on its track");
        continue;
      }
      out.slices[stack.back()].end = seq.time;
      stack.pop_back();
      continue;
    }
    ReadSlice s;
    s.track = out.track_names[track];
    s.name = lookup(seq.names, e.name_iid());
    for (uint64_t c : e.category_iids()) s.category = lookup(seq.categories, c);
    s.start = s.end = seq.time;
    for (uint64_t f : e.flow_ids()) s.flow_out = f;
    for (uint64_t f : e.terminating_flow_ids()) s.flow_in = f;
    for (const auto& a : e.debug_annotations()) {
      const std::string key = lookup(seq.keys, a.name_iid());
      s.args[key] = a.has_string_value_iid() ? lookup(seq.values, a.string_value_iid())
                    : a.has_string_value()   ? a.string_value()
                    : a.has_bool_value() ? (a.bool_value() ? "true" : "false")
                    : a.has_uint_value() ? absl::StrCat(a.uint_value())
                                         : absl::StrCat(a.int_value());
    }
    if (e.has_correlation_id()) s.args["correlation_id"] = absl::StrCat(e.correlation_id());
    s.instant = e.type() == perfetto::protos::TrackEvent::TYPE_INSTANT;
    out.slices.push_back(s);
    if (!s.instant) open[track].push_back(out.slices.size() - 1);
  }
  for (const auto& [track, stack] : open) {
    if (!stack.empty()) out.errors.push_back("a BEGIN never closed on its track");
  }
  return out;
}

}  // namespace brrr::perfetto_test

#endif  // BRRR_VIEWER_PERFETTO_PERFETTO_READ_FOR_TEST_H_
