// End-to-end test of the views of a saved run (`brrr report FILE --html/--folded/
// --folded-launches/--chrome-trace`): the nvcc-built planted_syncs program runs on the simulated
// device under `brrr run --trace`; then
//  - the folded stall stacks have the shape flamegraph.pl reads, root first: each planted stall's
//    function sits under `main` with its blocked call as the leaf, weighted by the stall's
//    nanoseconds in the report;
//  - the saved timeline adds up exactly to each device's breakdown;
//  - the Chrome trace loads with Python's json, names the main thread and marks the planted
//    stalls; with a cap below the run's events it holds exactly `cap` events and still loads;
//  - the HTML page, opened by a real headless Chromium (tests/e2e/html_report_check.py; skipped
//    when Chromium is missing), shows the verdict, the top planted stall's function and the top
//    kernel, draws its charts (a 1400x1000 screenshot with the breakdown colours) and points at
//    nothing outside itself.
// The native Perfetto export decodes with protoc, holds the Chrome export's events one by one and
// is at least 4x smaller.
// The pprof export, read by Go's pprof, puts the planted stall and the kernel's device time on
// their stacks.
// An NVTX program's ranges are slices of its Chrome trace (push/pop on their thread, start/end
// async). Paths come from the build: BRRR_BIN, E2E_BIN_DIR, HTML_CHECK, PYTHON3.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/timeline_sums_for_test.h"
#include "viewer/perfetto/perfetto_read_for_test.h"

extern char** environ;

namespace brrr {
namespace {

using ::testing::HasSubstr;

class ViewsEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("views-e2e-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  e2e::ProcessResult Run(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env = {}) {
    return e2e::Spawn(argv, e2e::SimEnvironment(env), /*with_stderr=*/true);
  }
  // python3 (and the Chromium it starts) in the environment without the simulated device or a
  // preloaded sanitizer runtime.
  e2e::ProcessResult Python(std::vector<std::string> argv) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string kv = *e;
      if (kv.rfind("LD_PRELOAD=", 0) != 0 && kv.rfind("LD_LIBRARY_PATH=", 0) != 0) {
        env.push_back(kv);
      }
    }
    argv.insert(argv.begin(), PYTHON3);
    return e2e::Spawn(argv, env, /*with_stderr=*/true);
  }

  // Runs planted_syncs (10 ms kernels: every planted call blocks) under `brrr run`.
  Report RunPlanted(const std::string& file, const std::string& trace_option) {
    const e2e::ProcessResult r =
        Run({BRRR_BIN, "run", "--quiet", trace_option, "--output", file, "--",
             std::string(E2E_BIN_DIR) + "/e2e_planted_syncs"},
            // The polling loop writes ~50k query records: a ring that holds them all keeps a
            // loaded host's slow drain from dropping one of the 35 launches the sums below need.
            {"BRRR_SIM_KERNELS=work=10000000", "BRRR_LAUNCH_SAMPLE=1", "BRRR_RING_RECORDS=262144"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    absl::StatusOr<Report> report = ReadBrrrFile(file);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *report : Report{};
  }

  std::filesystem::path dir_;
};

// "cudaMemcpy (file:line)" -> "cudaMemcpy"; the function part of a frame.
std::string Function(const std::string& frame) { return frame.substr(0, frame.find(" (")); }

TEST_F(ViewsEndToEnd, FoldedTimelineChromeTraceAndHtmlShowThePlantedStalls) {
  const std::string file = Path("run.brrr");
  const Report report = RunPlanted(file, "--trace");
  ASSERT_FALSE(report.stalls.empty());
  const e2e::ProcessResult views =
      Run({BRRR_BIN, "report", file, "--html", Path("r.html"), "--folded", Path("stalls.folded"),
           "--folded-launches", Path("launches.folded"), "--chrome-trace", Path("trace.json")});
  ASSERT_EQ(views.exit_code, 0) << views.output;

  // Folded stacks: flamegraph.pl's "frame;frame;... VALUE" lines, root first.
  const std::regex line_shape(R"(^([^;\n]+(?:;[^;\n]+)*) ([0-9]+)$)");
  std::vector<std::string> lines =
      absl::StrSplit(e2e::ReadFile(Path("stalls.folded")), '\n', absl::SkipEmpty());
  ASSERT_FALSE(lines.empty());
  bool found_d2h = false;
  for (const std::string& line : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, line_shape)) << line;
    const std::vector<std::string> frames = absl::StrSplit(m[1].str(), ';');
    if (frames.back() != "cudaMemcpy [d2h_copy]") continue;
    found_d2h = true;
    // main, then the planting function, then the blocked call as the leaf.
    size_t main_at = frames.size(), plant_at = frames.size();
    for (size_t i = 0; i < frames.size(); ++i) {
      if (Function(frames[i]) == "main") main_at = std::min(main_at, i);
      if (frames[i].find("plant_d2h_copy") != std::string::npos) plant_at = i;
    }
    EXPECT_LT(main_at, plant_at) << line;
    EXPECT_LT(plant_at, frames.size() - 1) << line;
    // Weighted by the report's blocked nanoseconds of that stall row.
    for (const Stall& s : report.stalls) {
      if (s.reason == "d2h_copy") {
        EXPECT_EQ(m[2].str(), std::to_string(s.total_ns));
      }
    }
  }
  EXPECT_TRUE(found_d2h) << e2e::ReadFile(Path("stalls.folded"));
  // Every launch sampled: the launch sites' weights add up to the 35 planted launches.
  uint64_t launches = 0;
  const std::vector<std::string> launch_lines =
      absl::StrSplit(e2e::ReadFile(Path("launches.folded")), '\n', absl::SkipEmpty());
  ASSERT_FALSE(launch_lines.empty());
  for (const std::string& line : launch_lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, line_shape)) << line;
    EXPECT_THAT(line, HasSubstr("main ("));
    launches += std::stoull(m[2].str());
  }
  EXPECT_EQ(launches, 35u);

  // The timeline adds up to the breakdown, part by part, exactly.
  ASSERT_TRUE(report.timeline.has_value());
  ASSERT_EQ(report.timeline->devices.size(), report.devices.size());
  for (size_t d = 0; d < report.devices.size(); ++d) {
    const DeviceBreakdown& want = report.devices[d];
    const TimelineBucket sum = SumOfBuckets(report.timeline->devices[d]);
    EXPECT_EQ(DescribeParts(sum), DescribeParts(PartsOf(want)));
    EXPECT_GT(sum.sync_drain_ns, 0);  // the planted stalls drained the device
  }

  // The Chrome trace loads with Python's json; the main thread is named and the planted
  // synchronous copies are marked as stalls.
  const e2e::ProcessResult py = Python(
      {"-c",
       "import json,sys; d=json.load(open(sys.argv[1])); ev=d['traceEvents']; "
       "print('threads', [e['args']['name'] for e in ev if e.get('name')=='thread_name']); "
       "print('stalls', sorted(set(e['args']['stall'] for e in ev if e.get('cat')=='host,stall')))",
       Path("trace.json")});
  ASSERT_EQ(py.exit_code, 0) << py.output;
  EXPECT_THAT(py.output, HasSubstr("'main thread "));
  EXPECT_THAT(py.output, HasSubstr("'d2h_copy'"));
  EXPECT_THAT(py.output, HasSubstr("'device_sync'"));

  // The page in a real browser.
  // The largest planted stall (on a loaded host a stackless teardown call may rank above it).
  std::string top_stall;
  for (const Stall& s : report.stalls) {
    if (!s.stack.empty() && s.stack[0].find("plant_") != std::string::npos) {
      top_stall = Function(s.stack[0]);
      break;
    }
  }
  ASSERT_THAT(top_stall, HasSubstr("plant_"));
  ASSERT_FALSE(report.kernels.top.empty());
  const e2e::ProcessResult page =
      Python({HTML_CHECK, "--html", Path("r.html"), "--expect", report.verdict.regime,
           "--expect", top_stall, "--expect", report.kernels.top[0].name, "--colour", "#2e9d5b",
           "--colour", "#d9453d"});
  if (page.exit_code == 77) GTEST_SKIP() << page.output;
  EXPECT_EQ(page.exit_code, 0) << page.output;
}

// The pprof export read by a real reader, Go's pprof: the planted d2h stall's blocked time on
// its function's stack, with the blocked call as the leaf; the kernel's device time with its name
// as the leaf (every launch sampled: all of it); the process's pid as a label.
TEST_F(ViewsEndToEnd, PprofProfileIsReadByGoPprof) {
  if (std::string(GO_BIN).empty()) GTEST_SKIP() << "no go (Debian's golang-go; tools/setup.sh)";
  const std::string file = Path("run.brrr");
  const Report report = RunPlanted(file, "--trace=1");
  const e2e::ProcessResult export_run = Run({BRRR_BIN, "report", file, "--pprof", Path("p.pb.gz")});
  ASSERT_EQ(export_run.exit_code, 0) << export_run.output;
  const auto pprof = [&](const std::string& sample_index, const std::string& view) {
    std::vector<std::string> env = {"HOME=" + dir_.string(), "GOCACHE=" + Path("gocache"),
                                    "PATH=/usr/bin:/bin"};
    return e2e::Spawn({GO_BIN, "tool", "pprof", "-symbolize=none", "-unit=ns", "-nodecount=200",
                       "-sample_index=" + sample_index, view, Path("p.pb.gz")},
                      env, /*with_stderr=*/true);
  };
  // "  FLATns  x%  y%  CUMns  z%  NAME": the flat nanoseconds of the row named `name`, or -1.
  const auto flat_of = [](const std::string& top, const std::string& name) -> int64_t {
    for (const absl::string_view line : absl::StrSplit(top, '\n')) {
      const std::vector<absl::string_view> cols = absl::StrSplit(line, ' ', absl::SkipWhitespace());
      if (cols.size() < 6 || !absl::EndsWith(line, name)) continue;
      absl::string_view flat = cols[0];
      int64_t ns = 0;
      if (absl::ConsumeSuffix(&flat, "ns") && absl::SimpleAtoi(flat, &ns)) return ns;
    }
    return -1;
  };

  const e2e::ProcessResult stalls = pprof("host_stall", "-top");
  ASSERT_EQ(stalls.exit_code, 0) << stalls.output;
  int64_t d2h_ns = 0;
  for (const Stall& s : report.stalls) {
    if (s.reason == "d2h_copy") d2h_ns += s.total_ns;
  }
  ASSERT_GT(d2h_ns, 0);
  EXPECT_EQ(flat_of(stalls.output, "cudaMemcpy [d2h_copy]"), d2h_ns) << stalls.output;
  EXPECT_THAT(stalls.output, HasSubstr("plant_d2h_copy")) << "the stall's function";

  const e2e::ProcessResult device = pprof("device_time", "-top");
  ASSERT_EQ(device.exit_code, 0) << device.output;
  ASSERT_FALSE(report.kernels.top.empty());
  const KernelStat& work = report.kernels.top[0];
  EXPECT_THAT(work.name, HasSubstr("work"));
  EXPECT_EQ(report.launch_sample_period, 1u);
  EXPECT_EQ(flat_of(device.output, work.name), work.device_ns) << device.output;

  const e2e::ProcessResult tags = pprof("host_stall", "-tags");
  ASSERT_EQ(tags.exit_code, 0) << tags.output;
  ASSERT_TRUE(report.process.has_value());
  EXPECT_THAT(tags.output, HasSubstr(": " + std::to_string(report.process->pid)));
}

// One event of a trace export, as both formats can say it: (row, name, category, start ns, end ns,
// flow started, flow ended, instant). Rows are named as the export names them.
using ExportRow =
    std::tuple<std::string, std::string, std::string, int64_t, int64_t, uint64_t, uint64_t, bool>;

// The Chrome JSON's events as rows: "X" slices, "i" instants, "b"/"e" async ranges (their row is
// the range's name, as the Perfetto export's track), "s"/"f" flows joined to the slice they start
// or end at (same row and start).
std::vector<ExportRow> ChromeRows(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text);
  std::map<std::pair<int64_t, int64_t>, std::string> row_names;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      row_names[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}] = e["args"]["name"];
    }
  }
  const auto ns = [](const nlohmann::json& us) {
    return static_cast<int64_t>(std::llround(us.get<double>() * 1000.0));
  };
  std::vector<ExportRow> rows;
  std::map<std::tuple<std::string, int64_t>, std::vector<size_t>> by_start;
  std::map<uint64_t, int64_t> async_start;
  std::vector<std::tuple<std::string, int64_t, uint64_t, bool>> flows;  // row, ts, id, out
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") continue;
    const std::string row = row_names[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}];
    if (ph == "X") {
      const int64_t start = ns(e["ts"]);
      by_start[{row, start}].push_back(rows.size());
      rows.emplace_back(row, e["name"], e["cat"], start, start + ns(e["dur"]), 0, 0, false);
    } else if (ph == "i") {
      rows.emplace_back(row, e["name"], e["cat"], ns(e["ts"]), ns(e["ts"]), 0, 0, true);
    } else if (ph == "b") {
      async_start[e["id"].get<uint64_t>()] = ns(e["ts"]);
    } else if (ph == "e") {
      rows.emplace_back(e["name"], e["name"], e["cat"], async_start[e["id"].get<uint64_t>()],
                        ns(e["ts"]), 0, 0, false);
    } else if (ph == "s" || ph == "f") {
      flows.emplace_back(row, ns(e["ts"]), e["id"].get<uint64_t>(), ph == "s");
    }
  }
  for (const auto& [row, ts, id, out] : flows) {
    const auto it = by_start.find({row, ts});
    if (it == by_start.end()) continue;  // a flow at no slice: left unmatched, the rows differ
    for (size_t i : it->second) {
      uint64_t& slot = out ? std::get<5>(rows[i]) : std::get<6>(rows[i]);
      if (slot == 0) {
        slot = id;
        break;
      }
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<ExportRow> PerfettoRows(const perfetto_test::ReadTrace& t) {
  std::vector<ExportRow> rows;
  for (const perfetto_test::ReadSlice& s : t.slices) {
    std::string track = s.track;
    if (const size_t cut = track.find(" (overlapping "); cut != std::string::npos) {
      track.resize(cut);
    }
    rows.emplace_back(track, s.name, s.category, static_cast<int64_t>(s.start),
                      static_cast<int64_t>(s.end), s.flow_out, s.flow_in, s.instant);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The native Perfetto export of the test bed's programs: protoc decodes it as Trace; read back, it
// has the Chrome export's events one by one (rows, names, categories, times, flows, stall marks,
// NVTX ranges); and it is at least 4x smaller. The hardest case is planted_syncs, whose trace is
// ~35k cudaStreamQuery polls: each poll's stream, result, stack id and correlation id cost ~49
// bytes in Perfetto (a BEGIN and an END packet; the correlation id in TrackEvent's own field)
// against ~205 in JSON, 4.2x.
TEST_F(ViewsEndToEnd, PerfettoTraceHasTheChromeTracesEventsAndIsFourTimesSmaller) {
  const std::string planted = Path("planted.brrr");
  RunPlanted(planted, "--trace");
  const std::string nvtx = Path("nvtx.brrr");
  const std::string launches = Path("launches.brrr");
  for (const auto& [file, program, argument] : {std::tuple{nvtx, "e2e_nvtx_phases", "5"},
                                                std::tuple{launches, "e2e_launch_bound", "5000"}}) {
    const e2e::ProcessResult run = Run({BRRR_BIN, "run", "--quiet", "--trace", "--output", file,
                                        "--", std::string(E2E_BIN_DIR) + "/" + program, argument});
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  for (const std::string& file : {planted, nvtx, launches}) {
    SCOPED_TRACE(file);
    const std::string json = file + ".json", pftrace = file + ".pftrace";
    const e2e::ProcessResult views =
        Run({BRRR_BIN, "report", file, "--chrome-trace", json, "--perfetto", pftrace});
    ASSERT_EQ(views.exit_code, 0) << views.output;
    const e2e::ProcessResult decoded = e2e::Spawn(
        {"/bin/sh", "-c",
         std::string(PROTOC) + " --decode=perfetto.protos.Trace -I " + PERFETTO_PROTO_DIR +
             " perfetto_trace.proto < " + pftrace + " > " + pftrace + ".txt"},
        {"PATH=/usr/bin:/bin"}, /*with_stderr=*/true);
    ASSERT_EQ(decoded.exit_code, 0) << decoded.output;
    EXPECT_THAT(e2e::ReadFile(pftrace + ".txt"), HasSubstr("TYPE_SLICE_BEGIN"));

    const perfetto_test::ReadTrace read = perfetto_test::ReadPerfettoTrace(e2e::ReadFile(pftrace));
    EXPECT_THAT(read.errors, ::testing::IsEmpty());
    const std::vector<ExportRow> chrome = ChromeRows(e2e::ReadFile(json));
    const std::vector<ExportRow> perfetto = PerfettoRows(read);
    ASSERT_GT(chrome.size(), 30u);
    EXPECT_EQ(perfetto.size(), chrome.size());
    size_t differ = 0;
    for (size_t i = 0; i < std::min(chrome.size(), perfetto.size()); ++i) {
      if (chrome[i] != perfetto[i] && differ++ < 5) {
        ADD_FAILURE() << "event " << i << ": chrome " << ::testing::PrintToString(chrome[i])
                      << " perfetto " << ::testing::PrintToString(perfetto[i]);
      }
    }
    EXPECT_EQ(differ, 0u);
    const double ratio = static_cast<double>(std::filesystem::file_size(json)) /
                         static_cast<double>(std::filesystem::file_size(pftrace));
    EXPECT_GE(ratio, 4.0) << std::filesystem::file_size(json) << " bytes of JSON, "
                          << std::filesystem::file_size(pftrace) << " of Perfetto";
    std::fprintf(stderr, "%s: JSON %ju bytes, Perfetto %ju, ratio %.2f\n", file.c_str(),
                 static_cast<uintmax_t>(std::filesystem::file_size(json)),
                 static_cast<uintmax_t>(std::filesystem::file_size(pftrace)), ratio);
  }
}

TEST_F(ViewsEndToEnd, ChromeTraceAtTheCapLoadsWithPythonJson) {
  const std::string file = Path("capped.brrr");
  RunPlanted(file, "--trace=40");
  const e2e::ProcessResult views =
      Run({BRRR_BIN, "report", file, "--chrome-trace", Path("capped.json")});
  ASSERT_EQ(views.exit_code, 0) << views.output;
  const e2e::ProcessResult py =
      Python({"-c",
           "import json,sys; d=json.load(open(sys.argv[1])); o=d['otherData']; "
           "print('kept', o['events_kept'], 'omitted', o['events_omitted'] > 0)",
           Path("capped.json")});
  ASSERT_EQ(py.exit_code, 0) << py.output;
  EXPECT_THAT(py.output, HasSubstr("kept 40 omitted True"));
}

TEST_F(ViewsEndToEnd, NvtxRangesAreSlicesOfTheChromeTrace) {
  // 5 steps of push "step" { push "fwd", push "bwd", push app:optimizer, push "host" }, then the
  // start/end range app:eval (tests/e2e/nvtx_phases.cu).
  const std::string file = Path("nvtx.brrr");
  const e2e::ProcessResult run =
      Run({BRRR_BIN, "run", "--quiet", "--trace", "--output", file, "--",
           std::string(E2E_BIN_DIR) + "/e2e_nvtx_phases"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const e2e::ProcessResult views =
      Run({BRRR_BIN, "report", file, "--chrome-trace", Path("nvtx.json")});
  ASSERT_EQ(views.exit_code, 0) << views.output;
  const e2e::ProcessResult py = Python(
      {"-c",
       "import json,sys,collections; ev=json.load(open(sys.argv[1]))['traceEvents']; "
       "c=collections.Counter(e['ph']+' '+e['name'] for e in ev if e.get('cat')=='nvtx'); "
       "print(sorted(c.items()))",
       Path("nvtx.json")});
  ASSERT_EQ(py.exit_code, 0) << py.output;
  EXPECT_THAT(py.output, HasSubstr("[('X app:optimizer', 5), ('X bwd', 5), ('X fwd', 5), "
                                   "('X host', 5), ('X step', 5), ('b app:eval', 1), "
                                   "('e app:eval', 1)]"));
}

}  // namespace
}  // namespace brrr
