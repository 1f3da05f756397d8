// Tests of the device regime, advice, kernel classes and start-up/teardown in the renderers: the
// JSON members the schema documents, the text report's lines, and the round trip of every one of
// those figures through JSON and a .brrr file; reports written before them still parse.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/format/strict_json.h"
#include "viewer/render_text.h"
#include "viewer/format/sample_report.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Report DeviceBoundReport() {
  Report r = SampleReport();
  r.devices.resize(1);
  DeviceBreakdown& d = r.devices[0];
  d.wall_ns = 1'000'000'000;
  d.busy_ns = 800'000'000;
  d.idle = {50'000'000, 20'000'000, 30'000'000};
  d.startup_ns = 70'000'000;
  d.teardown_ns = 30'000'000;
  r.kernels.top[0].kernel_class = "matmul";
  r.kernels.top[1].kernel_class = "pointwise";
  r.kernels.classes = {{"matmul", 60'000, 3'000'000'000}, {"pointwise", 60'000, 1'000'000'000}};
  r.verdict.regime = "device-bound";
  r.verdict.why = "device busy 88.9% of the steady state";
  r.verdict.device_regime = DeviceRegime{
      "compute", "kernel classes",
      "inferred from kernel names, not measured: matmul/convolution/attention 75.0% of kernel "
      "time (compute-capable), pointwise/reduction/copy 25.0% (bandwidth-bound by construction)"};
  r.verdict.advice = {"compute-bound kernels: use Tensor Cores with BF16/FP16 (autocast) or TF32",
                      "launch-bound: capture the loop in a CUDA graph"};
  return r;
}

// The keys of `object` in document order.
std::vector<std::string> Keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

TEST(RegimeRenderTest, JsonHasTheDocumentedMembers) {
  const std::string json = RenderJson(DeviceBoundReport());
  ASSERT_TRUE(ParseStrictJson(json).ok());
  const auto v = nlohmann::ordered_json::parse(json);  // in document order
  const auto& verdict = v.at("verdict");
  EXPECT_THAT(Keys(verdict), ElementsAre("regime", "why", "runner_up", "margin_pts", "close",
                                         "close_note", "device_regime", "advice"));
  const auto& regime = verdict.at("device_regime");
  EXPECT_EQ(regime.at("regime"), "compute");
  EXPECT_EQ(regime.at("basis"), "kernel classes");
  ASSERT_EQ(verdict.at("advice").size(), 2u);
  EXPECT_EQ(verdict.at("advice").at(1), "launch-bound: capture the loop in a CUDA graph");
  const auto& kernels = v.at("kernels");
  std::vector<std::string> keys = Keys(kernels);
  // classes follows top (other members may come before them).
  ASSERT_GE(keys.size(), 2u);
  EXPECT_EQ(keys[keys.size() - 2], "top");
  EXPECT_EQ(keys.back(), "classes");
  EXPECT_EQ(kernels.at("top").at(0).at("class"), "matmul");
  EXPECT_THAT(Keys(kernels.at("classes").at(0)), ElementsAre("class", "launches", "device_ns"));
  const auto& d0 = v.at("devices").at(0);
  EXPECT_EQ(d0.at("startup_ns").dump(), "70000000");
  EXPECT_EQ(d0.at("teardown_ns").dump(), "30000000");
}

TEST(RegimeRenderTest, NonDeviceBoundVerdictHasNoDeviceRegimeMember) {
  Report r = SampleReport();
  absl::StatusOr<nlohmann::json> v = ParseStrictJson(RenderJson(r));
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->at("verdict").contains("device_regime"));
  EXPECT_TRUE(v->at("verdict").contains("advice"));
}

TEST(RegimeRenderTest, RoundTripThroughJsonKeepsEveryFigure) {
  const Report r = DeviceBoundReport();
  absl::StatusOr<Report> parsed = ParseReportJson(RenderJson(r));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->verdict.device_regime.has_value());
  EXPECT_EQ(parsed->verdict.device_regime->regime, "compute");
  EXPECT_EQ(parsed->verdict.device_regime->basis, "kernel classes");
  EXPECT_EQ(parsed->verdict.device_regime->why, r.verdict.device_regime->why);
  EXPECT_EQ(parsed->verdict.advice, r.verdict.advice);
  ASSERT_EQ(parsed->kernels.classes.size(), 2u);
  EXPECT_EQ(parsed->kernels.classes[1].kernel_class, "pointwise");
  EXPECT_EQ(parsed->kernels.classes[1].launches, 60'000u);
  EXPECT_EQ(parsed->kernels.classes[1].device_ns, 1'000'000'000);
  EXPECT_EQ(parsed->kernels.top[1].kernel_class, "pointwise");
  EXPECT_EQ(parsed->devices[0].startup_ns, 70'000'000);
  EXPECT_EQ(parsed->devices[0].teardown_ns, 30'000'000);
  EXPECT_EQ(*parsed, r);
}

TEST(RegimeRenderTest, RoundTripThroughABrrrFile) {
  const Report r = DeviceBoundReport();
  const std::string path = ::testing::TempDir() + "/regime_render_test.brrr";
  ASSERT_TRUE(WriteBrrrFile(path, r).ok());
  absl::StatusOr<Report> read = ReadBrrrFile(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, r);
}

TEST(RegimeRenderTest, OldReportsWithoutTheNewMembersParse) {
  std::string json = RenderJson(SampleReport());
  // A report of an older writer: no classes, no class, no startup/teardown, no advice.
  for (const char* member :
       {"\"classes\"", "\"class\"", "\"startup_ns\"", "\"teardown_ns\"", "\"advice\""}) {
    EXPECT_THAT(json, HasSubstr(member));
  }
  ASSERT_TRUE(ParseStrictJson(json).ok());
  const std::string old = R"({"schema":"brrr.report/1","kernels":{"launches":1,"device_ns":5,)"
                          R"("top":[{"name":"k","launches":1,"device_ns":5,"mean_ns":5}]},)"
                          R"("devices":[{"id":0,"wall_ns":10,"busy_ns":5,"idle":)"
                          R"({"launch_bound_ns":5,"sync_drain_ns":0,"host_outside_cuda_ns":0}}],)"
                          R"("verdict":{"regime":"launch-bound","why":"w"}})";
  absl::StatusOr<Report> parsed = ParseReportJson(old);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->kernels.classes.empty());
  EXPECT_EQ(parsed->kernels.top[0].kernel_class, "");
  EXPECT_EQ(parsed->devices[0].startup_ns, 0);
  EXPECT_FALSE(parsed->verdict.device_regime.has_value());
  EXPECT_TRUE(parsed->verdict.advice.empty());
}

TEST(RegimeRenderTest, WrongTypesNameTheirPath) {
  const std::string bad_advice =
      R"({"schema":"brrr.report/1","verdict":{"regime":"x","why":"w","advice":["ok",3]}})";
  absl::StatusOr<Report> r = ParseReportJson(bad_advice);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("$.verdict.advice[1]"));
  const std::string bad_class =
      R"({"schema":"brrr.report/1","kernels":{"launches":1,"device_ns":1,"top":[],)"
      R"("classes":[{"class":"matmul","launches":-1,"device_ns":1}]}})";
  r = ParseReportJson(bad_class);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("$.kernels.classes[0].launches"));
}

TEST(RegimeRenderTest, TextShowsRegimeAdviceClassesAndStartup) {
  const std::string text = RenderText(DeviceBoundReport());
  EXPECT_THAT(text, HasSubstr("VERDICT: device-bound\n"));
  EXPECT_THAT(text, HasSubstr("  compute-bound (kernel classes): inferred from kernel names"));
  EXPECT_THAT(text, HasSubstr("  advice:\n    1. compute-bound kernels: use Tensor Cores"));
  EXPECT_THAT(text, HasSubstr("    2. launch-bound: capture the loop in a CUDA graph\n"));
  EXPECT_THAT(text, HasSubstr("host outside CUDA 3.0%,\n  start-up 7.0%, teardown 3.0%"));
  EXPECT_THAT(text, HasSubstr("  > start-up             70.0 ms     7.0%\n"));
  EXPECT_THAT(text, HasSubstr("  < teardown             30.0 ms     3.0%\n"));
  EXPECT_THAT(text, HasSubstr("  by class: matmul 75.0% (60,000), pointwise 25.0% (60,000)\n"));
  EXPECT_THAT(text, HasSubstr("  class       name\n"));
  EXPECT_THAT(text, HasSubstr("  matmul      void gemm_kernel"));
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    EXPECT_LE(line.size(), 100u) << line;
    start = end == std::string::npos ? text.size() : end + 1;
  }
  // No start-up legend when no device has start-up or teardown.
  EXPECT_THAT(RenderText(SampleReport()), Not(HasSubstr("start-up (before")));
}

}  // namespace
}  // namespace brrr
