// Tests of the NVTX phases in the renderers: JSON members and values, the decode round trip
// (which the .brrr file relies on), reports from before phases, type errors naming their path,
// and the text report's PHASES table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "viewer/format/report_json.h"
#include "viewer/format/strict_json.h"
#include "viewer/render_text.h"
#include "viewer/format/sample_report.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(PhasesJsonTest, EachPhaseHasItsDocumentedMembers) {
  const std::string json = RenderJson(SampleReport());
  ASSERT_TRUE(ParseStrictJson(json).ok());
  const auto v = nlohmann::ordered_json::parse(json);  // in document order
  const auto& phases = v.at("phases");
  ASSERT_EQ(phases.size(), 3u);
  const auto& fwd = phases.at(1);
  std::vector<std::string> keys;
  for (const auto& [key, value] : fwd.items()) keys.push_back(key);
  EXPECT_THAT(keys,
              ElementsAre("name", "calls", "wall_ns", "launches", "device_ns", "stall_ns", "idle"));
  EXPECT_EQ(fwd.at("name"), "step/megatron:fwd");
  EXPECT_EQ(fwd.at("launches").dump(), "80000");
  EXPECT_EQ(fwd.at("device_ns").dump(), "2500000000");
  std::vector<std::string> idle_keys;
  for (const auto& [key, value] : fwd.at("idle").items()) idle_keys.push_back(key);
  EXPECT_THAT(idle_keys, ElementsAre("launch_bound_ns", "sync_drain_ns", "host_outside_cuda_ns"));
  EXPECT_EQ(fwd.at("idle").at("launch_bound_ns").dump(), "400000000");
  EXPECT_EQ(v.at("phases_over_cap").dump(), "12");
}

TEST(PhasesJsonTest, RoundTripKeepsEveryFigure) {
  const Report original = SampleReport();
  absl::StatusOr<Report> parsed = ParseReportJson(RenderJsonCompact(original));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->phases.size(), 3u);
  const Phase& step = parsed->phases[0];
  EXPECT_EQ(step.name, "step");
  EXPECT_EQ(step.calls, 1'000u);
  EXPECT_EQ(step.wall_ns, 11'000'000'000);
  EXPECT_EQ(step.launches, 120'000u);
  EXPECT_EQ(step.device_ns, 4'000'000'000);
  EXPECT_EQ(step.stall_ns, 2'000'000'000);
  EXPECT_EQ(step.idle.launch_bound_ns, 5'500'000'000);
  EXPECT_EQ(step.idle.sync_drain_ns, 1'500'000'000);
  EXPECT_EQ(step.idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(parsed->phases[2].idle.host_outside_cuda_ns, 500'000'000);
  EXPECT_EQ(parsed->phases_over_cap, 12u);
  EXPECT_EQ(*parsed, original);
}

TEST(PhasesJsonTest, ReportsWithoutPhasesParseWithNone) {
  absl::StatusOr<Report> r = ParseReportJson(R"({"schema": "brrr.report/1", "wall_ns": 5})");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->phases.empty());
  EXPECT_EQ(r->phases_over_cap, 0u);
}

TEST(PhasesJsonTest, WrongTypesNameTheirPath) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("phases": {})", "$.phases: expected array, got object"},
      {R"("phases": [3])", "$.phases[0]: expected object"},
      {R"("phases": [{"calls": -1}])", "$.phases[0].calls: expected an integer"},
      {R"("phases": [{"name": 1}])", "$.phases[0].name: expected string"},
      {R"("phases": [{"idle": []}])", "$.phases[0].idle: expected object"},
      {R"("phases": [{"idle": {"sync_drain_ns": 0.5}}])",
       "$.phases[0].idle.sync_drain_ns: expected an integer"},
      {R"("phases_over_cap": -2)", "$.phases_over_cap: expected an integer"},
  };
  for (const auto& [member, message] : cases) {
    const std::string json = absl::StrCat(R"({"schema": "brrr.report/1", )", member, "}");
    absl::StatusOr<Report> r = ParseReportJson(json);
    ASSERT_FALSE(r.ok()) << json;
    EXPECT_THAT(r.status().message(), HasSubstr(message)) << json;
  }
}

TEST(PhasesTextTest, PhasesTableByWallTimeWithTheIdleSplit) {
  Report r = SampleReport();
  std::swap(r.phases[0], r.phases[2]);  // the table sorts by wall time itself
  const std::string text = RenderText(r);
  ASSERT_THAT(text, HasSubstr("\nPHASES  (NVTX ranges by wall time;"));
  const std::string table = text.substr(text.find("\nPHASES"));
  EXPECT_THAT(table, HasSubstr("  phase                      calls     wall launches   device"
                               "   stalls   launch    drain  outside\n"));
  EXPECT_THAT(table, HasSubstr("  step                       1,000   11.0 s  120,000   4.00 s"
                               "   2.00 s   5.50 s   1.50 s     0 ns\n"));
  EXPECT_THAT(table, HasSubstr("  data:load                      7   900 ms        0     0 ns"
                               "     0 ns     0 ns     0 ns   500 ms\n"));
  EXPECT_LT(table.find("  step "), table.find("  step/megatron:fwd "));
  EXPECT_LT(table.find("  step/megatron:fwd "), table.find("  data:load "));
  EXPECT_THAT(table, HasSubstr("12 ranges beyond the cap on distinct phases"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(DisplayWidth(line), static_cast<size_t>(kTextReportColumns)) << line;
  }
}

TEST(PhasesTextTest, LongPhaseNamesAreElidedAndNoPhasesMeansNoSection) {
  Report r = SampleReport();
  r.phases.resize(1);
  r.phases[0].name = std::string(60, 'a') + "/fwd";
  r.phases_over_cap = 0;
  const std::string text = RenderText(r);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(DisplayWidth(line), static_cast<size_t>(kTextReportColumns)) << line;
  }
  EXPECT_THAT(text, HasSubstr("/fwd "));  // the end of the path survives the elision
  EXPECT_THAT(text, Not(HasSubstr("beyond the cap")));
  r.phases.clear();
  EXPECT_THAT(RenderText(r), Not(HasSubstr("PHASES")));
}

}  // namespace
}  // namespace brrr
