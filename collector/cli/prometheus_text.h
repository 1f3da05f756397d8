// The Prometheus text exposition format (version 0.0.4) of a report: brrr's metrics for
// --metrics-addr / BRRR_METRICS_ADDR, labelled with the process's pid and, when known, its rank.
//   brrr_kernel_launches_total                  launch calls the host made
//   brrr_device_busy_seconds_total{device}      device time running work
//   brrr_device_idle_seconds_total{device,reason}  launch_bound | sync_drain | host_outside_cuda
//   brrr_host_stall_seconds_total{reason}       host time blocked, by stall reason
//   brrr_events_dropped_total                   host and device records lost
//   brrr_launch_latency_seconds                 histogram of launch-to-execution latency: the
//                                               same le set in every scrape (2^10..2^30 ns, +Inf)
// Must never: emit a label value unescaped, or a metric family twice, or (given floors) a value
// lower than the series had.
#ifndef BRRR_COLLECTOR_CLI_PROMETHEUS_TEXT_H_
#define BRRR_COLLECTOR_CLI_PROMETHEUS_TEXT_H_

#include <string>
#include <vector>

#include "collector/cli/counter_floors.h"
#include "viewer/format/report.h"

namespace brrr::cli {

std::string PrometheusText(const Report& report, int64_t rank, uint32_t pid);

// A job's processes on one endpoint: each family once, a series per process (its rank and pid).
struct MetricsSource {
  const Report* report = nullptr;
  int64_t rank = -1;
  uint32_t pid = 0;
};
// With `floors`, every series publishes the highest value it has had (counter_floors.h).
std::string PrometheusText(const std::vector<MetricsSource>& sources,
                           CounterFloors* floors = nullptr);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_PROMETHEUS_TEXT_H_
