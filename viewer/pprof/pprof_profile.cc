// Building the pprof profile of a report. See pprof_profile.h.
//
// Must never: give two functions, locations or mappings one id, or a frame a function it did not
// name.
#include "viewer/pprof/pprof_profile.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "viewer/format/frame_text.h"
#include "viewer/gzip.h"

namespace brrr {
namespace {

namespace pb = perftools::profiles;

constexpr int kHostStall = 0;
constexpr int kDeviceTime = 1;
constexpr int kLaunches = 2;
constexpr int kValueTypes = 3;

// "file:123" -> ("file", 123); false when the text does not end in ":digits".
bool SplitFileLine(absl::string_view where, absl::string_view* file, int64_t* line) {
  const size_t colon = where.rfind(':');
  if (colon == absl::string_view::npos || colon == 0 || colon + 1 == where.size()) return false;
  const absl::string_view digits = where.substr(colon + 1);
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  if (!absl::SimpleAtoi(digits, line)) return false;
  *file = where.substr(0, colon);
  return true;
}

class ProfileBuilder {
 public:
  ProfileBuilder() {
    String("");  // pprof: string_table[0] is ""
    for (const auto& [type, unit] : {std::pair<const char*, const char*>{"host_stall", "nanoseconds"},
                                     {"device_time", "nanoseconds"},
                                     {"launches", "count"}}) {
      pb::ValueType* t = profile_.add_sample_type();
      t->set_type(String(type));
      t->set_unit(String(unit));
    }
  }

  int64_t String(absl::string_view s) {
    auto [it, fresh] = strings_.try_emplace(std::string(s), profile_.string_table_size());
    if (fresh) profile_.add_string_table(std::string(s));
    return it->second;
  }

  // The location of one frame of the report's text.
  uint64_t FrameLocation(absl::string_view frame) {
    if (auto known = frame_locations_.find(frame); known != frame_locations_.end()) {
      return known->second;
    }
    absl::string_view function = FrameFunction(frame);
    const absl::string_view where = FrameWhere(frame);
    if (where.empty()) function = frame;  // "f (x" without its ")": the whole text names it
    absl::string_view file;
    int64_t line = 0;
    uint64_t mapping = 0;
    if (!where.empty() && !SplitFileLine(where, &file, &line)) mapping = Mapping(where);
    const uint64_t id = NewLocation(Function(function.empty() ? "?" : function, file), line,
                                    mapping);
    frame_locations_.try_emplace(std::string(frame), id);
    return id;
  }

  // A leaf that is not a frame of the program: the blocked call, or a kernel.
  uint64_t LeafLocation(absl::string_view name) {
    if (auto known = leaf_locations_.find(name); known != leaf_locations_.end()) {
      return known->second;
    }
    const uint64_t id = NewLocation(Function(name, ""), 0, 0);
    leaf_locations_.try_emplace(std::string(name), id);
    return id;
  }

  // A stack of the report (innermost first) below `leaf` (0: none), without its `plumbing` frames.
  std::vector<uint64_t> Stack(uint64_t leaf, const std::vector<std::string>& innermost_first,
                              uint32_t plumbing) {
    std::vector<uint64_t> ids;
    if (leaf != 0) ids.push_back(leaf);
    const size_t skip = plumbing < innermost_first.size() ? plumbing : 0;
    for (size_t i = skip; i < innermost_first.size(); ++i) {
      ids.push_back(FrameLocation(innermost_first[i]));
    }
    if (innermost_first.empty()) ids.push_back(LeafLocation("[no stack]"));
    return ids;
  }

  pb::Sample* AddSample(const std::vector<uint64_t>& locations, int value_index, int64_t value) {
    pb::Sample* s = profile_.add_sample();
    for (uint64_t id : locations) s->add_location_id(id);
    for (int i = 0; i < kValueTypes; ++i) s->add_value(i == value_index ? value : 0);
    for (const auto& [key, text] : process_labels_) {
      pb::Label* l = s->add_label();
      l->set_key(key);
      l->set_str(text);
    }
    return s;
  }

  // Labels are text: a number label of 0 (rank 0, device 0) reads as no label in pprof's decoder,
  // and the backends (Pyroscope) keep only text labels.
  void AddLabel(pb::Sample* s, absl::string_view key, absl::string_view text) {
    pb::Label* l = s->add_label();
    l->set_key(String(key));
    l->set_str(String(text));
  }

  void SetProcess(const ProcessIdentity& p) {
    process_labels_.emplace_back(String("pid"), String(absl::StrCat(p.pid)));
    if (p.rank >= 0) process_labels_.emplace_back(String("rank"), String(absl::StrCat(p.rank)));
  }

  pb::Profile& profile() { return profile_; }

 private:
  uint64_t Function(absl::string_view name, absl::string_view file) {
    const auto key = std::make_pair(std::string(name), std::string(file));
    if (auto known = functions_.find(key); known != functions_.end()) return known->second;
    pb::Function* f = profile_.add_function();
    f->set_id(static_cast<uint64_t>(profile_.function_size()));
    f->set_name(String(name));
    f->set_system_name(f->name());
    if (!file.empty()) f->set_filename(String(file));
    functions_.try_emplace(key, f->id());
    return f->id();
  }

  uint64_t Mapping(absl::string_view module) {
    if (auto known = mappings_.find(module); known != mappings_.end()) return known->second;
    pb::Mapping* m = profile_.add_mapping();
    m->set_id(static_cast<uint64_t>(profile_.mapping_size()));
    m->set_filename(String(module));
    m->set_has_functions(true);  // symbolized already: nothing for a reader to look up
    mappings_.try_emplace(std::string(module), m->id());
    return m->id();
  }

  uint64_t NewLocation(uint64_t function, int64_t line, uint64_t mapping) {
    pb::Location* l = profile_.add_location();
    l->set_id(static_cast<uint64_t>(profile_.location_size()));
    if (mapping != 0) l->set_mapping_id(mapping);
    pb::Line* at = l->add_line();
    at->set_function_id(function);
    if (line > 0) at->set_line(line);
    return l->id();
  }

  pb::Profile profile_;
  absl::flat_hash_map<std::string, int64_t> strings_;
  absl::flat_hash_map<std::pair<std::string, std::string>, uint64_t> functions_;
  absl::flat_hash_map<std::string, uint64_t> mappings_;
  absl::flat_hash_map<std::string, uint64_t> frame_locations_;
  absl::flat_hash_map<std::string, uint64_t> leaf_locations_;
  std::vector<std::pair<int64_t, int64_t>> process_labels_;  // (key, text) string indexes
};

}  // namespace

pb::Profile BuildPprofProfile(const Report& report) {
  ProfileBuilder b;
  if (report.process.has_value() && !report.job.has_value()) b.SetProcess(*report.process);
  for (const Stall& s : report.stalls) {
    if (s.total_ns <= 0) continue;
    const uint64_t leaf = b.LeafLocation(absl::StrCat(s.api, " [", s.reason, "]"));
    pb::Sample* sample =
        b.AddSample(b.Stack(leaf, s.stack, s.plumbing_frames), kHostStall, s.total_ns);
    b.AddLabel(sample, "reason", s.reason);
  }
  for (const LaunchSite& site : report.launch_sites) {
    if (site.launches > 0) {
      const int64_t launches = site.launches > static_cast<uint64_t>(INT64_MAX)
                                   ? INT64_MAX
                                   : static_cast<int64_t>(site.launches);
      b.AddSample(b.Stack(0, site.stack, site.plumbing_frames), kLaunches, launches);
    }
    for (const LaunchKernel& k : site.kernels) {
      if (k.device_ns <= 0) continue;
      pb::Sample* sample = b.AddSample(
          b.Stack(b.LeafLocation(k.name), site.stack, site.plumbing_frames), kDeviceTime,
          k.device_ns);
      b.AddLabel(sample, "device", absl::StrCat(k.device));
    }
  }
  pb::Profile& p = b.profile();
  if (report.timeline.has_value()) p.set_time_nanos(report.timeline->origin_unix_ns);
  p.set_duration_nanos(report.wall_ns);
  p.set_default_sample_type(report.stalls.empty() && !report.launch_sites.empty()
                                ? b.String("device_time")
                                : b.String("host_stall"));
  if (report.launch_sample_period > 0) {
    p.add_comment(b.String(absl::StrCat(
        "brrr: device_time and launches are estimated from 1 in ", report.launch_sample_period,
        " launches (their stacks sampled); host_stall is every stall")));
  }
  if (!report.command.empty()) p.add_comment(b.String(absl::StrCat("command: ", report.command)));
  return std::move(p);
}

absl::StatusOr<std::string> RenderPprof(const Report& report) {
  std::string bytes;
  if (!BuildPprofProfile(report).SerializeToString(&bytes)) {
    return absl::InternalError("the pprof profile could not be serialized");
  }
  return Gzip(bytes);
}

}  // namespace brrr
