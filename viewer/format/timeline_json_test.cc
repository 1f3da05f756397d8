// Tests of the report's timeline and launch-latency histogram in JSON: the sample report's round
// trip keeps them (and notices a changed bucket), reports without them read as absent/empty, and
// hostile values (negative, fractional, too many buckets or rows, wrong kinds, a zero bucket
// width) are rejected naming their path.
#include "viewer/format/timeline_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "viewer/format/report_json.h"
#include "viewer/format/sample_report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

TEST(TimelineJsonTest, SampleRoundTripKeepsTimelineAndHistogram) {
  const Report r = SampleReport();
  const std::string json = RenderJsonCompact(r);
  EXPECT_THAT(json, HasSubstr("\"timeline\":{\"bucket_ns\":4000000000,\"devices\":[{\"id\":0,"));
  EXPECT_THAT(json, HasSubstr("\"histogram\":[{\"lo_ns\":4096,\"count\":20000}"));
  auto back = ParseReportJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, r);
  Report changed = r;
  changed.timeline->devices[0].buckets[2].sync_drain_ns += 1;
  EXPECT_NE(*ParseReportJson(RenderJsonCompact(changed)), r);
  changed = r;
  changed.launch_latency_ns.histogram[1].count += 1;
  EXPECT_NE(*ParseReportJson(RenderJsonCompact(changed)), r);
}

TEST(TimelineJsonTest, ReportsWithoutThemReadAsAbsent) {
  Report r = SampleReport();
  r.timeline.reset();
  r.launch_latency_ns.histogram.clear();
  std::string json = RenderJsonCompact(r);
  EXPECT_THAT(json, Not(HasSubstr("\"timeline\"")));
  json = absl::StrReplaceAll(json, {{",\"histogram\":[]", ""}});
  EXPECT_THAT(json, Not(HasSubstr("histogram")));
  auto back = ParseReportJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->timeline.has_value());
  EXPECT_TRUE(back->launch_latency_ns.histogram.empty());
}

TEST(TimelineJsonTest, HostileValuesAreRejectedWithTheirPath) {
  const std::string json = RenderJsonCompact(SampleReport());
  struct Case {
    std::string from, to, path;
  };
  const std::string first_bucket = "{\"busy_ns\":1000000000,\"launch_bound_ns\":2500000000";
  std::string many_buckets = "[";
  for (size_t i = 0; i <= kMaxTimelineBuckets; ++i) {
    absl::StrAppend(&many_buckets, i ? "," : "",
                    "{\"busy_ns\":0,\"launch_bound_ns\":0,\"sync_drain_ns\":0,"
                    "\"host_outside_cuda_ns\":0,\"startup_ns\":0,\"teardown_ns\":0}");
  }
  many_buckets += "]";
  const std::vector<Case> cases = {
      {"\"bucket_ns\":4000000000", "\"bucket_ns\":0", "$.timeline.bucket_ns"},
      {"\"bucket_ns\":4000000000", "\"bucket_ns\":-5", "$.timeline.bucket_ns"},
      {"\"bucket_ns\":4000000000", "\"bucket_ns\":1.5", "$.timeline.bucket_ns"},
      {"\"bucket_ns\":4000000000", "\"bucket_ns\":\"x\"", "$.timeline.bucket_ns"},
      {first_bucket, "{\"busy_ns\":-1,\"launch_bound_ns\":2500000000",
       "$.timeline.devices[0].buckets[0].busy_ns"},
      {first_bucket, "{\"busy_ns\":99999999999999999999,\"launch_bound_ns\":2500000000",
       "$.timeline.devices[0].buckets[0].busy_ns"},
      {first_bucket, "{\"launch_bound_ns\":2500000000", "$.timeline.devices[0].buckets[0]"},
      {"{\"id\":1,\"buckets\":[{\"busy_ns\":0,\"launch_bound_ns\":0,\"sync_drain_ns\":0,"
       "\"host_outside_cuda_ns\":1000,\"startup_ns\":0,\"teardown_ns\":0}]}",
       "{\"id\":1,\"buckets\":" + many_buckets + "}", "$.timeline.devices[1].buckets"},
      {"{\"id\":1,\"buckets\":[", "{\"id\":4294967296,\"buckets\":[", "$.timeline.devices[1].id"},
      {"{\"id\":1,\"buckets\":[", "{\"id\":1,\"buckets\":{},\"x\":[", "$.timeline.devices[1]"},
      {"\"timeline\":{", "\"timeline\":[],\"t\":{", "$.timeline"},
      {"{\"lo_ns\":4096,\"count\":20000}", "{\"lo_ns\":4096,\"count\":-3}",
       "$.launch_latency_ns.histogram[0].count"},
      {"{\"lo_ns\":4096,\"count\":20000}", "7", "$.launch_latency_ns.histogram[0]"},
      {"\"histogram\":[", "\"histogram\":{},\"h\":[", "$.launch_latency_ns.histogram"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to.substr(0, 80));
    ASSERT_THAT(json, HasSubstr(c.from));
    const std::string bad = absl::StrReplaceAll(json, {{c.from, c.to}});
    auto parsed = ParseReportJson(bad);
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.path));
  }
  // Too many histogram rows.
  std::string rows = "\"histogram\":[";
  for (int i = 0; i < 66; ++i) absl::StrAppend(&rows, i ? "," : "", "{\"lo_ns\":1,\"count\":1}");
  const std::string bad = absl::StrReplaceAll(json, {{"\"histogram\":[", rows + ","}});
  auto parsed = ParseReportJson(bad);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("more than 65 rows"));
}

}  // namespace
}  // namespace brrr
