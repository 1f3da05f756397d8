// Writing a trace view as a native Perfetto trace. See perfetto_trace.h.
//
// Must never: subtract timestamps in signed arithmetic, or hold more than the view, its edges, one
// packet and a MiB of output at a time.
#include "viewer/perfetto/perfetto_trace.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "viewer/perfetto/perfetto_trace.pb.h"

namespace brrr {
namespace {

namespace pb = perfetto::protos;

constexpr uint32_t kIncrementalClock = 64;  // the first sequence-scoped clock id
constexpr uint32_t kBootTimeClock = 6;       // BUILTIN_CLOCK_BOOTTIME, the trace's clock
constexpr uint32_t kStateCleared = 1;        // SEQ_INCREMENTAL_STATE_CLEARED
constexpr uint32_t kDescriptorSequence = 1;  // the track descriptors' (each track has its own)

// What happens at one time on one track, in the order a track needs them at equal times: ends of
// slices that lasted, begins, instants, ends of zero-length slices.
enum class EdgeKind : uint8_t { kEnd = 0, kBegin = 1, kInstant = 2, kZeroEnd = 3 };

struct Edge {
  uint64_t ts;     // ns from the view's origin
  uint32_t track;  // index into tracks_
  EdgeKind kind;
  uint8_t what;    // 0: slice, 1: instant, 2: async range
  uint32_t index;  // into the view's slices, instants or async ranges
};                 // 24 bytes: two per slice, all held at once

// Hands the protobuf stream's full buffers to a ByteSink (whose errors it keeps for its owner).
class SinkStream final : public google::protobuf::io::CopyingOutputStream {
 public:
  explicit SinkStream(ByteSink* sink) : sink_(sink) {}
  bool Write(const void* buffer, int size) override {
    sink_->Append(absl::string_view(static_cast<const char*>(buffer), static_cast<size_t>(size)));
    return true;
  }

 private:
  ByteSink* sink_;
};

class PerfettoWriter {
 public:
  explicit PerfettoWriter(const TraceView& view) : view_(view) {}

  void Write(ByteSink& sink) {
    Tracks();
    Edges();
    SinkStream to_sink(&sink);
    google::protobuf::io::CopyingOutputStreamAdaptor stream(
        &to_sink, static_cast<int>(PieceBuffer::kPieceBytes));
    {
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded_ = &coded;
      for (const Track& t : tracks_) Descriptor(t);
      for (const Edge& e : edges_) Event(e);
      coded_ = nullptr;
    }  // the coded stream gives back what it did not use
    stream.Flush();
  }

 private:
  struct Track {
    uint64_t uuid;
    uint64_t parent_uuid;  // 0: none
    std::string name;
    int64_t pid;       // process track: its pid; thread track: the thread's
    int64_t tid;       // thread track: its tid
    bool process;      // a process track
    bool thread;       // a thread track
    uint32_t sequence;  // its packet sequence
    bool started = false;
    uint64_t last_ts = 0;
    absl::flat_hash_set<uint64_t> interned;  // (kind << 32 | string index) emitted on it
    absl::flat_hash_set<uint64_t> interned_pointers;  // handles emitted on it
  };

  uint64_t Delta(int64_t ns) const {
    return static_cast<uint64_t>(ns) - static_cast<uint64_t>(view_.origin_ns);
  }

  uint32_t NewTrack(uint64_t parent, std::string name, int64_t pid, int64_t tid, bool process,
                    bool thread) {
    Track t;
    t.uuid = tracks_.size() + 1;
    t.parent_uuid = parent;
    t.name = std::move(name);
    t.pid = pid;
    t.tid = tid;
    t.process = process;
    t.thread = thread;
    t.sequence = static_cast<uint32_t>(tracks_.size() + 2);  // 1: the descriptors
    tracks_.push_back(std::move(t));
    return static_cast<uint32_t>(tracks_.size() - 1);
  }

  // Process tracks, one track per row (a thread track for the app's own threads), and the extra
  // tracks that overlapping slices need.
  void Tracks() {
    for (const TraceView::Process& p : view_.processes) {
      process_track_[p.pid] = NewTrack(0, view_.Text(p.name), p.pid, 0, true, false);
    }
    for (const TraceView::Thread& t : view_.threads) RowTrack(t.pid, t.tid, view_.Text(t.name));
  }

  uint32_t ProcessTrack(int64_t pid) {
    auto it = process_track_.find(pid);
    if (it != process_track_.end()) return it->second;
    const uint32_t track = NewTrack(0, absl::StrCat("process ", pid), pid, 0, true, false);
    process_track_[pid] = track;
    return track;
  }

  uint32_t RowTrack(int64_t pid, int64_t tid, const std::string& name) {
    const auto key = std::make_pair(pid, tid);
    if (auto it = row_track_.find(key); it != row_track_.end()) return it->second;
    const uint64_t parent = tracks_[ProcessTrack(pid)].uuid;
    // Host threads of the app (not CUPTI's synchronization row): thread tracks. Streams and the
    // rest are named tracks of their process (a stream id is no thread id).
    const bool thread = !view_.processes.empty() && pid == view_.processes.front().pid &&
                        tid != kSyncTid;
    const uint32_t track = NewTrack(parent, name, pid, tid, false, thread);
    row_track_[key] = track;
    return track;
  }

  // Places intervals (`what` 0: slices, 2: async ranges; indexes into the view) on `main_track`,
  // or on the first child track "NAME (overlapping N)" of it where each nests: taken by start,
  // longer first, an interval goes on the first track whose open intervals contain it.
  void PlaceOnLanes(std::vector<uint32_t>& items, uint8_t what, uint32_t main_track) {
    const auto bounds = [&](uint32_t i) {
      if (what == 0) {
        return std::pair{Delta(view_.slices[i].start_ns), Delta(view_.slices[i].end_ns)};
      }
      return std::pair{Delta(view_.async_ranges[i].start_ns), Delta(view_.async_ranges[i].end_ns)};
    };  // the view keeps every end at or after its start
    std::sort(items.begin(), items.end(), [&](uint32_t a, uint32_t b) {
      const auto [as, ae] = bounds(a);
      const auto [bs, be] = bounds(b);
      return std::tie(as, be, a) < std::tie(bs, ae, b);
    });
    std::vector<uint32_t> lane_tracks = {main_track};
    std::vector<std::vector<uint64_t>> lanes(1);  // open intervals' ends, per lane
    for (uint32_t i : items) {
      const auto [start, end] = bounds(i);
      size_t lane = 0;
      for (;; ++lane) {
        if (lane == lanes.size()) {
          lanes.emplace_back();
          const Track& main = tracks_[main_track];
          lane_tracks.push_back(NewTrack(main.uuid,
                                         absl::StrCat(main.name, " (overlapping ", lane, ")"),
                                         main.pid, main.tid, false, false));
        }
        std::vector<uint64_t>& open = lanes[lane];
        while (!open.empty() && open.back() <= start) open.pop_back();
        if (open.empty() || open.back() >= end) break;
      }
      lanes[lane].push_back(end);
      const uint32_t track = lane_tracks[lane];
      edges_.push_back({start, track, EdgeKind::kBegin, what, i});
      edges_.push_back({end, track, end == start ? EdgeKind::kZeroEnd : EdgeKind::kEnd, what, i});
    }
  }

  // Every slice on its row's track (or an overlapping one), instants on their row's, NVTX
  // start/end ranges on one track per name of the app's process; then all in time order.
  void Edges() {
    edges_.reserve(2 * view_.slices.size() + view_.instants.size() + 2 * view_.async_ranges.size());
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> by_row;
    for (uint32_t i = 0; i < view_.slices.size(); ++i) {
      by_row[{view_.slices[i].pid, view_.slices[i].tid}].push_back(i);
    }
    for (auto& [row, slices] : by_row) {
      PlaceOnLanes(slices, 0, RowTrack(row.first, row.second, absl::StrCat("thread ", row.second)));
    }
    for (uint32_t i = 0; i < view_.instants.size(); ++i) {
      const TraceView::Instant& in = view_.instants[i];
      edges_.push_back({Delta(in.time_ns),
                        RowTrack(in.pid, in.tid, absl::StrCat("thread ", in.tid)),
                        EdgeKind::kInstant, 1, i});
    }
    std::map<std::pair<int64_t, uint32_t>, std::vector<uint32_t>> by_name;  // (pid, name)
    for (uint32_t i = 0; i < view_.async_ranges.size(); ++i) {
      by_name[{view_.async_ranges[i].pid, view_.async_ranges[i].name}].push_back(i);
    }
    for (auto& [key, ranges] : by_name) {
      const uint32_t track = NewTrack(tracks_[ProcessTrack(key.first)].uuid, view_.Text(key.second),
                                      key.first, 0, false, false);
      PlaceOnLanes(ranges, 2, track);
    }
    std::sort(edges_.begin(), edges_.end(), [this](const Edge& a, const Edge& b) {
      if (a.ts != b.ts || a.track != b.track || a.kind != b.kind) {
        return std::tie(a.ts, a.track, a.kind) < std::tie(b.ts, b.track, b.kind);
      }
      // Ends: the later-started (inner) slice first; equal starts: the later index first.
      const bool end = a.kind == EdgeKind::kEnd || a.kind == EdgeKind::kZeroEnd;
      const uint64_t ai = end ? ~uint64_t{a.index} : a.index;
      const uint64_t bi = end ? ~uint64_t{b.index} : b.index;
      const uint64_t at = Tie(a), bt = Tie(b);
      return std::tie(at, ai) < std::tie(bt, bi);
    });
  }

  // Among edges of one kind at one time on one track: begins, the larger end first (its
  // complement); ends, the later start first.
  uint64_t Tie(const Edge& e) const {
    if (e.what == 1) return 0;
    const bool begin = e.kind == EdgeKind::kBegin;
    if (e.what == 0) {
      const TraceView::Slice& s = view_.slices[e.index];
      return ~Delta(begin ? s.end_ns : s.start_ns);
    }
    const TraceView::AsyncRange& r = view_.async_ranges[e.index];
    return ~Delta(begin ? r.end_ns : r.start_ns);
  }

  void Emit(const pb::TracePacket& packet) {
    coded_->WriteTag(1 << 3 | 2);  // Trace.packet = 1, length-delimited
    coded_->WriteVarint32(static_cast<uint32_t>(packet.ByteSizeLong()));
    packet.SerializeWithCachedSizes(coded_);
  }

  void Descriptor(const Track& t) {
    pb::TracePacket packet;
    packet.set_trusted_packet_sequence_id(kDescriptorSequence);
    pb::TrackDescriptor* d = packet.mutable_track_descriptor();
    d->set_uuid(t.uuid);
    if (t.parent_uuid != 0) d->set_parent_uuid(t.parent_uuid);
    if (t.process) {
      d->mutable_process()->set_pid(static_cast<int32_t>(t.pid));
      d->mutable_process()->set_process_name(t.name);
    } else if (t.thread) {
      d->mutable_thread()->set_pid(static_cast<int32_t>(t.pid));
      d->mutable_thread()->set_tid(t.tid);
      d->mutable_thread()->set_thread_name(t.name);
    } else {
      d->set_name(t.name);
    }
    Emit(packet);
  }

  // The interned id of string `index` of `kind` on the track's sequence, adding it to `interned`
  // the first time.
  uint64_t Intern(Track& t, uint32_t kind, uint32_t index, pb::InternedData* interned) {
    const uint64_t iid = uint64_t{index} + 1;
    if (t.interned.insert(uint64_t{kind} << 32 | index).second) {
      const std::string& text = view_.Text(index);
      if (kind == 0) {
        pb::EventName* n = interned->add_event_names();
        n->set_iid(iid);
        n->set_name(text);
      } else if (kind == 1) {
        pb::EventCategory* c = interned->add_event_categories();
        c->set_iid(iid);
        c->set_name(text);
      } else {
        pb::DebugAnnotationName* n = interned->add_debug_annotation_names();
        n->set_iid(iid);
        n->set_name(text);
      }
    }
    return iid;
  }

  void Event(const Edge& e) {
    Track& t = tracks_[e.track];
    pb::TracePacket packet;
    packet.set_trusted_packet_sequence_id(t.sequence);
    if (!t.started) {
      // The sequence's first event: its state, its clock (deltas from here) and default track.
      t.started = true;
      t.last_ts = e.ts;
      pb::TracePacket first;
      first.set_trusted_packet_sequence_id(t.sequence);
      first.set_sequence_flags(kStateCleared);
      first.set_first_packet_on_sequence(true);
      pb::ClockSnapshot* clocks = first.mutable_clock_snapshot();
      pb::ClockSnapshot::Clock* boot = clocks->add_clocks();
      boot->set_clock_id(kBootTimeClock);
      boot->set_timestamp(e.ts);
      pb::ClockSnapshot::Clock* own = clocks->add_clocks();
      own->set_clock_id(kIncrementalClock);
      own->set_timestamp(e.ts);
      own->set_is_incremental(true);
      first.mutable_trace_packet_defaults()->set_timestamp_clock_id(kIncrementalClock);
      first.mutable_trace_packet_defaults()->mutable_track_event_defaults()->set_track_uuid(
          t.uuid);
      Emit(first);
    }
    packet.set_timestamp(e.ts - t.last_ts);
    t.last_ts = e.ts;
    // No SEQ_NEEDS_INCREMENTAL_STATE: every sequence starts by clearing its state, so its events
    // never need a reader to skip them (and the flag would cost 2 bytes an event).
    pb::TrackEvent* te = packet.mutable_track_event();
    pb::InternedData interned;
    if (e.kind == EdgeKind::kEnd || e.kind == EdgeKind::kZeroEnd) {
      te->set_type(pb::TrackEvent::TYPE_SLICE_END);
    } else if (e.what == 1) {
      const TraceView::Instant& in = view_.instants[e.index];
      te->set_type(pb::TrackEvent::TYPE_INSTANT);
      te->set_name_iid(Intern(t, 0, in.name, &interned));
      te->add_category_iids(Intern(t, 1, in.category, &interned));
    } else if (e.what == 2) {
      const TraceView::AsyncRange& r = view_.async_ranges[e.index];
      te->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
      te->set_name_iid(Intern(t, 0, r.name, &interned));
      te->add_category_iids(Intern(t, 1, r.category, &interned));
      pb::DebugAnnotation* id = te->add_debug_annotations();
      id->set_name_iid(Intern(t, 2, TraceView::kRangeIdKey, &interned));
      id->set_uint_value(r.id);
      if (r.unclosed) {
        pb::DebugAnnotation* a = te->add_debug_annotations();
        a->set_name_iid(Intern(t, 2, TraceView::kUnclosedKey, &interned));
        a->set_bool_value(true);
      }
    } else {
      const TraceView::Slice& s = view_.slices[e.index];
      te->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
      te->set_name_iid(Intern(t, 0, s.name, &interned));
      te->add_category_iids(Intern(t, 1, s.category, &interned));
      if (s.flow_out != 0) te->add_flow_ids(s.flow_out);
      if (s.flow_in != 0) te->add_terminating_flow_ids(s.flow_in);
      for (uint32_t i = 0; i < s.arg_count; ++i) {
        const TraceView::Arg& a = view_.args[s.first_arg + i];
        if ((a.kind == TraceView::Arg::Kind::kInt || a.kind == TraceView::Arg::Kind::kUint ||
             a.kind == TraceView::Arg::Kind::kPointer) &&
            a.value == 0) {
          continue;  // left out: reads as 0
        }
        if (a.key == TraceView::kCorrelationIdKey && a.kind != TraceView::Arg::Kind::kText &&
            a.kind != TraceView::Arg::Kind::kBool && a.value > 0) {
          // TrackEvent's own field for it: 4 bytes where an annotation takes 7.
          te->set_correlation_id(static_cast<uint64_t>(a.value));
          continue;
        }
        pb::DebugAnnotation* d = te->add_debug_annotations();
        d->set_name_iid(Intern(t, 2, a.key, &interned));
        switch (a.kind) {
          case TraceView::Arg::Kind::kInt:
            d->set_int_value(a.value);
            break;
          case TraceView::Arg::Kind::kUint:
            d->set_uint_value(static_cast<uint64_t>(a.value));
            break;
          case TraceView::Arg::Kind::kText:
            d->set_string_value(view_.Text(static_cast<uint32_t>(a.value)));
            break;
          case TraceView::Arg::Kind::kBool:
            d->set_bool_value(a.value != 0);
            break;
          case TraceView::Arg::Kind::kPointer:
            // A handle repeats call after call: its hex text interned once per sequence.
            d->set_string_value_iid(InternPointer(t, static_cast<uint64_t>(a.value), &interned));
            break;
        }
      }
    }
    if (interned.ByteSizeLong() > 0) *packet.mutable_interned_data() = std::move(interned);
    Emit(packet);
  }

  uint64_t InternPointer(Track& t, uint64_t pointer, pb::InternedData* interned) {
    auto [it, fresh] = pointer_iids_.try_emplace(pointer, pointer_iids_.size() + 1);
    if (t.interned_pointers.insert(pointer).second) {
      pb::InternedString* s = interned->add_debug_annotation_string_values();
      s->set_iid(it->second);
      s->set_str(absl::StrCat("0x", absl::Hex(pointer)));
    }
    return it->second;
  }

  const TraceView& view_;
  std::vector<Track> tracks_;
  absl::flat_hash_map<int64_t, uint32_t> process_track_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t> row_track_;
  std::vector<Edge> edges_;
  absl::flat_hash_map<uint64_t, uint64_t> pointer_iids_;      // handle -> its interned text's iid
  google::protobuf::io::CodedOutputStream* coded_ = nullptr;  // while Write() writes
};

}  // namespace

void WritePerfettoTrace(const TraceView& view, ByteSink& out) { PerfettoWriter(view).Write(out); }

std::string RenderPerfettoTrace(const TraceView& view) {
  std::string out;
  StringByteSink sink(&out);
  WritePerfettoTrace(view, sink);
  return out;
}

std::string RenderPerfettoTrace(const Trace& trace, const TraceViewOptions& options) {
  return RenderPerfettoTrace(BuildTraceView(trace, options));
}

}  // namespace brrr
