// Tests of brrr's command-line parsing: every option, every error.
#include "collector/cli/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace brrr::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RunOptionsTest, ParsesEveryOptionAndTheCommand) {
  auto o = ParseRunOptions({"--output", "out.brrr", "--json", "--quiet", "--no-stacks",
                            "--no-cupti", "--ring-records=1024", "--", "./app", "--json", "x"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->output, "out.brrr");
  EXPECT_TRUE(o->json);
  EXPECT_TRUE(o->quiet);
  EXPECT_TRUE(o->no_stacks);
  EXPECT_TRUE(o->no_cupti);
  EXPECT_EQ(o->ring_records, 1024u);
  EXPECT_THAT(o->command, ElementsAre("./app", "--json", "x"));
}

TEST(RunOptionsTest, CommandMayFollowOptionsWithoutDoubleDash) {
  auto o = ParseRunOptions({"--json", "python3", "-c", "pass"});
  ASSERT_TRUE(o.ok());
  EXPECT_THAT(o->command, ElementsAre("python3", "-c", "pass"));
  EXPECT_FALSE(o->ring_records.has_value());
}

TEST(RunOptionsTest, RejectsBadCommandLines) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "no command"},
      {{"--"}, "no command"},
      {{"--json"}, "no command"},
      {{"--bogus", "--", "x"}, "unknown option"},
      {{"--output"}, "needs a value"},
      {{"--output=", "--", "x"}, "needs a value"},
      {{"--json=1", "--", "x"}, "takes no value"},
      {{"--ring-records", "1000", "--", "x"}, "power of two"},
      {{"--ring-records", "4", "--", "x"}, "power of two"},
      {{"--ring-records", "-8", "--", "x"}, "'-8' is not a whole number"},
      {{"--ring-records", "abc", "--", "x"}, "'abc' is not a whole number"},
      {{"--ring-records", "8589934592", "--", "x"}, "power of two"},
      // A metrics address that cannot be served is a usage error, not a warning (issue 47).
      {{"--metrics-addr", "nonsense", "--", "x"}, "--metrics-addr: metrics address 'nonsense'"},
      {{"--metrics-addr", "127.0.0.1:99999", "--", "x"}, "is not HOST:PORT"},
      {{"--metrics-addr=:", "--", "x"}, "is not HOST:PORT"},
  };
  for (const auto& [args, message] : cases) {
    auto o = ParseRunOptions(args);
    ASSERT_FALSE(o.ok()) << ::testing::PrintToString(args);
    EXPECT_THAT(o.status().message(), HasSubstr(message)) << ::testing::PrintToString(args);
  }
}

TEST(RunOptionsTest, CaptureRange) {
  auto o = ParseRunOptions({"--capture-range=cudaProfilerApi", "--", "app"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->capture_range, "cudaProfilerApi");
  o = ParseRunOptions({"--capture-range", "nvtx:train step", "app"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->capture_range, "nvtx:train step");
  EXPECT_EQ(o->command, std::vector<std::string>{"app"});
  for (const char* bad : {"--capture-range=nvtx:", "--capture-range=cuda", "--capture-range="}) {
    EXPECT_FALSE(ParseRunOptions({bad, "--", "app"}).ok()) << bad;
  }
  EXPECT_FALSE(ParseRunOptions({"--capture-range"}).ok());
}

TEST(RunOptionsTest, SampleDeviceAndOverheadBudgetArePercentsOfTheirRange) {
  auto o = ParseRunOptions({"--overhead-budget=2%", "--sample-device", "10%", "app"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->overhead_budget, "2%");
  EXPECT_EQ(o->sample_device, "10%");
  for (const char* bad : {"--overhead-budget=0%", "--overhead-budget=200%", "--overhead-budget=x",
                          "--overhead-budget="}) {
    EXPECT_FALSE(ParseRunOptions({bad, "app"}).ok()) << bad;
  }
}

TEST(AttachOptionsTest, ParsesAndValidates) {
  auto o = ParseAttachOptions({"--shm", "/brrr-1-abc", "--pid", "123"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->shm, "/brrr-1-abc");
  EXPECT_EQ(o->pid, 123);
  EXPECT_FALSE(ParseAttachOptions({"--shm", "/x"}).ok());
  EXPECT_FALSE(ParseAttachOptions({"--pid", "5"}).ok());
  EXPECT_FALSE(ParseAttachOptions({"--shm", "x", "--pid", "5"}).ok());
  EXPECT_FALSE(ParseAttachOptions({"--shm", "/a/b", "--pid", "5"}).ok());
  EXPECT_FALSE(ParseAttachOptions({"--shm", "/x", "--pid", "0"}).ok());
  EXPECT_FALSE(ParseAttachOptions({"--shm", "/x", "--pid", "99999999999"}).ok());
  EXPECT_FALSE(ParseAttachOptions({"--shm", "/x", "--pid", "12", "extra"}).ok());
}

TEST(ReportOptionsTest, ParsesAndValidates) {
  auto o = ParseReportOptions({"run.brrr", "--json"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->file, "run.brrr");
  EXPECT_TRUE(o->json);
  EXPECT_FALSE(ParseReportOptions({}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "b"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--html"}).ok());
}

TEST(ReportOptionsTest, ViewsToFilesTogether) {
  auto o =
      ParseReportOptions({"run.brrr", "--html", "r.html", "--folded=s.folded", "--folded-launches",
                          "l.folded", "--chrome-trace", "t.json", "--pprof", "p.pb.gz"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->pprof, "p.pb.gz");
  EXPECT_EQ(o->html, "r.html");
  EXPECT_EQ(o->folded, "s.folded");
  EXPECT_EQ(o->folded_launches, "l.folded");
  EXPECT_EQ(o->chrome_trace, "t.json");
  EXPECT_FALSE(ParseReportOptions({"a", "--folded"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--folded-launches"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--json", "--html", "r.html"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--json", "--folded", "s"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--pprof"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--json", "--pprof", "p"}).ok());
  auto both = ParseReportOptions({"a", "--chrome-trace", "t.json", "--perfetto=t.pftrace"});
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->chrome_trace, "t.json");
  EXPECT_EQ(both->perfetto, "t.pftrace");
  EXPECT_FALSE(ParseReportOptions({"a", "--perfetto"}).ok());
  EXPECT_FALSE(ParseReportOptions({"a", "--json", "--perfetto", "t"}).ok());
}

TEST(CommandLineTest, MergeOptions) {
  auto o = ParseMergeOptions({"a.brrr", "--output", "job.brrr", "b.brrr", "--json"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->files, (std::vector<std::string>{"a.brrr", "b.brrr"}));
  EXPECT_EQ(o->output, "job.brrr");
  EXPECT_TRUE(o->json);
  EXPECT_FALSE(o->quiet);
  EXPECT_FALSE(ParseMergeOptions({"a.brrr"}).ok());                  // no --output
  EXPECT_FALSE(ParseMergeOptions({"--output", "j.brrr"}).ok());      // no file
  EXPECT_FALSE(ParseMergeOptions({"a.brrr", "-o"}).ok());            // missing value
  EXPECT_FALSE(ParseMergeOptions({"a.brrr", "-o", "j", "--x"}).ok());  // unknown option
}

TEST(RunOptionsTest, CountersIsAFlag) {
  auto o = ParseRunOptions({"--counters", "--", "app"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->counters);
  EXPECT_FALSE(ParseRunOptions({"app"})->counters);
  EXPECT_FALSE(ParseRunOptions({"--counters=1", "--", "app"}).ok());
}

}  // namespace
}  // namespace brrr::cli
