// Tests for the native Perfetto export: read back, it holds the trace view's slices, instants,
// NVTX ranges and flows event by event (name, category, times, row, flow ids), is well formed for
// a reader (sequences cleared first, interned ids emitted before use, every END closing a BEGIN on
// its track), puts slices that overlap without nesting on an extra track of their row, and leaves
// out zero-valued integer arguments only.
#include "viewer/perfetto/perfetto_trace.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/chrome_trace.h"
#include "viewer/format/sample_trace.h"
#include "viewer/perfetto/perfetto_read_for_test.h"

namespace brrr {
namespace {

using perfetto_test::ReadPerfettoTrace;
using perfetto_test::ReadSlice;
using perfetto_test::ReadTrace;
using ::testing::IsEmpty;

using Row = std::tuple<std::string, std::string, std::string, uint64_t, uint64_t, uint64_t,
                       uint64_t, bool>;

// The view's events as rows (row name, name, category, start, end, flows, instant), sorted.
std::vector<Row> ViewRows(const TraceView& v) {
  const auto row_name = [&](int64_t pid, int64_t tid) {
    for (const TraceView::Thread& t : v.threads) {
      if (t.pid == pid && t.tid == tid) return v.Text(t.name);
    }
    return std::string("?");
  };
  const auto at = [&](int64_t ns) {
    return static_cast<uint64_t>(ns) - static_cast<uint64_t>(v.origin_ns);
  };
  std::vector<Row> rows;
  for (const TraceView::Slice& s : v.slices) {
    rows.emplace_back(row_name(s.pid, s.tid), v.Text(s.name), v.Text(s.category), at(s.start_ns),
                      at(s.end_ns), s.flow_out, s.flow_in, false);
  }
  for (const TraceView::Instant& i : v.instants) {
    rows.emplace_back(row_name(i.pid, i.tid), v.Text(i.name), v.Text(i.category), at(i.time_ns),
                      at(i.time_ns), 0, 0, true);
  }
  for (const TraceView::AsyncRange& r : v.async_ranges) {
    rows.emplace_back(v.Text(r.name), v.Text(r.name), v.Text(r.category), at(r.start_ns),
                      at(r.end_ns), 0, 0, false);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The same rows read back; a slice on an "overlapping" track counts on its row.
std::vector<Row> ReadRows(const ReadTrace& t) {
  std::vector<Row> rows;
  for (const ReadSlice& s : t.slices) {
    std::string track = s.track;
    if (const size_t cut = track.find(" (overlapping "); cut != std::string::npos) {
      track.resize(cut);
    }
    rows.emplace_back(track, s.name, s.category, s.start, s.end, s.flow_out, s.flow_in,
                      s.instant);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(PerfettoTraceTest, HoldsTheViewsEventsOneByOne) {
  const Trace trace = SampleTrace();
  const TraceView view = BuildTraceView(trace);
  const ReadTrace read = ReadPerfettoTrace(RenderPerfettoTrace(view));
  EXPECT_THAT(read.errors, IsEmpty());
  const std::vector<Row> want = ViewRows(view);
  EXPECT_EQ(ReadRows(read), want);
  // The sample's flows: calls 11 and 12 to their first device ops.
  int flows_out = 0, flows_in = 0;
  for (const Row& r : want) {
    flows_out += std::get<5>(r) != 0;
    flows_in += std::get<6>(r) != 0;
  }
  EXPECT_EQ(flows_out, 2);
  EXPECT_EQ(flows_in, 2);
  // Rows are described: the app's process by its title, its threads, GPU processes, streams.
  std::vector<std::string> names;
  for (const auto& [uuid, name] : read.track_names) names.push_back(name);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"app", "thread 77", "thread 78", "GPU 0", "GPU 1",
                                              "stream 7", "stream 13",
                                              "CUDA synchronization (CUPTI)"}));
}

TEST(PerfettoTraceTest, ArgumentsAreKeptExceptZeroIntegers) {
  const ReadTrace read = ReadPerfettoTrace(RenderPerfettoTrace(SampleTrace()));
  bool seen = false;
  for (ReadSlice s : read.slices) {
    if (s.name != "api 22") continue;  // the second host call: stream 0x7f00, 1 MiB, no stack
    seen = true;
    EXPECT_EQ(s.args["stream"], "0x7f00");  // a handle: hex, interned
    EXPECT_EQ(s.args["bytes"], "1048576");
    EXPECT_EQ(s.args["result"], "700");
    EXPECT_EQ(s.args["copy_kind"], "2");
    EXPECT_EQ(s.args.count("stack_id"), 0u) << "0: left out";
  }
  EXPECT_TRUE(seen);
}

// CUPTI's correlation ids go in TrackEvent's own field (52), never as an annotation: the kernel
// and the copy of the sample (ids 11 and 12) and the host calls joined to their API records.
TEST(PerfettoTraceTest, CorrelationIdsAreTrackEventsOwnField) {
  const std::string bytes = RenderPerfettoTrace(SampleTrace());
  perfetto::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(bytes));
  std::vector<uint64_t> ids;
  for (const perfetto::protos::TracePacket& p : trace.packet()) {
    for (const auto& key : p.interned_data().debug_annotation_names()) {
      EXPECT_NE(key.name(), "correlation_id");
    }
    if (p.track_event().has_correlation_id()) ids.push_back(p.track_event().correlation_id());
  }
  EXPECT_THAT(ids, ::testing::IsSupersetOf({11u, 12u}));
  const ReadTrace read = ReadPerfettoTrace(bytes);
  std::vector<std::string> with_11;  // the kernel, and the launch's API record read back
  for (ReadSlice s : read.slices) {
    if (s.args["correlation_id"] == "11") with_11.push_back(s.name);
  }
  EXPECT_THAT(with_11, ::testing::Contains("tiny(float*)"));
  EXPECT_GE(with_11.size(), 2u);
}

TEST(PerfettoTraceTest, SlicesThatOverlapWithoutNestingGetAnExtraTrackOfTheirRow) {
  Trace t;
  t.app_pid = 10;
  // Two threads' synchronizations overlap on CUPTI's one synchronization row; a third nests in
  // the first.
  t.sync_activities.push_back({1'000, 3'000, 3, 1, 7});
  t.sync_activities.push_back({2'000, 4'000, 3, 2, 7});
  t.sync_activities.push_back({2'500, 2'600, 1, 3, 7});
  const ReadTrace read = ReadPerfettoTrace(RenderPerfettoTrace(t));
  EXPECT_THAT(read.errors, IsEmpty());
  ASSERT_EQ(read.slices.size(), 3u);
  std::vector<std::string> tracks;
  for (const ReadSlice& s : read.slices) tracks.push_back(s.track);
  EXPECT_THAT(tracks, ::testing::ElementsAre("CUDA synchronization (CUPTI)",
                                             "CUDA synchronization (CUPTI) (overlapping 1)",
                                             "CUDA synchronization (CUPTI)"));
  EXPECT_EQ(read.slices[1].start, 1'000u);  // from the earliest event
  EXPECT_EQ(read.slices[1].end, 3'000u);
}

TEST(PerfettoTraceTest, EqualTimesNestAndZeroLengthSlicesCloseThemselves) {
  Trace t;
  t.app_pid = 10;
  // On one thread: a call [0, 10] with a nested call [0, 10] (identical), a zero-length call at
  // 10 and one at 20 after a call [10, 20].
  t.host_calls.push_back({0, 10, 0, 0, 10, 0, 0, 1, 0});
  t.host_calls.push_back({0, 10, 0, 0, 10, 0, 0, 2, 0});
  t.host_calls.push_back({10, 10, 0, 0, 10, 0, 0, 3, 0});
  t.host_calls.push_back({10, 20, 0, 0, 10, 0, 0, 4, 0});
  t.host_calls.push_back({20, 20, 0, 0, 10, 0, 0, 5, 0});
  const ReadTrace read = ReadPerfettoTrace(RenderPerfettoTrace(t));
  EXPECT_THAT(read.errors, IsEmpty());
  for (const ReadSlice& s : read.slices) EXPECT_EQ(s.track, "main thread 10") << s.name;
  const TraceView view = BuildTraceView(t);
  EXPECT_EQ(ReadRows(read), ViewRows(view));
}

TEST(PerfettoTraceTest, NvtxStartEndRangesShareOneTrackPerNameAndOverlapsGetAnother) {
  Trace t;
  t.app_pid = 10;
  t.names = {"load", "eval"};
  // start/end ranges (op 3, 4): "load" twice overlapping, then again after both; "eval" once.
  t.nvtx.push_back({100, 1, 10, 0, kNoTraceName, 3});
  t.nvtx.push_back({200, 2, 11, 0, kNoTraceName, 3});
  t.nvtx.push_back({300, 1, 10, 0, kNoTraceName, 4});
  t.nvtx.push_back({400, 2, 11, 0, kNoTraceName, 4});
  t.nvtx.push_back({500, 3, 10, 0, kNoTraceName, 3});
  t.nvtx.push_back({600, 3, 10, 0, kNoTraceName, 4});
  t.nvtx.push_back({150, 4, 10, 1, kNoTraceName, 3});
  t.nvtx.push_back({250, 4, 12, 1, kNoTraceName, 4});
  const ReadTrace read = ReadPerfettoTrace(RenderPerfettoTrace(t));
  EXPECT_THAT(read.errors, IsEmpty());
  std::vector<std::string> tracks;
  for (const ReadSlice& s : read.slices) {
    tracks.push_back(s.track + " " + std::to_string(s.start) + "-" + std::to_string(s.end));
  }
  // Times from the earliest event (100).
  EXPECT_THAT(tracks, ::testing::UnorderedElementsAre("load 0-200", "load (overlapping 1) 100-300",
                                                      "load 400-500", "eval 50-150"));
  int range_tracks = 0;
  for (const auto& [uuid, name] : read.track_names) {
    range_tracks += name.rfind("load", 0) == 0 || name == "eval";
  }
  EXPECT_EQ(range_tracks, 3);
}

TEST(PerfettoTraceTest, AnEmptyTraceIsAValidTrace) {
  const ReadTrace read = ReadPerfettoTrace(RenderPerfettoTrace(Trace{}));
  EXPECT_THAT(read.errors, IsEmpty());
  EXPECT_TRUE(read.slices.empty());
}

// Records the pieces it is handed.
class PieceSink final : public ByteSink {
 public:
  void Append(absl::string_view bytes) override {
    pieces.push_back(bytes.size());
    all.append(bytes.data(), bytes.size());
  }
  std::vector<size_t> pieces;
  std::string all;
};

// A trace big enough for several MiB of output: both exports hand it over in pieces of about a
// MiB (never the whole output at once), and the pieces are exactly the bytes of the whole render.
TEST(PerfettoTraceTest, BothExportsAreHandedOverInPiecesOfTheWholeRender) {
  Trace trace;
  trace.app_pid = 42;
  trace.cap = 200'000;
  for (uint32_t i = 0; i < 80'000; ++i) {
    TraceHostCall h;
    h.enter_ns = 1'000'000 + int64_t{i} * 2'000;
    h.exit_ns = h.enter_ns + 700;
    h.stream = 0x7f0000001000;
    h.tid = 42;
    h.stack_id = 1 + i % 7;
    h.result = static_cast<int32_t>(i);
    h.correlation_id = i + 1;
    h.api = 1;
    trace.host_calls.push_back(h);
  }
  const TraceView view = BuildTraceView(trace);
  for (const bool chrome : {true, false}) {
    SCOPED_TRACE(chrome ? "chrome" : "perfetto");
    PieceSink sink;
    std::string whole;
    if (chrome) {
      WriteChromeTrace(view, sink);
      whole = RenderChromeTrace(view);
    } else {
      WritePerfettoTrace(view, sink);
      whole = RenderPerfettoTrace(view);
    }
    EXPECT_EQ(sink.all, whole);
    ASSERT_GT(whole.size(), size_t{3} << 20);
    EXPECT_GE(sink.pieces.size(), 3u);
    EXPECT_LE(*std::max_element(sink.pieces.begin(), sink.pieces.end()), (size_t{1} << 20) + 4096);
  }
}

}  // namespace
}  // namespace brrr
