// End-to-end test of the full event trace: an nvcc-built program runs on the simulated device under
// `brrr run --trace[=N]` (and under plain LD_PRELOAD with BRRR_TRACE=N), `brrr report FILE
// --chrome-trace OUT` exports it, and the Chrome JSON (parsed with the viewer's strict parser)
// holds one GPU kernel event per launch, host calls on the app's pid (each launch's CUPTI record
// folded into its call, which draws the flow to the kernel), and, with a cap below the event
// count, exactly `cap` events and a nonzero omitted count. Paths come from the build:
// BRRR_BIN, SIMCUDA_LIB_DIR, E2E_BIN_DIR, BRRR_PRELOAD_PREFIX ("<libasan.so>:" in sanitized builds,
// else empty).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"
#include "viewer/chrome_trace.h"
#include "viewer/format/strict_json.h"


namespace brrr {
namespace {

constexpr int kLaunches = 50;

using e2e::ReadFile;

// Runs argv on the simulated device with `extra_env`; stdout and stderr go to `log`. Returns the
// exit code as a shell reports it.
int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
          const std::string& log) {
  const e2e::ProcessResult r =
      e2e::Spawn(argv, e2e::SimEnvironment(extra_env), /*with_stderr=*/true);
  std::ofstream(log, std::ios::binary) << r.output;
  return r.exit_code;
}

class TraceEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("trace-e2e-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Program() { return std::string(E2E_BIN_DIR) + "/e2e_launch_bound"; }

  // `brrr report FILE --chrome-trace OUT`, then the parsed document.
  nlohmann::json Export(const std::string& file) {
    const std::string json = Path("trace.json");
    const int rc =
        Spawn({BRRR_BIN, "report", file, "--chrome-trace", json}, {}, Path("export.log"));
    EXPECT_EQ(rc, 0) << ReadFile(Path("export.log"));
    absl::StatusOr<nlohmann::json> doc = ParseStrictJson(ReadFile(json));
    EXPECT_TRUE(doc.ok()) << doc.status();
    return doc.ok() ? *doc : nlohmann::json();
  }

  std::filesystem::path dir_;
};

struct Counts {
  int complete = 0;    // "X" events
  int kernels = 0;     // "X" events of category "kernel" on GPU 0
  int host_calls = 0;  // "X" events of category "host" on the app's pid
  int host_launches = 0;
  int flows = 0;  // "s" events
  int runtime_launch_records = 0;  // CUPTI RUNTIME records of launches ("cuda_runtime")
};

// A member as written: a string's text, a number's digits; "<absent>" when there is none.
std::string Text(const nlohmann::json& obj, const std::string& key) {
  if (!obj.is_object() || !obj.contains(key)) return "<absent>";
  const nlohmann::json& v = obj.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

Counts Count(const nlohmann::json& doc) {
  Counts c;
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc.contains("otherData") ||
      !doc.at("otherData").contains("app_pid")) {
    ADD_FAILURE() << "no traceEvents / otherData.app_pid";
    return c;
  }
  const std::string app_pid = Text(doc.at("otherData"), "app_pid");
  for (const nlohmann::json& e : doc.at("traceEvents")) {
    const std::string ph = Text(e, "ph");
    if (ph == "s") ++c.flows;
    if (ph != "X") continue;
    ++c.complete;
    const std::string cat = Text(e, "cat"), pid = Text(e, "pid");
    const std::string name = Text(e, "name");
    if (cat == "cuda_runtime" && name.find("aunchKernel") != std::string::npos) {
      ++c.runtime_launch_records;
    }
    if (cat == "kernel" && pid == std::to_string(kGpuPidBase)) {
      ++c.kernels;
      EXPECT_THAT(name, ::testing::HasSubstr("tiny"));
    }
    if (cat == "host" && pid == app_pid) {
      ++c.host_calls;
      if (name.find("aunch") != std::string::npos) ++c.host_launches;
    }
  }
  return c;
}

std::string Other(const nlohmann::json& doc, const std::string& key) {
  return doc.is_object() && doc.contains("otherData") ? Text(doc.at("otherData"), key)
                                                      : "<absent>";
}

TEST_F(TraceEndToEnd, EveryLaunchHasOneKernelEventBelowTheCap) {
  const std::string file = Path("run.brrr");
  const int rc = Spawn({BRRR_BIN, "run", "--quiet", "--trace=1000", "--output", file, "--",
                        Program(), std::to_string(kLaunches)},
                       {}, Path("run.log"));
  ASSERT_EQ(rc, 0) << ReadFile(Path("run.log"));
  const nlohmann::json doc = Export(file);
  const Counts c = Count(doc);
  EXPECT_EQ(c.kernels, kLaunches);
  EXPECT_EQ(c.host_launches, kLaunches);
  // Each launch's CUPTI record is the hooked call seen twice: folded into it, no slot of its
  // own; the call itself points at its kernel.
  EXPECT_EQ(c.runtime_launch_records, 0);
  EXPECT_EQ(c.flows, kLaunches);
  EXPECT_EQ(Other(doc, "events_omitted"), "0");
  EXPECT_EQ(Other(doc, "trace_cap"), "1000");
  EXPECT_EQ(Other(doc, "events_kept"), std::to_string(c.complete));
  // The trace agrees with the report in the same file.
  auto contents = ReadBrrrContents(file);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->report.kernels.launches, static_cast<uint64_t>(kLaunches));
  ASSERT_TRUE(contents->trace.has_value());
  EXPECT_EQ(contents->trace->device_ops.size(), static_cast<size_t>(kLaunches));
}

// A library's launches through the driver API pass no hook: the shim sees them through CUPTI
// callbacks, and the trace names them as CUPTI does (cuLaunchKernel), not "unknown".
TEST_F(TraceEndToEnd, CallsSeenThroughCuptiCallbacksAreNamedByTheirFunction) {
  constexpr int kDriverLaunches = 30, kRuntimeLaunches = 20;
  const std::string file = Path("run.brrr");
  const int rc = Spawn({BRRR_BIN, "run", "--quiet", "--trace", "--output", file, "--",
                        std::string(E2E_BIN_DIR) + "/e2e_coverage_driver_launch",
                        std::to_string(kDriverLaunches), std::to_string(kRuntimeLaunches)},
                       {}, Path("run.log"));
  ASSERT_EQ(rc, 0) << ReadFile(Path("run.log"));
  const nlohmann::json doc = Export(file);
  const std::string app_pid = Other(doc, "app_pid");
  int driver_launches = 0, unknown = 0;
  for (const nlohmann::json& e : doc.at("traceEvents")) {
    if (Text(e, "ph") != "X" || Text(e, "cat") != "host" || Text(e, "pid") != app_pid) continue;
    const std::string name = Text(e, "name");
    if (name == "cuLaunchKernel") {
      ++driver_launches;
      EXPECT_EQ(Text(e.at("args"), "cbid"), "307");  // CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel
    }
    if (name == "unknown") ++unknown;
  }
  EXPECT_EQ(driver_launches, kDriverLaunches);
  EXPECT_EQ(unknown, 0);
}

TEST_F(TraceEndToEnd, ACapBelowTheEventCountKeepsExactlyTheCap) {
  constexpr int kCap = 10;
  const std::string file = Path("capped.brrr");
  const int rc = Spawn({BRRR_BIN, "run", "--quiet", "--trace=" + std::to_string(kCap), "--output",
                        file, "--", Program(), std::to_string(kLaunches)},
                       {}, Path("run.log"));
  ASSERT_EQ(rc, 0) << ReadFile(Path("run.log"));
  const nlohmann::json doc = Export(file);
  EXPECT_EQ(Count(doc).complete, kCap);
  EXPECT_EQ(Other(doc, "events_kept"), std::to_string(kCap));
  // At least the launches' kernels and host calls were left out.
  EXPECT_GE(std::stoll(Other(doc, "events_omitted")), 2 * kLaunches - kCap);
  // The report itself is complete whatever the cap, and says the trace was cut.
  auto report = ReadBrrrFile(file);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->kernels.launches, static_cast<uint64_t>(kLaunches));
  ASSERT_TRUE(report->trace.has_value());
  EXPECT_EQ(report->trace->cap, static_cast<uint64_t>(kCap));
  EXPECT_EQ(report->trace->kept, static_cast<uint64_t>(kCap));
  EXPECT_EQ(std::to_string(report->trace->left_out), Other(doc, "events_omitted"));
  EXPECT_GT(report->trace->span_ns, 0);
  EXPECT_LT(report->trace->span_ns, report->wall_ns);
  ASSERT_EQ(Spawn({BRRR_BIN, "report", file}, {}, Path("report.txt")), 0);
  const std::string text = ReadFile(Path("report.txt"));
  EXPECT_THAT(text, ::testing::HasSubstr("TRACE  10 events kept (the cap, 10), "));
  EXPECT_THAT(text, ::testing::HasSubstr("the trace is cut"));
}

TEST_F(TraceEndToEnd, PlainPreloadTakesTheCapFromBrrrTrace) {
  const std::string file = Path("preload.brrr");
  const std::string shim = std::filesystem::path(BRRR_BIN).parent_path() / "libbrrr.so";
  const int rc =
      Spawn({Program(), std::to_string(kLaunches)},
            {std::string("LD_PRELOAD=") + BRRR_PRELOAD_PREFIX + shim, "BRRR_OUTPUT=" + file,
             "BRRR_QUIET=1", "BRRR_TRACE=1000", "BRRR_REPORT_WAIT_MS=20000"},
            Path("run.log"));
  ASSERT_EQ(rc, 0) << ReadFile(Path("run.log"));
  ASSERT_TRUE(std::filesystem::exists(file)) << ReadFile(Path("run.log"));
  const nlohmann::json doc = Export(file);
  EXPECT_EQ(Count(doc).kernels, kLaunches);
  EXPECT_EQ(Other(doc, "trace_cap"), "1000");
  EXPECT_EQ(Other(doc, "events_omitted"), "0");
}

}  // namespace
}  // namespace brrr
