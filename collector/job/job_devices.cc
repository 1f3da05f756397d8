// A job's device view, one row per (host, device id). See job_devices.h.
//
// Must never: add walls up across processes, overflow, or drop a device.
#include "collector/job/job_devices.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

namespace brrr::job {
namespace {

using Wide = __int128;  // origins (Unix ns) plus walls do not fit int64 when inputs are wild

Wide NonNegative(int64_t v) { return v < 0 ? 0 : v; }

int64_t Narrow(Wide v) {
  if (v < 0) return 0;
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(v);
}

// One process's use of a device, on the job's clock (ns from the earliest known start).
struct Use {
  Wide start = 0, end = 0;            // its run
  Wide first_work = 0, last_work = 0;  // its steady state: [first CUDA work, last CUDA work]
  const DeviceBreakdown* device = nullptr;
};

Use UseOf(const DeviceBreakdown& d, Wide start) {
  Use u;
  u.device = &d;
  const Wide wall = NonNegative(d.wall_ns);
  const Wide startup = std::min(NonNegative(d.startup_ns), wall);
  const Wide teardown = std::min(NonNegative(d.teardown_ns), wall - startup);
  u.start = start;
  u.end = start + wall;
  u.first_work = start + startup;
  u.last_work = u.end - teardown;
  return u;
}

// The shared device's row: its wall once over the processes' span (job_devices.h).
DeviceBreakdown Shared(const std::vector<Use>& uses) {
  Wide start = uses.front().start, end = uses.front().end;
  Wide first = uses.front().first_work, last = uses.front().last_work;
  Wide busy = 0, launch_bound = 0, sync_drain = 0, host_outside = 0;
  for (const Use& u : uses) {
    start = std::min(start, u.start);
    end = std::max(end, u.end);
    first = std::min(first, u.first_work);
    last = std::max(last, u.last_work);
    busy += NonNegative(u.device->busy_ns);
    launch_bound += NonNegative(u.device->idle.launch_bound_ns);
    sync_drain += NonNegative(u.device->idle.sync_drain_ns);
    host_outside += NonNegative(u.device->idle.host_outside_cuda_ns);
  }
  const Wide steady = last - first;  // >= 0: some process's last work follows the first's first
  busy = std::min(busy, steady);
  const Wide idle = steady - busy;
  const Wide idle_parts = launch_bound + sync_drain + host_outside;
  Wide launch_share = 0, sync_share = 0;
  if (idle_parts > 0) {
    const long double per_ns = static_cast<long double>(idle) / static_cast<long double>(idle_parts);
    launch_share = std::min(idle, static_cast<Wide>(per_ns * static_cast<long double>(launch_bound)));
    sync_share =
        std::min(idle - launch_share, static_cast<Wide>(per_ns * static_cast<long double>(sync_drain)));
  }
  DeviceBreakdown out;
  out.wall_ns = Narrow(end - start);
  out.busy_ns = Narrow(busy);
  out.idle.launch_bound_ns = Narrow(launch_share);
  out.idle.sync_drain_ns = Narrow(sync_share);
  out.idle.host_outside_cuda_ns = Narrow(idle - launch_share - sync_share);
  out.startup_ns = Narrow(first - start);
  out.teardown_ns = Narrow(end - last);
  out.processes = static_cast<uint32_t>(std::min<size_t>(uses.size(), UINT32_MAX));
  return out;
}

// Where each process starts on the job's clock: its start on the wall clock less the earliest
// known one; 0 (with the earliest) when it has none.
std::vector<Wide> Starts(const std::vector<Report>& processes) {
  Wide earliest = 0;
  bool any = false;
  for (const Report& r : processes) {
    if (!r.timeline.has_value() || r.timeline->origin_unix_ns <= 0) continue;
    earliest = any ? std::min<Wide>(earliest, r.timeline->origin_unix_ns) : r.timeline->origin_unix_ns;
    any = true;
  }
  std::vector<Wide> starts;
  starts.reserve(processes.size());
  for (const Report& r : processes) {
    const bool known = r.timeline.has_value() && r.timeline->origin_unix_ns > 0;
    starts.push_back(known ? r.timeline->origin_unix_ns - earliest : 0);
  }
  return starts;
}

}  // namespace

std::vector<DeviceBreakdown> MergeDevices(const std::vector<Report>& processes,
                                          const std::vector<std::string>& hosts) {
  const std::vector<Wide> starts = Starts(processes);
  std::map<std::pair<std::string, uint32_t>, std::vector<Use>> by_device;
  for (size_t i = 0; i < processes.size(); ++i) {
    const std::string host = i < hosts.size() ? hosts[i] : std::string();
    for (const DeviceBreakdown& d : processes[i].devices) {
      by_device[{host, d.id}].push_back(UseOf(d, starts[i]));
    }
  }
  std::vector<DeviceBreakdown> out;
  out.reserve(by_device.size());
  for (const auto& [key, uses] : by_device) {
    DeviceBreakdown& d = out.emplace_back(uses.size() == 1 ? *uses.front().device : Shared(uses));
    d.id = key.second;
    d.host = key.first;
    d.processes = static_cast<uint32_t>(std::min<size_t>(uses.size(), UINT32_MAX));
  }
  return out;
}

}  // namespace brrr::job
