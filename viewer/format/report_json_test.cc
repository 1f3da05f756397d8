// Tests for render_json.h: schema layout, string escaping, exact integers, strict decoding, and
// the Render -> Parse round trip.
// Must never: compare reports through the renderer under test (equality is field by field).
#include "viewer/format/report_json.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/strict_json.h"
#include "viewer/format/sample_report.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using OrderedJson = nlohmann::ordered_json;

// `json` as a tree in document order, after checking that the strict reader accepts it.
OrderedJson Doc(const std::string& json) {
  absl::StatusOr<nlohmann::json> strict = ParseStrictJson(json);
  EXPECT_TRUE(strict.ok()) << strict.status();
  return OrderedJson::parse(json, nullptr, /*allow_exceptions=*/false);
}

std::vector<std::string> Keys(const OrderedJson& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// `s` as the writer escapes it: the JSON string of a report's "command", quotes included.
std::string Escaped(absl::string_view s) {
  Report r;
  r.command = std::string(s);
  const std::string json = RenderJsonCompact(r);
  const std::string before = "\"command\":";
  const size_t start = json.find(before) + before.size();
  const size_t end = json.find(",\"wall_ns\":", start);
  return json.substr(start, end - start);
}

TEST(JsonEscapeTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(Escaped("plain"), "\"plain\"");
  EXPECT_EQ(Escaped("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Escaped("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(Escaped(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  // DEL and U+2028 are valid in JSON strings and kept as they are.
  EXPECT_EQ(Escaped("\x7f\xe2\x80\xa8"), "\"\x7f\xe2\x80\xa8\"");
  EXPECT_EQ(Escaped("/"), "\"/\"");
}

TEST(JsonEscapeTest, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(Escaped("\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80"),
            "\"\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80\"");
  const std::string fffd = "\xef\xbf\xbd";  // U+FFFD in UTF-8
  EXPECT_EQ(Escaped("a\xff"
                    "b"),
            "\"a" + fffd + "b\"");
  EXPECT_EQ(Escaped("\xc3"), "\"" + fffd + "\"");                       // truncated sequence
  EXPECT_EQ(Escaped("\xc0\xaf"), "\"" + fffd + fffd + "\"");            // overlong
  EXPECT_EQ(Escaped("\xed\xa0\x80"), "\"" + fffd + fffd + fffd + "\"");  // encoded surrogate
}

TEST(JsonEscapeTest, EveryByteStringBecomesValidJsonThatParsesBack) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string json = Escaped(all);
  absl::StatusOr<nlohmann::json> parsed = ParseStrictJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::string text = parsed->get<std::string>();
  // ASCII comes back unchanged; each of the 128 high bytes (none valid UTF-8 alone, and no two of
  // them in this order a valid sequence) is U+FFFD.
  EXPECT_EQ(text.substr(0, 128), all.substr(0, 128));
  std::string replacements;
  for (int i = 0; i < 128; ++i) replacements += "\xef\xbf\xbd";
  EXPECT_EQ(text.substr(128), replacements);
}

TEST(RenderJsonTest, TopLevelMembersFollowTheSchemaOrder) {
  const OrderedJson v = Doc(RenderJson(SampleReport()));
  EXPECT_THAT(Keys(v),
              ElementsAre("schema", "command", "wall_ns", "exit_code", "end", "host_only",
                          "host_only_reason", "events", "coverage", "python", "capture", "api",
                          "kernels", "launch_latency_ns", "devices", "timeline", "stalls",
                          "stall_reasons", "sync_calls", "phases", "phases_over_cap",
                          "launch_sample_period",
                          "launch_sites", "stack_ends", "steps", "verdict", "collectives"));
  EXPECT_THAT(Keys(v.at("steps")),
              ElementsAre("source", "count", "kept", "unfinished", "wall_ns", "estimated",
                          "device_parts_scaled", "per_step", "outlier_rule", "outliers_total", "outliers",
                          "wall_samples_ns", "part_samples_ns"));
  EXPECT_THAT(Keys(v.at("steps").at("outliers").at(0)),
              ElementsAre("index", "name", "wall_ns", "cause", "top_stall"));
  EXPECT_THAT(Keys(v.at("collectives")),
              ElementsAre("count", "unix_minus_monotonic_ns", "streams"));
  EXPECT_THAT(Keys(v.at("collectives").at("streams").at(0)),
              ElementsAre("stream_id", "start_ns", "end_ns"));
  EXPECT_EQ(v.value("schema", ""), "brrr.report/1");
  const OrderedJson& device = v.at("devices").at(0);
  EXPECT_THAT(Keys(device),
              ElementsAre("id", "wall_ns", "busy_ns", "idle", "startup_ns", "teardown_ns"));
  EXPECT_THAT(Keys(device.at("idle")),
              ElementsAre("launch_bound_ns", "sync_drain_ns", "host_outside_cuda_ns"));
}

TEST(RenderJsonTest, StallReasonsRoundTrip) {
  const OrderedJson v = Doc(RenderJson(SampleReport()));
  EXPECT_EQ(v.at("stall_reasons").at(0).dump(),
            R"({"reason":"d2h_copy","calls":520,"total_ns":2100000000})");
  const absl::StatusOr<Report> back = ParseReportJson(RenderJson(SampleReport()));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->stall_reasons.size(), 2u);
  EXPECT_EQ(back->stall_reasons[1].reason, "stream_sync");
}

TEST(RenderJsonTest, StackEndsCountRowsByKind) {
  const OrderedJson v = Doc(RenderJson(SampleReport()));
  const OrderedJson& e = v.at("stack_ends");
  EXPECT_THAT(Keys(e), ElementsAre("stacks", "whole", "ended_early"));
  EXPECT_EQ(e.at("stacks").dump(), "14");
  EXPECT_EQ(e.at("ended_early").at(0).dump(), R"({"kind":"no_unwind_info","stacks":2,"calls":1201})");
  Report none = SampleReport();
  none.stack_ends.reset();
  EXPECT_FALSE(Doc(RenderJson(none)).contains("stack_ends"));
}

TEST(RenderJsonTest, CoverageHasItsDocumentedMembers) {
  const OrderedJson v = Doc(RenderJson(SampleReport()));
  ASSERT_TRUE(v.contains("coverage"));
  const OrderedJson& coverage = v.at("coverage");
  EXPECT_THAT(Keys(coverage), ElementsAre("hooked_calls", "callback_calls", "cupti_only_calls",
                                          "calls_without_stack", "without_stack",
                                          "untimed_device_ops", "complete", "gaps"));
  EXPECT_EQ(coverage.at("hooked_calls").dump(), "120500");
  EXPECT_EQ(coverage.at("untimed_device_ops").dump(), "2");
  const OrderedJson& row = coverage.at("without_stack").at(1);
  EXPECT_EQ(row.at("api"), "cuMemFree_v2");
  EXPECT_EQ(row.at("calls").dump(), "3");
  EXPECT_EQ(coverage.at("complete"), false);
  EXPECT_THAT(coverage.at("gaps").at(0).get<std::string>(), HasSubstr("7 device records"));
}

TEST(RenderJsonTest, ReportWithoutCoverageWritesNoCoverageMember) {
  Report r = SampleReport();
  r.coverage.reset();
  const std::string json = RenderJson(r);
  EXPECT_THAT(json, Not(HasSubstr("\"coverage\"")));
  absl::StatusOr<Report> parsed = ParseReportJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->coverage.has_value());
  EXPECT_EQ(*parsed, r);
}

TEST(RenderJsonTest, PythonAndLaunchSitesHaveTheirDocumentedMembers) {
  const OrderedJson v = Doc(RenderJson(SampleReport()));
  ASSERT_TRUE(v.contains("python"));
  const OrderedJson& python = v.at("python");
  EXPECT_THAT(Keys(python), ElementsAre("status", "version", "frames_dropped", "note", "torch"));
  EXPECT_EQ(python.at("status"), "active");
  EXPECT_EQ(python.at("version"), "3.12.1");
  EXPECT_THAT(Keys(python.at("torch")), ElementsAre("version", "annotations", "reason"));
  EXPECT_EQ(python.at("torch").at("version"), "2.11.0+cu130");
  EXPECT_EQ(python.at("torch").at("annotations"), "active");
  EXPECT_EQ(v.at("launch_sample_period").dump(), "64");
  const OrderedJson& site = v.at("launch_sites").at(0);
  EXPECT_THAT(Keys(site),
              ElementsAre("stack", "launches", "plumbing_frames", "ended_early", "kernels"));
  EXPECT_THAT(Keys(site.at("kernels").at(0)),
              ElementsAre("name", "device", "kernels", "device_ns"));
  EXPECT_EQ(site.at("kernels").at(0).at("device_ns").dump(), "1228800000");
  EXPECT_EQ(site.at("kernels").at(1).at("name"), "(several kernels)");
  EXPECT_EQ(site.at("plumbing_frames").dump(), "1");  // stack[0] is cudaLaunchKernel's frame
  EXPECT_THAT(Keys(v.at("launch_sites").at(1)), ElementsAre("stack", "launches"));  // 0: absent
  EXPECT_EQ(site.at("launches").dump(), "76800");
  EXPECT_EQ(site.at("stack").at(2), "train_step (train.py:31)");
}

TEST(RenderJsonTest, ReportWithoutPythonWritesNoPythonMemberAndRoundTrips) {
  Report r = SampleReport();
  r.python.reset();
  const std::string json = RenderJson(r);
  EXPECT_THAT(json, Not(HasSubstr("\"python\"")));
  absl::StatusOr<Report> parsed = ParseReportJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->python.has_value());
  EXPECT_EQ(*parsed, r);
  // And the round trip notices a changed launch site or Python field.
  Report changed = SampleReport();
  changed.launch_sites[0].stack[1] = "Model.forward (model.py:89)";
  EXPECT_FALSE(changed == SampleReport());
  changed = SampleReport();
  changed.python->note = "";
  EXPECT_FALSE(changed == SampleReport());
  changed = SampleReport();
  changed.python->torch_reason = "changed";
  EXPECT_FALSE(changed == SampleReport());
  // Without torch: no "torch" member, and it round-trips.
  Report no_torch = SampleReport();
  no_torch.python->torch_annotations.clear();
  no_torch.python->torch_version.clear();
  const std::string plain = RenderJson(no_torch);
  EXPECT_THAT(plain, Not(HasSubstr("\"torch\"")));
  absl::StatusOr<Report> back = ParseReportJson(plain);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, no_torch);
}

TEST(RenderJsonTest, IntegersAreExact) {
  Report r;
  r.wall_ns = std::numeric_limits<int64_t>::min();
  r.events.recorded = std::numeric_limits<uint64_t>::max();
  r.launch_latency_ns.max = std::numeric_limits<int64_t>::max();
  r.exit_code = std::numeric_limits<int>::min();
  const std::string json = RenderJson(r);
  EXPECT_THAT(json, HasSubstr("\"wall_ns\": -9223372036854775808"));
  EXPECT_THAT(json, HasSubstr("\"recorded\": 18446744073709551615"));
  EXPECT_THAT(json, HasSubstr("\"max\": 9223372036854775807"));
  EXPECT_THAT(json, HasSubstr("\"exit_code\": -2147483648"));
}

TEST(RenderJsonTest, PrettyAndCompactRoundTripToAnEqualReport) {
  const Report original = SampleReport();
  for (const std::string& json : {RenderJson(original), RenderJsonCompact(original)}) {
    absl::StatusOr<Report> parsed = ParseReportJson(json);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, original);
  }
  EXPECT_EQ(RenderJsonCompact(original).find('\n'), std::string::npos);
  EXPECT_EQ(RenderJson(original).back(), '\n');
}

// A process that vanished (plain LD_PRELOAD, killed): exit_code null and end "killed", read back
// as unknown; the launch calls beside the launches with device records.
TEST(RenderJsonTest, UnknownExitCodeIsNullAndRoundTrips) {
  Report r = SampleReport();
  r.exit_code = 0;
  r.exit_code_known = false;
  r.end = "killed";
  const std::string json = RenderJson(r);
  const OrderedJson v = Doc(json);
  EXPECT_TRUE(v.at("exit_code").is_null());
  EXPECT_EQ(v.at("end"), "killed");
  EXPECT_EQ(v.at("kernels").at("launch_calls").dump(), "120400");
  absl::StatusOr<Report> parsed = ParseReportJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->exit_code_known);
  EXPECT_EQ(*parsed, r);
  // A report without the members (older) keeps a known exit code and no end.
  absl::StatusOr<Report> old = ParseReportJson(R"({"schema": "brrr.report/1", "exit_code": 3})");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(old->exit_code_known);
  EXPECT_EQ(old->exit_code, 3);
  EXPECT_EQ(old->end, "");
}

// The sample with every optional part set: per-kernel counters, a process identity, and a job's
// rows (one with its timeline on the job clock) and summary.
Report FullReport() {
  Report r = SampleReport();
  KernelStat& gemm = r.kernels.top.at(0);
  gemm.achieved_sm_pct = 61.3;
  gemm.achieved_dram_pct = 20.0;
  gemm.counter_coverage = 0.97;
  gemm.counter_shared = 0.1;
  KernelStat& add = r.kernels.top.at(1);
  add.achieved_sm_pct = 12.5;
  add.counter_lower_bound = true;
  r.kernels.counters = KernelCounterJoin{"CLOCK_MONOTONIC", 900, 7, 2, 1};
  r.kernels.counters->busy_sm_pct = 70.0;
  r.kernels.counters->busy_dram_pct = 16.7;
  r.kernels.counters->busy_samples = 40;
  r.kernels.counters->device = 2;
  r.kernels.counters->other_device_kernels = 17;
  r.kernels.counters->other_device_ns = 9'000;
  r.timeline->origin_unix_ns = 1'700'000'000'123'456'789;
  r.process = ProcessIdentity{4242, "node-1", 3, 1, 8, "RANK", false, 9};
  ProcessRow row;
  row.pid = 4242;
  row.rank = 3;
  row.host = "node-1";
  row.command = "python train.py";
  row.exit_code = -9;
  row.ended = "killed by signal 9";
  row.wall_ns = 5'000;
  row.kernels.launches = 7;
  row.kernels.device_ns = 3'000;
  row.devices = {r.devices.at(1)};
  row.timeline = Timeline{1'024, {{1, {{0, 0, 0, 1'000, 0, 0}, {0, 0, 0, 0, 0, 24}}}}, 123};
  row.events_dropped = 5;
  row.top_stall = "cudaMemcpy d2h_copy 3 calls 1.0 ms";
  row.verdict = {"sync-bound", "why", std::nullopt, {}};
  ProcessRow unknown;  // no rank, no exit code, no timeline
  unknown.pid = 4243;
  r.processes = {row, unknown};
  r.job = JobSummary{2,
                     1,
                     Straggler{3, 4242, "slowest", "collectives"},
                     JobCollectives{30,
                                    2,
                                    {{3, 4242, 0, 29, 147'000'000}, {-1, 4243, 147'000'000, 1, 0}},
                                    LastArriver{3, 4242, 29.0 / 30},
                                    "one host",
                                    2},
                     1,
                     "1 row without a timeline"};
  return r;
}

TEST(RenderJsonTest, EveryFieldRoundTrips) {
  const Report full = FullReport();
  ASSERT_FALSE(full == SampleReport());
  for (const std::string& json : {RenderJson(full), RenderJsonCompact(full)}) {
    absl::StatusOr<Report> parsed = ParseReportJson(json);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, full);
  }
  // The round trip would notice each of the new members changing.
  std::vector<Report> changed(19, full);
  changed[0].kernels.top[0].achieved_sm_pct = 61.300000000000004;  // the next double
  changed[1].kernels.top[1].counter_lower_bound = false;
  changed[2].kernels.top[0].counter_shared.reset();
  changed[3].kernels.counters->samples_late = 3;
  changed[4].timeline->origin_unix_ns += 1;
  changed[5].processes[0].timeline->devices[0].buckets[1].teardown_ns = 25;
  changed[6].processes[0].timeline->origin_unix_ns = 0;
  changed[7].job->timeline_note = "";
  changed[8].process->term_signal = 15;
  changed[9].kernels.counters->unavailable = "not permitted: ERR_NVGPUCTRPERM";
  changed[10].kernels.counters->busy_dram_pct.reset();
  changed[11].kernels.counters->busy_samples = 41;
  changed[12].kernels.counters->device = 0;
  changed[13].kernels.counters->other_device_kernels = 18;
  changed[14].kernels.counters->other_device_ns = 0;
  changed[15].job->collectives->last_arriver->share = 28.0 / 30;
  changed[16].job->collectives->waits[1].rank = 0;
  changed[17].collectives->streams[0].end_ns[1] += 1;
  changed[18].job->straggler->basis = "wall";
  for (size_t i = 0; i < changed.size(); ++i) {
    EXPECT_FALSE(changed[i] == full) << i;
    absl::StatusOr<Report> parsed = ParseReportJson(RenderJsonCompact(changed[i]));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, changed[i]) << i;
  }
}

// A job row's devices keep their start-up and teardown, so that the row's timeline, which has
// them, still adds up to the row's devices after the trip.
// device_sampling, overhead and trace: documented members in order, an unknown part absent (not 0 or
// null), and both round-trip; kernels.estimated only when true.
TEST(RenderJsonTest, DeviceSamplingOverheadAndTraceHaveTheirMembersAndRoundTrip) {
  Report r = SampleReport();
  EXPECT_FALSE(Doc(RenderJson(r)).contains("device_sampling"));
  EXPECT_FALSE(Doc(RenderJson(r)).at("kernels").contains("estimated"));
  r.device_sampling = SampleDeviceSampling();
  r.kernels.estimated = true;
  const Overhead o = SampleOverhead();
  r.overhead = o;
  r.trace = TraceSummary{1'000, 1'000, 417, 1'400'000'000};
  const OrderedJson v = Doc(RenderJson(r));
  EXPECT_THAT(Keys(v.at("trace")), ElementsAre("cap", "kept", "left_out", "span_ns"));
  EXPECT_THAT(Keys(v.at("device_sampling")),
              ElementsAre("fraction", "windows", "traced_ns", "span_ns", "traced_launches", "scale",
                          "device", "busy_pct", "busy_error_points", "error_windows",
                          "cupti_detaches", "calls_classified_early"));
  EXPECT_THAT(Keys(v.at("overhead")),
              ElementsAre("pct_of_wall", "at_least_pct", "unmeasured", "hooks_ns",
                          "collector_cpu_ns", "basis"));
  // A part not measured: no number claims to be the whole cost (issue 47).
  EXPECT_TRUE(v.at("overhead").at("pct_of_wall").is_null());
  EXPECT_EQ(v.at("overhead").at("at_least_pct"), 0.1);
  EXPECT_EQ(v.at("kernels").at("estimated"), true);
  const absl::StatusOr<Report> back = ParseReportJson(RenderJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->device_sampling.has_value());
  EXPECT_EQ(back->device_sampling->traced_launches, 9'876u);
  EXPECT_EQ(back->device_sampling->span_ns, 20'000'000'000);
  EXPECT_FALSE(back->device_sampling->budget_pct.has_value());
  r.device_sampling->budget_pct = 2.5;
  const OrderedJson with_budget = Doc(RenderJson(r));
  EXPECT_EQ(Keys(with_budget.at("device_sampling")).at(1), "budget_pct");
  EXPECT_EQ(ParseReportJson(RenderJson(r))->device_sampling->budget_pct, 2.5);
  EXPECT_DOUBLE_EQ(back->device_sampling->scale, 9.75);
  EXPECT_EQ(back->device_sampling->busy_error_points, 1.25);
  EXPECT_EQ(back->device_sampling->error_windows, 41u);
  EXPECT_EQ(back->device_sampling->calls_classified_early, 512u);
  EXPECT_EQ(back->device_sampling->busy_pct, 37.5);
  // No launch traced: the busy share is unknown, absent (not 0), and read back absent.
  r.device_sampling->busy_pct.reset();
  EXPECT_FALSE(Doc(RenderJson(r)).at("device_sampling").contains("busy_pct"));
  EXPECT_FALSE(ParseReportJson(RenderJson(r))->device_sampling->busy_pct.has_value());
  EXPECT_TRUE(back->kernels.estimated);
  ASSERT_TRUE(back->overhead.has_value());
  EXPECT_EQ(back->overhead->hooks_ns, 12'345'678);
  EXPECT_FALSE(back->overhead->device_tracing_ns.has_value());
  EXPECT_EQ(back->overhead->collector_cpu_ns, 250'000'000);
  EXPECT_FALSE(back->overhead->hidden_by_device_ns.has_value());
  r.overhead->hidden_by_device_ns = 7'005'000;
  EXPECT_THAT(
      Keys(Doc(RenderJson(r)).at("overhead")),
      ElementsAre("pct_of_wall", "at_least_pct", "unmeasured", "hooks_ns", "collector_cpu_ns",
                  "hidden_by_device_ns", "basis"));
  EXPECT_EQ(ParseReportJson(RenderJson(r))->overhead->hidden_by_device_ns, 7'005'000);
  EXPECT_EQ(back->overhead->basis, o.basis);
  EXPECT_DOUBLE_EQ(back->overhead->pct_of_wall, 0.1);
  EXPECT_EQ(back->overhead->unmeasured, "device tracing (full tracing)");
  // Every part measured: pct_of_wall is the number, and reads back so.
  r.overhead->unmeasured.clear();
  r.overhead->device_tracing_ns = 5'000'000;
  EXPECT_EQ(Doc(RenderJson(r)).at("overhead").at("pct_of_wall"), 0.1);
  EXPECT_EQ(ParseReportJson(RenderJson(r))->overhead->unmeasured, "");
  ASSERT_TRUE(back->trace.has_value());
  EXPECT_EQ(back->trace->left_out, 417u);
  EXPECT_EQ(back->trace->span_ns, 1'400'000'000);
}

TEST(RenderJsonTest, AProcessRowsDevicesKeepStartupAndTeardown) {
  Report r = FullReport();
  r.processes[0].devices[0].startup_ns = 700;
  r.processes[0].devices[0].teardown_ns = 300;
  absl::StatusOr<Report> parsed = ParseReportJson(RenderJsonCompact(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->processes.size(), 2u);
  ASSERT_EQ(parsed->processes[0].devices.size(), 1u);
  EXPECT_EQ(parsed->processes[0].devices[0].startup_ns, 700);
  EXPECT_EQ(parsed->processes[0].devices[0].teardown_ns, 300);
}

TEST(RenderJsonTest, CountersAndJobTimelinesHaveTheirDocumentedMembers) {
  const OrderedJson v = Doc(RenderJson(FullReport()));
  const OrderedJson& kernels = v.at("kernels");
  EXPECT_THAT(Keys(kernels), ElementsAre("launches", "launch_calls", "device_ns", "counters", "top",
                                         "classes"));
  EXPECT_THAT(Keys(kernels.at("counters")),
              ElementsAre("clock", "samples", "samples_unaligned", "samples_late", "kernels_late",
                          "busy_sm_pct", "busy_dram_pct", "busy_samples", "device",
                          "other_device_kernels", "other_device_ns"));
  EXPECT_EQ(kernels.at("counters").at("busy_dram_pct").dump(), "16.7");
  EXPECT_THAT(Keys(kernels.at("top").at(0)),
              ElementsAre("name", "launches", "device_ns", "mean_ns", "class", "achieved_sm_pct",
                          "achieved_dram_pct", "counter_coverage", "counter_shared"));
  EXPECT_EQ(kernels.at("top").at(0).at("achieved_sm_pct").dump(), "61.3");
  EXPECT_EQ(kernels.at("top").at(0).at("achieved_dram_pct").dump(), "20.0");
  EXPECT_THAT(Keys(kernels.at("top").at(1)),
              ElementsAre("name", "launches", "device_ns", "mean_ns", "class", "achieved_sm_pct",
                          "counter_lower_bound"));
  EXPECT_THAT(Keys(v.at("timeline")), ElementsAre("bucket_ns", "devices", "origin_unix_ns"));
  EXPECT_EQ(v.at("timeline").at("origin_unix_ns").dump(), "1700000000123456789");
  const OrderedJson& row = v.at("processes").at(0);
  EXPECT_THAT(Keys(row), ElementsAre("pid", "rank", "host", "command", "exit_code", "ended",
                                     "wall_ns", "kernels", "devices", "timeline",
                                     "events_dropped", "top_stall", "verdict"));
  EXPECT_FALSE(v.at("processes").at(1).contains("timeline"));
  EXPECT_THAT(Keys(v.at("job")), ElementsAre("processes", "ranks", "straggler", "collectives",
                                             "timeline_rows_left_out", "timeline_note"));
  const OrderedJson& collectives = v.at("job").at("collectives");
  EXPECT_THAT(Keys(collectives),
              ElementsAre("count", "processes", "waits", "last_arriver", "alignment", "unmatched"));
  EXPECT_THAT(Keys(collectives.at("waits").at(1)),
              ElementsAre("rank", "pid", "wait_ns", "last_arrivals", "caused_wait_ns"));
  EXPECT_TRUE(collectives.at("waits").at(1).at("rank").is_null());
  EXPECT_THAT(Keys(collectives.at("last_arriver")), ElementsAre("rank", "pid", "share"));
  EXPECT_THAT(Keys(v.at("job").at("straggler")), ElementsAre("rank", "pid", "why", "basis"));
  // Without counters a kernel has none of their members; a NaN is never written (JSON has none).
  Report r = SampleReport();
  r.kernels.top[0].achieved_sm_pct = std::numeric_limits<double>::quiet_NaN();
  const OrderedJson plain = Doc(RenderJson(r));
  EXPECT_THAT(Keys(plain.at("kernels").at("top").at(0)),
              ElementsAre("name", "launches", "device_ns", "mean_ns", "class"));
  EXPECT_FALSE(plain.at("kernels").contains("counters"));
}

TEST(RenderJsonTest, EmptyReportRoundTrips) {
  const Report empty;
  absl::StatusOr<Report> parsed = ParseReportJson(RenderJson(empty));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, empty);
}

TEST(RenderJsonTest, InvalidUtf8InStringsBecomesReplacementCharacters) {
  Report r;
  r.command = "run \xff\xfe";
  absl::StatusOr<Report> parsed = ParseReportJson(RenderJson(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->command, "run \xef\xbf\xbd\xef\xbf\xbd");
}

TEST(ParseReportJsonTest, RequiresTheSchema) {
  EXPECT_THAT(ParseReportJson("{}").status().message(), HasSubstr("no \"schema\""));
  EXPECT_THAT(ParseReportJson(R"({"schema": "brrr.report/2"})").status().message(),
              HasSubstr("schema \"brrr.report/2\" is not supported"));
  EXPECT_THAT(ParseReportJson("[]").status().message(), HasSubstr("the document is array"));
  EXPECT_THAT(ParseReportJson("{").status().message(), HasSubstr("report JSON: at byte 1"));
}

TEST(ParseReportJsonTest, OldReportsWithoutCoverageStillParse) {
  // A report as written before "coverage" existed.
  absl::StatusOr<Report> r = ParseReportJson(
      R"({"schema": "brrr.report/1", "command": "./app", "wall_ns": 10, "exit_code": 0,
          "host_only": false, "host_only_reason": "",
          "events": {"recorded": 3, "dropped": 0, "host": {"recorded": 3, "dropped": 0},
                     "device": {"recorded": 0, "dropped": 0}},
          "api": [{"name": "cudaMalloc", "category": "alloc", "calls": 3, "total_ns": 9,
                   "p50_ns": 3, "p99_ns": 3}],
          "kernels": {"launches": 0, "device_ns": 0, "top": []},
          "launch_latency_ns": {"count": 0, "p50": 0, "p90": 0, "p99": 0, "max": 0},
          "devices": [], "stalls": [], "verdict": {"regime": "", "why": ""}})");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->coverage.has_value());
  ASSERT_EQ(r->api.size(), 1u);
  EXPECT_EQ(r->api[0].calls, 3u);
}

TEST(ParseReportJsonTest, PartialCoverageKeepsDefaults) {
  absl::StatusOr<Report> r = ParseReportJson(
      R"({"schema": "brrr.report/1", "coverage": {"cupti_only_calls": 4, "complete": false}})");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->coverage.has_value());
  EXPECT_EQ(r->coverage->cupti_only_calls, 4u);
  EXPECT_EQ(r->coverage->hooked_calls, 0u);
  EXPECT_FALSE(r->coverage->complete);
  EXPECT_TRUE(r->coverage->gaps.empty());
}

TEST(ParseReportJsonTest, MissingMembersKeepDefaultsAndUnknownOnesAreIgnored) {
  absl::StatusOr<Report> r = ParseReportJson(
      R"({"schema": "brrr.report/1", "wall_ns": 5, "future_field": {"x": [1, 2]}})");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->wall_ns, 5);
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_TRUE(r->api.empty());
}

struct BadMember {
  const char* json;
  const char* message;
};

class ParseReportJsonRejectsTest : public ::testing::TestWithParam<BadMember> {};

TEST(ParseReportJsonTest, CollectiveLogsPastTheCapAreRefused) {
  std::string starts;
  for (size_t i = 0; i <= kMaxCollectivesKept; ++i) absl::StrAppend(&starts, i == 0 ? "" : ",", i);
  const std::string json =
      absl::StrCat(R"({"schema": "brrr.report/1", "collectives": {"streams": [{"start_ns": [)",
                   starts, "], \"end_ns\": [", starts, "]}]}}");
  const absl::StatusOr<Report> r = ParseReportJson(json);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("$.collectives.streams[0].start_ns: more than 20000"));
}

TEST_P(ParseReportJsonRejectsTest, NamingThePath) {
  const std::string json = absl::StrCat(R"({"schema": "brrr.report/1", )", GetParam().json, "}");
  absl::StatusOr<Report> r = ParseReportJson(json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_THAT(r.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    WrongTypesAndRanges, ParseReportJsonRejectsTest,
    ::testing::Values(
        BadMember{R"("wall_ns": "5")", "$.wall_ns: expected number, got a string"},
        BadMember{R"("steps": [])", "$.steps: expected object, got array"},
        BadMember{R"("steps": {"part_samples_ns": {"busy": [1, 2], "launch_bound": [1]}})",
                  "$.steps.part_samples_ns: arrays of different lengths"},
        BadMember{R"("steps": {"wall_ns": {"p50": -1}})",
                  "$.steps.wall_ns.p50: expected an integer"},
        BadMember{R"("steps": {"per_step": {"launches": -2}})",
                  "$.steps.per_step.launches: expected a number in [0, "},
        BadMember{R"("steps": {"outliers": [{"cause": 3}]})",
                  "$.steps.outliers[0].cause: expected string"},
        BadMember{R"("steps": {"wall_samples_ns": [1, -1]})",
                  "$.steps.wall_samples_ns[1]: expected an integer >= 0"},
        BadMember{R"("collectives": {"streams": [{"start_ns": [1, 2], "end_ns": [3]}]})",
                  "$.collectives.streams[0]: 2 starts but 1 ends"},
        BadMember{R"("collectives": {"streams": [{"start_ns": [-1], "end_ns": [3]}]})",
                  "$.collectives.streams[0].start_ns[0]: expected an integer >= 0"},
        BadMember{R"("collectives": {"streams": [{"start_ns": [1.5], "end_ns": [3]}]})",
                  "$.collectives.streams[0].start_ns[0]: expected an integer"},
        BadMember{R"("collectives": {"streams": {}})",
                  "$.collectives.streams: expected array, got object"},
        BadMember{R"("job": {"collectives": {"last_arriver": {"share": 1.5}}})",
                  "$.job.collectives.last_arriver.share: expected a number in [0, 1]"},
        BadMember{R"("job": {"collectives": {"waits": [{"wait_ns": -3}]}})",
                  "$.job.collectives.waits[0].wait_ns: expected an integer"},
        BadMember{R"("job": {"straggler": {"basis": 2}})",
                  "$.job.straggler.basis: expected string"},
        BadMember{R"("wall_ns": 1.5)", "$.wall_ns: expected an integer"},
        BadMember{R"("wall_ns": 1e3)", "$.wall_ns: expected an integer"},
        BadMember{R"("wall_ns": 9223372036854775808)", "$.wall_ns: expected an integer"},
        BadMember{R"("exit_code": 2147483648)", "$.exit_code: expected an integer"},
        BadMember{R"("events": {"dropped": -1})", "$.events.dropped: expected an integer"},
        BadMember{R"("host_only": 1)", "$.host_only: expected boolean, got 1"},
        BadMember{R"("command": null)", "$.command: expected string, got null"},
        BadMember{R"("api": {})", "$.api: expected array, got object"},
        BadMember{R"("api": [1])", "$.api[0]: expected object"},
        BadMember{R"("api": [{"calls": -5}])", "$.api[0].calls: expected an integer"},
        BadMember{R"("python": [])", "$.python: expected object, got array"},
        BadMember{R"("python": {"frames_dropped": -1})",
                  "$.python.frames_dropped: expected an integer"},
        BadMember{R"("launch_sample_period": 4294967296)",
                  "$.launch_sample_period: expected an integer"},
        BadMember{R"("launch_sites": [{"stack": [3]}])",
                  "$.launch_sites[0].stack[0]: expected string"},
        BadMember{R"("launch_sites": [{"launches": "9"}])",
                  "$.launch_sites[0].launches: expected number"},
        BadMember{R"("kernels": {"top": [{"name": 3}]})", "$.kernels.top[0].name: expected string"},
        BadMember{R"("devices": [{"id": 4294967296}])", "$.devices[0].id: expected an integer"},
        BadMember{R"("devices": [{"idle": []}])", "$.devices[0].idle: expected object"},
        BadMember{R"("devices": [{"id": 0}, {"id": 1}, {"id": 0}])",
                  "$.devices[2].id: device 0 is listed twice"},
        BadMember{R"("stalls": [{"stack": ["a", 2]}])", "$.stalls[0].stack[1]: expected string"},
        BadMember{R"("verdict": "fast")", "$.verdict: expected object"},
        BadMember{R"("coverage": [])", "$.coverage: expected object, got array"},
        BadMember{R"("coverage": {"hooked_calls": -1})", "$.coverage.hooked_calls: expected an"},
        BadMember{R"("coverage": {"complete": "yes"})", "$.coverage.complete: expected boolean"},
        BadMember{R"("coverage": {"without_stack": [3]})",
                  "$.coverage.without_stack[0]: expected object"},
        BadMember{R"("coverage": {"without_stack": [{"api": 1}]})",
                  "$.coverage.without_stack[0].api: expected string"},
        BadMember{R"("coverage": {"without_stack": [{"calls": 1.5}]})",
                  "$.coverage.without_stack[0].calls: expected an integer"},
        BadMember{R"("coverage": {"gaps": ["a", null]})", "$.coverage.gaps[1]: expected string"},
        BadMember{R"("kernels": {"counters": []})", "$.kernels.counters: expected object"},
        BadMember{R"("kernels": {"counters": {"busy_sm_pct": 101}})",
                  "$.kernels.counters.busy_sm_pct: expected a number in [0, 100]"},
        BadMember{R"("kernels": {"counters": {"unavailable": 7}})",
                  "$.kernels.counters.unavailable: expected string"},
        BadMember{R"("kernels": {"counters": {"samples": -1}})",
                  "$.kernels.counters.samples: expected an integer"},
        BadMember{R"("kernels": {"counters": {"device": -1}})",
                  "$.kernels.counters.device: expected an integer"},
        BadMember{R"("kernels": {"top": [{"achieved_sm_pct": "61"}]})",
                  "$.kernels.top[0].achieved_sm_pct: expected number, got a string"},
        BadMember{R"("kernels": {"top": [{"counter_shared": null}]})",
                  "$.kernels.top[0].counter_shared: expected number, got null"},
        BadMember{R"("kernels": {"top": [{"counter_lower_bound": 1}]})",
                  "$.kernels.top[0].counter_lower_bound: expected boolean"},
        // Throughputs are % of peak (at most 100), coverage and shared time are shares (0..1).
        BadMember{R"("kernels": {"top": [{"achieved_sm_pct": 100.5}]})",
                  "$.kernels.top[0].achieved_sm_pct: expected a number in [0, 100]"},
        BadMember{R"("kernels": {"top": [{"achieved_dram_pct": -1}]})",
                  "$.kernels.top[0].achieved_dram_pct: expected a number in [0, 100]"},
        BadMember{R"("kernels": {"top": [{"counter_coverage": 1.01}]})",
                  "$.kernels.top[0].counter_coverage: expected a number in [0, 1]"},
        BadMember{R"("kernels": {"top": [{"counter_shared": 1e300}]})",
                  "$.kernels.top[0].counter_shared: expected a number in [0, 1]"},
        BadMember{R"("timeline": {"bucket_ns": 1, "devices": [], "origin_unix_ns": 1.5})",
                  "$.timeline.origin_unix_ns: expected a 64-bit integer"},
        BadMember{R"("processes": [{"timeline": {"bucket_ns": 0, "devices": []}}])",
                  "$.processes[0].timeline.bucket_ns: expected a positive integer"},
        BadMember{R"("job": {"timeline_rows_left_out": -1})",
                  "$.job.timeline_rows_left_out: expected an integer"},
        BadMember{R"("processes": [{"devices": [{"id": 3}, {"id": 3}]}])",
                  "$.processes[0].devices[1].id: device 3 is listed twice"},
        BadMember{R"("job": {"timeline_note": 3})", "$.job.timeline_note: expected string"}));

}  // namespace
}  // namespace brrr
