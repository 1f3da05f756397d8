// Geometry and environment for `brrr run`. See run_setup.h.
//
// Must never: accept an environment value outside the layout's limits.
#include "collector/cli/run_setup.h"

#include <unistd.h>

#include <climits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "collector/cli/env_settings.h"

namespace brrr::cli {

ring::SegmentGeometry RunGeometry(const RunOptions& options, const GetEnv& getenv_fn,
                                  const std::function<void(const std::string&)>& warn) {
  const EnvSettings env(getenv_fn, warn);
  ring::SegmentGeometry g;
  if (options.ring_records.has_value()) {
    g.ring_capacity = *options.ring_records;
  } else if (auto v = env.Number(Setting::kRingRecords); v.has_value()) {
    g.ring_capacity = static_cast<uint32_t>(*v);
  }
  if (auto v = env.Number(Setting::kMaxThreads); v.has_value()) {
    g.max_threads = static_cast<uint32_t>(*v);
  }
  if (auto v = env.Number(Setting::kDeviceRecords); v.has_value()) {
    g.device_capacity = static_cast<uint32_t>(*v);
  }
  if (!ring::IsValidGeometry(g)) {  // too big together: keep the threads, shrink to defaults
    warn("the requested rings do not fit in one segment; using default sizes");
    g = ring::SegmentGeometry{};
  }
  return g;
}

std::vector<std::string> ChildEnvironment(const std::vector<std::string>& base,
                                          const std::string& shm_name, const std::string& shim_path,
                                          const RunOptions& options) {
  std::vector<std::string> env;
  // A sanitizer runtime must stay first in the process (ASan checks its link order); everything
  // else the user preloads comes after the shim.
  std::vector<std::string> first, rest;
  bool user_nvtx_injection = false;
  for (const std::string& entry : base) {
    // The user's own NVTX tool (e.g. another profiler) is kept: NVTX loads one injection only.
    user_nvtx_injection |= absl::StartsWith(entry, "NVTX_INJECTION64_PATH=");
    if (absl::StartsWith(entry, "LD_PRELOAD=")) {
      for (absl::string_view lib : absl::StrSplit(entry.substr(sizeof("LD_PRELOAD=") - 1),
                                                  absl::ByAnyChar(": "), absl::SkipEmpty())) {
        const size_t slash = lib.rfind('/');
        const absl::string_view base_name =
            slash == absl::string_view::npos ? lib : lib.substr(slash + 1);
        const bool sanitizer = absl::StartsWith(base_name, "libasan") ||
                               absl::StartsWith(base_name, "libclang_rt.asan") ||
                               absl::StartsWith(base_name, "libtsan") ||
                               absl::StartsWith(base_name, "libubsan");
        (sanitizer ? first : rest).emplace_back(lib);
      }
      continue;
    }
    if (absl::StartsWith(entry, "BRRR_SHM=")) continue;
    if (options.no_stacks && absl::StartsWith(entry, "BRRR_STACKS=")) continue;
    if (options.no_cupti && absl::StartsWith(entry, "BRRR_CUPTI=")) continue;
    if (options.counters && absl::StartsWith(entry, "BRRR_COUNTERS=")) continue;
    if (!options.capture_range.empty() && absl::StartsWith(entry, "BRRR_CAPTURE_RANGE=")) continue;
    if (!options.sample_device.empty() && absl::StartsWith(entry, "BRRR_SAMPLE_DEVICE=")) continue;
    if (!options.steps.empty() && absl::StartsWith(entry, "BRRR_STEPS=")) continue;
    if (!options.overhead_budget.empty() && absl::StartsWith(entry, "BRRR_OVERHEAD_BUDGET=")) {
      continue;
    }
    env.push_back(entry);
  }
  first.push_back(shim_path);
  first.insert(first.end(), rest.begin(), rest.end());
  env.push_back(absl::StrCat("LD_PRELOAD=", absl::StrJoin(first, ":")));
  env.push_back(absl::StrCat("BRRR_SHM=", shm_name));
  // NVTX ranges reach the shim: NVTX loads the library this names on the app's first NVTX call.
  if (!user_nvtx_injection) env.push_back(absl::StrCat("NVTX_INJECTION64_PATH=", shim_path));
  if (options.no_stacks) env.push_back("BRRR_STACKS=0");
  if (options.no_cupti) env.push_back("BRRR_CUPTI=0");
  if (options.counters) env.push_back("BRRR_COUNTERS=1");
  if (!options.capture_range.empty()) {
    env.push_back(absl::StrCat("BRRR_CAPTURE_RANGE=", options.capture_range));
  }
  if (!options.sample_device.empty()) {
    env.push_back(absl::StrCat("BRRR_SAMPLE_DEVICE=", options.sample_device));
  }
  if (!options.overhead_budget.empty()) {
    env.push_back(absl::StrCat("BRRR_OVERHEAD_BUDGET=", options.overhead_budget));
  }
  if (!options.steps.empty()) env.push_back(absl::StrCat("BRRR_STEPS=", options.steps));
  return env;
}

std::vector<std::string> WithPythonDirectory(std::vector<std::string> env, const std::string& dir) {
  constexpr absl::string_view kKey = "PYTHONPATH=";
  for (std::string& entry : env) {
    if (!absl::StartsWith(entry, kKey)) continue;
    const std::string value = entry.substr(kKey.size());
    // An empty PYTHONPATH adds nothing; "DIR:" would add the working directory.
    entry = absl::StrCat(kKey, dir, value.empty() ? "" : ":", value);
    return env;
  }
  env.push_back(absl::StrCat(kKey, dir));
  return env;
}

std::string SelfDirectory() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace brrr::cli
