// See breakdown_json.h.
#include "viewer/format/breakdown_json.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "viewer/format/json_object_builder.h"

namespace brrr {

nlohmann::ordered_json IdleJson(const IdleBreakdown& idle) {
  return JsonObjectBuilder(3)
      .Add("launch_bound_ns", idle.launch_bound_ns)
      .Add("sync_drain_ns", idle.sync_drain_ns)
      .Add("host_outside_cuda_ns", idle.host_outside_cuda_ns)
      .Build();
}

nlohmann::ordered_json DevicesJson(const std::vector<DeviceBreakdown>& devices) {
  nlohmann::ordered_json out = JsonArrayWithRoom(devices.size());
  for (const DeviceBreakdown& d : devices) {
    JsonObjectBuilder device(8);
    device.Add("id", d.id);
    // A job's device view says whose device it is; a process's own view leaves them out.
    if (!d.host.empty() || d.processes != 1) device.Add("host", d.host).Add("processes", d.processes);
    out.push_back(device.Add("wall_ns", d.wall_ns)
                      .Add("busy_ns", d.busy_ns)
                      .Add("idle", IdleJson(d.idle))
                      .Add("startup_ns", d.startup_ns)
                      .Add("teardown_ns", d.teardown_ns)
                      .Build());
  }
  return out;
}

void DecodeIdle(JsonFieldReader& d, const nlohmann::json& obj, const std::string& path,
                IdleBreakdown& idle) {
  if (const nlohmann::json* v = d.Member(obj, "idle", path, nlohmann::json::value_t::object)) {
    const std::string idle_path = path + ".idle";
    d.Integer(*v, "launch_bound_ns", idle_path, idle.launch_bound_ns);
    d.Integer(*v, "sync_drain_ns", idle_path, idle.sync_drain_ns);
    d.Integer(*v, "host_outside_cuda_ns", idle_path, idle.host_outside_cuda_ns);
  }
}

void DecodeDevices(JsonFieldReader& d, const nlohmann::json& obj, const std::string& path,
                   std::vector<DeviceBreakdown>& devices) {
  // One row per device, a device being (host, id): a repeated one is an error.
  std::set<std::pair<std::string, uint32_t>> seen;
  d.Objects(obj, "devices", path, [&](const nlohmann::json& e, const std::string& item) {
    DeviceBreakdown& dev = devices.emplace_back();
    d.Integer(e, "id", item, dev.id);
    // Absent in a process's own view and in job reports written before a job's devices had hosts.
    d.String(e, "host", item, dev.host);
    d.Integer(e, "processes", item, dev.processes);
    if (d.ok() && !seen.insert({dev.host, dev.id}).second) {
      d.Fail(absl::StrCat(item, ".id: device ", dev.id,
                          dev.host.empty() ? "" : absl::StrCat(" on ", dev.host), " is listed twice"));
    }
    d.Integer(e, "wall_ns", item, dev.wall_ns);
    d.Integer(e, "busy_ns", item, dev.busy_ns);
    DecodeIdle(d, e, item, dev.idle);
    // Absent in reports written before start-up and teardown were split off, and in job rows
    // written before a row carried them (then 0).
    d.Integer(e, "startup_ns", item, dev.startup_ns);
    d.Integer(e, "teardown_ns", item, dev.teardown_ns);
  });
}

}  // namespace brrr
