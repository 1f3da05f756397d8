// Tests of the Prometheus text of a report: each family once with HELP/TYPE, values in seconds,
// labels (rank, pid, device, reason; quotes and backslashes escaped), cumulative histogram buckets
// ending in +Inf equal to the count.
#include "collector/cli/prometheus_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::cli {
namespace {

using ::testing::HasSubstr;

Report Sample() {
  Report r;
  r.kernels.launch_calls = 1234;
  r.kernels.launches = 1200;
  DeviceBreakdown d;
  d.id = 1;
  d.busy_ns = 2'500'000'000;
  d.idle.launch_bound_ns = 1'000'000;
  d.idle.sync_drain_ns = 2'000'000;
  d.idle.host_outside_cuda_ns = 3;
  r.devices.push_back(d);
  Stall s;
  s.reason = "d2h_copy";
  s.total_ns = 500'000'000;
  r.stalls.push_back(s);
  s.total_ns = 250'000'000;  // a second site of the same reason: summed
  r.stalls.push_back(s);
  s.reason = "we\"ird\\";
  s.total_ns = 1;
  r.stalls.push_back(s);
  r.events.dropped = 7;
  r.launch_latency_ns.count = 5;
  r.launch_latency_ns.histogram = {{0, 1}, {1024, 3}, {4096, 1}};
  return r;
}

TEST(PrometheusTextTest, FamiliesLabelsAndValues) {
  const std::string t = PrometheusText(Sample(), 3, 42);
  const std::string l = "rank=\"3\",pid=\"42\"";
  EXPECT_THAT(t, HasSubstr("# TYPE brrr_kernel_launches_total counter\nbrrr_kernel_launches_total{" +
                           l + "} 1234\n"));
  EXPECT_THAT(t, HasSubstr("brrr_device_busy_seconds_total{" + l + ",device=\"1\"} 2.500000000\n"));
  EXPECT_THAT(t, HasSubstr("brrr_device_idle_seconds_total{" + l +
                           ",device=\"1\",reason=\"launch_bound\"} 0.001000000\n"));
  EXPECT_THAT(t, HasSubstr("reason=\"sync_drain\"} 0.002000000\n"));
  EXPECT_THAT(t, HasSubstr("reason=\"host_outside_cuda\"} 0.000000003\n"));
  EXPECT_THAT(t, HasSubstr("brrr_host_stall_seconds_total{" + l +
                           ",reason=\"d2h_copy\"} 0.750000000\n"));
  EXPECT_THAT(t, HasSubstr("reason=\"we\\\"ird\\\\\"} 0.000000001\n"));
  EXPECT_THAT(t, HasSubstr("brrr_events_dropped_total{" + l + "} 7\n"));
  // Buckets [0,1), [1024,2048), [4096,8192) under the fixed le set 2^10 .. 2^30 ns, cumulative:
  // 1 at 1.024 us (the [0,1) one), 4 from 2.048 us, 5 from 8.192 us on.
  EXPECT_THAT(t, HasSubstr("brrr_launch_latency_seconds_bucket{" + l + ",le=\"1.024e-06\"} 1\n"));
  EXPECT_THAT(t, HasSubstr("le=\"2.048e-06\"} 4\n"));
  EXPECT_THAT(t, HasSubstr("le=\"4.096e-06\"} 4\n"));
  EXPECT_THAT(t, HasSubstr("le=\"8.192e-06\"} 5\n"));
  EXPECT_THAT(t, HasSubstr("le=\"1.073741824\"} 5\n"));
  EXPECT_THAT(t, HasSubstr("le=\"+Inf\"} 5\n"));
  EXPECT_THAT(t, HasSubstr("brrr_launch_latency_seconds_count{" + l + "} 5\n"));
  for (const char* family :
       {"brrr_kernel_launches_total", "brrr_device_busy_seconds_total",
        "brrr_device_idle_seconds_total", "brrr_host_stall_seconds_total",
        "brrr_events_dropped_total", "brrr_launch_latency_seconds"}) {
    const std::string type = std::string("# TYPE ") + family + " ";
    const size_t first = t.find(type);
    ASSERT_NE(first, std::string::npos) << family;
    EXPECT_EQ(t.find(type, first + 1), std::string::npos) << family;
  }
}

// Every scrape has the same le set, whatever the latencies so far (none yet, or all slow), and a
// process without a rank has no rank label.
TEST(PrometheusTextTest, TheBucketSetIsFixedAndTheRankLabelOnlyWhenKnown) {
  auto les = [](const std::string& t) {
    std::vector<std::string> out;
    for (size_t at = 0; (at = t.find(",le=\"", at)) != std::string::npos; ++at) {
      out.push_back(t.substr(at, t.find('"', at + 5) - at));
    }
    return out;
  };
  Report empty;
  Report slow = Sample();
  slow.launch_latency_ns.histogram = {{int64_t{1} << 33, 2}};  // ~8.6 s: past the last le
  slow.launch_latency_ns.count = 2;
  const std::string a = PrometheusText(Sample(), -1, 7);
  EXPECT_EQ(les(a).size(), 22u);  // 21 powers of two and +Inf
  EXPECT_EQ(les(a), les(PrometheusText(empty, -1, 7)));
  EXPECT_EQ(les(a), les(PrometheusText(slow, -1, 7)));
  EXPECT_THAT(PrometheusText(slow, -1, 7), HasSubstr("le=\"1.073741824\"} 0\n"));
  EXPECT_THAT(PrometheusText(slow, -1, 7), HasSubstr("le=\"+Inf\"} 2\n"));
  EXPECT_THAT(a, HasSubstr("brrr_kernel_launches_total{pid=\"7\"} 1234\n"));
  EXPECT_EQ(a.find("rank="), std::string::npos);
}

// Stall seconds by reason count every stall (stall_reasons), not only the top rows, so the
// counter does not go down when a reason's rows leave the top.
TEST(PrometheusTextTest, StallSecondsCountEveryStallOfAReason) {
  Report r = Sample();
  r.stall_reasons = {{"d2h_copy", 9, 2'000'000'000}, {"stream_sync", 1, 5}};
  const std::string t = PrometheusText(r, -1, 7);
  EXPECT_THAT(t, HasSubstr("brrr_host_stall_seconds_total{pid=\"7\",reason=\"d2h_copy\"} 2.000000000\n"));
  EXPECT_THAT(t, HasSubstr("reason=\"stream_sync\"} 0.000000005\n"));
}

// A job: each family once, one series per process.
TEST(PrometheusTextTest, AJobHasASeriesPerProcessUnderOneFamily) {
  const Report a = Sample();
  Report b = Sample();
  b.kernels.launch_calls = 99;
  const std::string t = PrometheusText({{&a, 0, 100}, {&b, 1, 101}});
  EXPECT_THAT(t, HasSubstr("brrr_kernel_launches_total{rank=\"0\",pid=\"100\"} 1234\n"
                           "brrr_kernel_launches_total{rank=\"1\",pid=\"101\"} 99\n"));
  size_t count = 0;
  for (size_t at = 0; (at = t.find("# TYPE ", at)) != std::string::npos; ++at) ++count;
  EXPECT_EQ(count, 6u);
  EXPECT_THAT(t, HasSubstr("brrr_launch_latency_seconds_count{rank=\"1\",pid=\"101\"} 5\n"));
}

}  // namespace
}  // namespace brrr::cli

namespace brrr::cli {
namespace {

// A later snapshot that revises figures down (late device records turned idle time into busy;
// a sampled estimate rescaled) publishes the highest values seen: counters never go down. A
// figure that grows past its floor is published as it is.
TEST(PrometheusTextTest, WithFloorsNoSeriesEverGoesDown) {
  CounterFloors floors;
  Report first = Sample();
  const std::string a = PrometheusText({{&first, 0, 42}}, &floors);
  EXPECT_THAT(a, HasSubstr("brrr_device_idle_seconds_total{rank=\"0\",pid=\"42\",device=\"1\","
                           "reason=\"sync_drain\"} 0.002000000\n"));
  Report later = Sample();
  later.devices[0].idle.sync_drain_ns = 1'000'000;  // revised down
  later.devices[0].busy_ns = 2'600'000'000;         // grew
  later.kernels.launch_calls = 1300;
  const std::string b = PrometheusText({{&later, 0, 42}}, &floors);
  EXPECT_THAT(b, HasSubstr("brrr_device_idle_seconds_total{rank=\"0\",pid=\"42\",device=\"1\","
                           "reason=\"sync_drain\"} 0.002000000\n"));
  EXPECT_THAT(b, HasSubstr("brrr_device_busy_seconds_total{rank=\"0\",pid=\"42\",device=\"1\"} "
                           "2.600000000\n"));
  EXPECT_THAT(b, HasSubstr("brrr_kernel_launches_total{rank=\"0\",pid=\"42\"} 1300\n"));
  // Without floors the report's own figures are published.
  EXPECT_THAT(PrometheusText({{&later, 0, 42}}), HasSubstr("reason=\"sync_drain\"} 0.001000000\n"));
  // Another process's series has floors of its own.
  EXPECT_THAT(PrometheusText({{&later, 1, 43}}, &floors),
              HasSubstr("brrr_device_idle_seconds_total{rank=\"1\",pid=\"43\",device=\"1\","
                        "reason=\"sync_drain\"} 0.001000000\n"));
}

}  // namespace
}  // namespace brrr::cli
