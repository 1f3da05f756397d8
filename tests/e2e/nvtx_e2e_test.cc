// End-to-end test of NVTX phases: e2e_nvtx_phases (nvcc, header-only nvtx3) under `brrr run` on
// the simulated device, its saved report rendered with `brrr report --json`, and the `phases`
// array checked: exactly the range paths the program opens, each with its exact range and launch
// counts, the device time of its kernels (exact configured durations), its stall and the device
// idle split while it was open. The program's NVTX calls reach brrr only through the
// NVTX_INJECTION64_PATH `brrr run` sets, or, under a plain LD_PRELOAD, the shim sets.
// Paths come from the build: BRRR_BIN, BRRR_SHIM_PATH, SIMCUDA_LIB_DIR, E2E_BIN_DIR,
// BRRR_PRELOAD_PREFIX.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/strict_json.h"

namespace brrr {
namespace {

using ::testing::UnorderedElementsAre;

// Run shape (the program's arguments) and simulated costs.
constexpr int64_t kSteps = 6, kFwd = 5, kBwd = 2, kEvals = 3;
constexpr int64_t kLaunchNs = 20'000;  // each launch burns this much host time
// bwd and eval end in a synchronization that must wait: their kernels are long enough (tens of
// ms) that a host slowed by load still reaches the sync before the device is done (with 300 us
// and 50 us kernels the planted eval stall vanished under load in the ASan build).
constexpr int64_t kFwdNs = 4'000, kBwdNs = 20'000'000, kOptNs = 10'000, kEvalNs = 100'000'000;
constexpr int64_t kHostWorkNs = 300'000;  // the program's host-only work per step

struct PhaseRow {
  int64_t calls = -1, wall_ns = -1, launches = -1, device_ns = -1, stall_ns = -1;
  int64_t launch_bound_ns = -1, sync_drain_ns = -1, host_outside_cuda_ns = -1;
};

using Json = nlohmann::json;

// The member `key` of `obj`, or nullptr.
const Json* Find(const Json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

int64_t Int(const Json* v) {
  if (v == nullptr || !v->is_number_integer()) {
    ADD_FAILURE() << "missing or non-integer field";
    return -1;
  }
  return v->get<int64_t>();
}

// phases[] of the report's JSON by name.
std::map<std::string, PhaseRow> Phases(const Json& doc) {
  std::map<std::string, PhaseRow> out;
  const Json* phases = Find(doc, "phases");
  if (phases == nullptr || !phases->is_array()) {
    ADD_FAILURE() << "the report has no phases array";
    return out;
  }
  for (const Json& p : *phases) {
    const Json* name_value = Find(p, "name");
    if (name_value == nullptr || !name_value->is_string()) {
      ADD_FAILURE() << "a phase without a name";
      continue;
    }
    const std::string name = name_value->get<std::string>();
    PhaseRow row;
    row.calls = Int(Find(p, "calls"));
    row.wall_ns = Int(Find(p, "wall_ns"));
    row.launches = Int(Find(p, "launches"));
    row.device_ns = Int(Find(p, "device_ns"));
    row.stall_ns = Int(Find(p, "stall_ns"));
    const Json* idle = Find(p, "idle");
    if (idle == nullptr) {
      ADD_FAILURE() << name << ": no idle";
    } else {
      row.launch_bound_ns = Int(Find(*idle, "launch_bound_ns"));
      row.sync_drain_ns = Int(Find(*idle, "sync_drain_ns"));
      row.host_outside_cuda_ns = Int(Find(*idle, "host_outside_cuda_ns"));
    }
    EXPECT_EQ(out.count(name), 0u) << "phase listed twice: " << name;
    out[name] = row;
  }
  return out;
}

std::vector<std::string> Names(const std::map<std::string, PhaseRow>& phases) {
  std::vector<std::string> names;
  for (const auto& [name, row] : phases) names.push_back(name);
  return names;
}

class NvtxEndToEnd : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(file_); }

  std::string File() {
    file_ = ::testing::TempDir() + "/nvtx-e2e-" + std::to_string(::getpid()) + ".brrr";
    std::filesystem::remove(file_);
    return file_;
  }

  // `brrr run` the program, then `brrr report --json` of the saved file, parsed.
  Json RunAndReport(const std::vector<std::string>& extra_env) {
    std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", File(), "--"};
    argv.insert(argv.end(), kProgram.begin(), kProgram.end());
    return Report(e2e::Spawn(argv, e2e::SimEnvironment(extra_env), true));
  }

  // The program alone with the shim preloaded (it starts `brrr attach` itself), then its report.
  Json PreloadAndReport(std::vector<std::string> extra_env) {
    extra_env.push_back("LD_PRELOAD=" + std::string(BRRR_PRELOAD_PREFIX) + BRRR_SHIM_PATH);
    extra_env.push_back("BRRR_OUTPUT=" + File());
    extra_env.push_back("BRRR_QUIET=1");
    extra_env.push_back("BRRR_REPORT_WAIT_MS=20000");
    std::vector<std::string> env;
    for (const std::string& kv : e2e::SimEnvironment(extra_env)) {
      if (kv.rfind("NVTX_INJECTION64_PATH=", 0) != 0) env.push_back(kv);  // the shim sets it
    }
    return Report(e2e::Spawn(kProgram, env, true));
  }

 private:
  const std::vector<std::string> kProgram = {
      std::string(E2E_BIN_DIR) + "/e2e_nvtx_phases", std::to_string(kSteps), std::to_string(kFwd),
      std::to_string(kBwd), std::to_string(kEvals)};

  Json Report(const e2e::ProcessResult& run) {
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("steps " + std::to_string(kSteps)), std::string::npos)
        << run.output;
    const e2e::ProcessResult report =
        e2e::Spawn({BRRR_BIN, "report", file_, "--json"}, e2e::SimEnvironment({}));
    EXPECT_EQ(report.exit_code, 0) << report.output;
    absl::StatusOr<Json> doc = ParseStrictJson(report.output);
    if (!doc.ok()) {
      ADD_FAILURE() << doc.status() << "\n" << report.output;
      return Json();
    }
    return *std::move(doc);
  }

  std::string file_;
};

std::vector<std::string> SimCosts() {
  return {"BRRR_SIM_LAUNCH_NS=" + std::to_string(kLaunchNs),
          "BRRR_SIM_KERNELS=fwd_kernel=" + std::to_string(kFwdNs) +
              ",bwd_kernel=" + std::to_string(kBwdNs) + ",opt_kernel=" + std::to_string(kOptNs) +
              ",eval_kernel=" + std::to_string(kEvalNs)};
}

TEST_F(NvtxEndToEnd, EveryRangePathIsAPhaseWithItsExactCounts) {
  const Json doc = RunAndReport(SimCosts());
  const std::map<std::string, PhaseRow> phases = Phases(doc);
  // Nested push/pop paths; a registered string in domain "app" labelled "app:optimizer"; the
  // start/end range a phase of its own, never nested.
  ASSERT_THAT(Names(phases),
              UnorderedElementsAre("step", "step/fwd", "step/bwd", "step/app:optimizer",
                                   "step/host", "app:eval"));
  const PhaseRow& step = phases.at("step");
  const PhaseRow& fwd = phases.at("step/fwd");
  const PhaseRow& bwd = phases.at("step/bwd");
  const PhaseRow& opt = phases.at("step/app:optimizer");
  const PhaseRow& host = phases.at("step/host");
  const PhaseRow& eval = phases.at("app:eval");

  for (const PhaseRow* p : {&step, &fwd, &bwd, &opt, &host}) EXPECT_EQ(p->calls, kSteps);
  EXPECT_EQ(eval.calls, 1);

  EXPECT_EQ(fwd.launches, kSteps * kFwd);
  EXPECT_EQ(bwd.launches, kSteps * kBwd);
  EXPECT_EQ(opt.launches, kSteps);
  EXPECT_EQ(host.launches, 0);
  EXPECT_EQ(step.launches, kSteps * (kFwd + kBwd + 1));  // parents are inclusive
  EXPECT_EQ(eval.launches, kEvals);

  // The simulated device runs each kernel exactly its configured time.
  auto near = [](int64_t expected) { return expected / 100; };
  EXPECT_NEAR(fwd.device_ns, kSteps * kFwd * kFwdNs, near(kSteps * kFwd * kFwdNs));
  EXPECT_NEAR(bwd.device_ns, kSteps * kBwd * kBwdNs, near(kSteps * kBwd * kBwdNs));
  EXPECT_NEAR(opt.device_ns, kSteps * kOptNs, near(kSteps * kOptNs));
  const int64_t step_device = kSteps * (kFwd * kFwdNs + kBwd * kBwdNs + kOptNs);
  EXPECT_NEAR(step.device_ns, step_device, near(step_device));
  EXPECT_EQ(host.device_ns, 0);
  EXPECT_NEAR(eval.device_ns, kEvals * kEvalNs, near(kEvals * kEvalNs));

  // Stalls: bwd synchronizes on its long kernels; fwd and the host work never wait.
  EXPECT_GT(bwd.stall_ns, 0);
  EXPECT_GE(step.stall_ns, bwd.stall_ns);
  EXPECT_EQ(fwd.stall_ns, 0);
  EXPECT_EQ(host.stall_ns, 0);
  EXPECT_GT(eval.stall_ns, 0);

  // Wall time: a parent holds its children; the host phase lasts its busy loop.
  EXPECT_GE(step.wall_ns, fwd.wall_ns + bwd.wall_ns + opt.wall_ns + host.wall_ns);
  EXPECT_GE(host.wall_ns, kSteps * kHostWorkNs);
  EXPECT_GE(fwd.wall_ns, kSteps * kFwd * kLaunchNs);

  // Idle split while inside: fwd's launches cost more host time than its kernels take (launch
  // bound); during the host work the device has nothing and the host is outside CUDA.
  EXPECT_GT(fwd.launch_bound_ns, 0);
  EXPECT_GT(host.host_outside_cuda_ns, 0);
  for (const auto& [name, p] : phases) {
    EXPECT_GE(p.launch_bound_ns, 0) << name;
    EXPECT_GE(p.sync_drain_ns, 0) << name;
    EXPECT_GE(p.host_outside_cuda_ns, 0) << name;
    // One thread, one device: idle while inside never exceeds the time inside.
    EXPECT_LE(p.launch_bound_ns + p.sync_drain_ns + p.host_outside_cuda_ns, p.wall_ns) << name;
  }
}

TEST_F(NvtxEndToEnd, PlainPreloadFindsTheRangesWithoutBrrrRun) {
  // No `brrr run` to set NVTX_INJECTION64_PATH: the shim's constructor does.
  const std::map<std::string, PhaseRow> phases = Phases(PreloadAndReport(SimCosts()));
  ASSERT_THAT(Names(phases),
              UnorderedElementsAre("step", "step/fwd", "step/bwd", "step/app:optimizer",
                                   "step/host", "app:eval"));
  EXPECT_EQ(phases.at("step").calls, kSteps);
  EXPECT_EQ(phases.at("step").launches, kSteps * (kFwd + kBwd + 1));
  EXPECT_EQ(phases.at("app:eval").launches, kEvals);
}

}  // namespace
}  // namespace brrr
