// See prometheus_text.h.
#include "collector/cli/prometheus_text.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace brrr::cli {
namespace {

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// The histogram's fixed upper bounds: 2^10 ns (1.024 us) to 2^30 ns (1.07 s), then +Inf.
constexpr int kFirstLe = 10;
constexpr int kLastLe = 30;

// One sample line: `series value`, the value floored when `floors` is given (counter_floors.h).
void Sample(std::string& out, CounterFloors* floors, const std::string& series, double value,
            const char* format) {
  if (floors != nullptr) value = floors->Floor(series, value);
  absl::StrAppend(&out, series, " ", absl::StrFormat(format, value), "\n");
}
void Seconds(std::string& out, CounterFloors* floors, const std::string& series, int64_t ns) {
  Sample(out, floors, series, static_cast<double>(ns) / 1e9, "%.9f");
}
void Count(std::string& out, CounterFloors* floors, const std::string& series, uint64_t n) {
  Sample(out, floors, series, static_cast<double>(n), "%.0f");
}

// The rank only when it is known (a process without RANK, LOCAL_RANK, ... has none).
std::string Labels(const MetricsSource& s) {
  if (s.rank < 0) return absl::StrCat("pid=\"", s.pid, "\"");
  return absl::StrCat("rank=\"", s.rank, "\",pid=\"", s.pid, "\"");
}

}  // namespace

std::string PrometheusText(const Report& r, int64_t rank, uint32_t pid) {
  return PrometheusText(std::vector<MetricsSource>{{&r, rank, pid}});
}

std::string PrometheusText(const std::vector<MetricsSource>& sources, CounterFloors* floors) {
  std::string out;
  absl::StrAppend(&out, "# HELP brrr_kernel_launches_total Kernel launch calls the host made.\n",
                  "# TYPE brrr_kernel_launches_total counter\n");
  for (const MetricsSource& s : sources) {
    Count(out, floors, absl::StrCat("brrr_kernel_launches_total{", Labels(s), "}"),
          s.report->kernels.launch_calls);
  }
  absl::StrAppend(&out, "# HELP brrr_device_busy_seconds_total Device time running work.\n",
                  "# TYPE brrr_device_busy_seconds_total counter\n");
  for (const MetricsSource& s : sources) {
    for (const DeviceBreakdown& d : s.report->devices) {
      Seconds(out, floors,
              absl::StrCat("brrr_device_busy_seconds_total{", Labels(s), ",device=\"", d.id, "\"}"),
              d.busy_ns);
    }
  }
  absl::StrAppend(&out, "# HELP brrr_device_idle_seconds_total Device idle time by reason.\n",
                  "# TYPE brrr_device_idle_seconds_total counter\n");
  for (const MetricsSource& s : sources) {
    for (const DeviceBreakdown& d : s.report->devices) {
      for (const auto& [reason, ns] :
           {std::pair<const char*, int64_t>{"launch_bound", d.idle.launch_bound_ns},
            {"sync_drain", d.idle.sync_drain_ns},
            {"host_outside_cuda", d.idle.host_outside_cuda_ns}}) {
        Seconds(out, floors,
                absl::StrCat("brrr_device_idle_seconds_total{", Labels(s), ",device=\"", d.id,
                             "\",reason=\"", reason, "\"}"),
                ns);
      }
    }
  }
  absl::StrAppend(&out, "# HELP brrr_host_stall_seconds_total Host time blocked, by reason.\n",
                  "# TYPE brrr_host_stall_seconds_total counter\n");
  for (const MetricsSource& s : sources) {
    // By reason over every stall (the top rows only in reports without stall_reasons).
    std::map<std::string, int64_t> stalls;
    if (!s.report->stall_reasons.empty()) {
      for (const StallReasonTotal& t : s.report->stall_reasons) stalls[t.reason] += t.total_ns;
    } else {
      for (const Stall& st : s.report->stalls) stalls[st.reason] += st.total_ns;
    }
    for (const auto& [reason, ns] : stalls) {
      Seconds(out, floors,
              absl::StrCat("brrr_host_stall_seconds_total{", Labels(s), ",reason=\"",
                           Escape(reason), "\"}"),
              ns);
    }
  }
  absl::StrAppend(&out, "# HELP brrr_events_dropped_total Host and device records lost.\n",
                  "# TYPE brrr_events_dropped_total counter\n");
  for (const MetricsSource& s : sources) {
    Count(out, floors, absl::StrCat("brrr_events_dropped_total{", Labels(s), "}"),
          s.report->events.dropped);
  }
  absl::StrAppend(&out,
                  "# HELP brrr_launch_latency_seconds Launch-to-execution latency of kernels.\n",
                  "# TYPE brrr_launch_latency_seconds histogram\n");
  for (const MetricsSource& s : sources) {
    // The same buckets in every scrape, from the first (Prometheus' rate() and
    // histogram_quantile need every le at all times): le = 2^k ns for k in [kFirstLe, kLastLe],
    // cumulative; the report's power-of-two buckets [lo, 2 lo) fall under the first le >= 2 lo.
    const std::string base = Labels(s);
    const LatencySummary& l = s.report->launch_latency_ns;
    double sum = 0;  // estimated: the buckets' midpoints (the report keeps no exact sum)
    for (const LatencyBucket& b : l.histogram) {
      sum += static_cast<double>(b.count) *
             (b.lo_ns == 0 ? 0.0 : 1.5 * static_cast<double>(b.lo_ns));
    }
    for (int k = kFirstLe; k <= kLastLe; ++k) {
      const int64_t le = int64_t{1} << k;
      uint64_t cumulative = 0;
      for (const LatencyBucket& b : l.histogram) {
        const int64_t upper = b.lo_ns == 0 ? 1 : 2 * b.lo_ns;
        if (upper <= le) cumulative += b.count;
      }
      Count(out, floors,
            absl::StrCat("brrr_launch_latency_seconds_bucket{", base, ",le=\"",
                         absl::StrFormat("%.12g", static_cast<double>(le) / 1e9), "\"}"),
            cumulative);
    }
    Count(out, floors, absl::StrCat("brrr_launch_latency_seconds_bucket{", base, ",le=\"+Inf\"}"),
          l.count);
    Sample(out, floors, absl::StrCat("brrr_launch_latency_seconds_sum{", base, "}"), sum / 1e9,
           "%.9f");
    Count(out, floors, absl::StrCat("brrr_launch_latency_seconds_count{", base, "}"), l.count);
  }
  return out;
}

}  // namespace brrr::cli
