// Environment parsing for the shim (see shim_config.h), by the settings table's rules.
//
// Must never: allocate (strtoull only), or reject the run: bad values fall back to defaults.
#include "shim/shim_config.h"

#include <string.h>

#include "shim/log.h"
#include "shim/settings.h"

namespace brrr::shim {
namespace {

using settings::ParseError;
using settings::Setting;
using settings::SpecOf;

// Under `brrr run` (BRRR_SHM or BRRR_JOB_DIR set) brrr run has said each refused value once for the
// whole tree: the processes' shims stay silent about them (ReadShimConfig sets this first).
bool g_settings_said_by_brrr_run = false;

// One line: "brrr: BRRR_X=VALUE: <why>; using the default (D)".
void WarnRefused(Setting s, const char* value, ParseError error) {
  if (g_settings_said_by_brrr_run) return;
  char why[192];
  settings::DescribeError(SpecOf(s), error, why, sizeof(why));
  char shown[64];
  settings::DescribeDefault(SpecOf(s), shown, sizeof(shown));
  for (const char* part : {"; using the default (", static_cast<const char*>(shown), ")"}) {
    strncat(why, part, sizeof(why) - strlen(why) - 1);
  }
  Warn(SpecOf(s).name, "=", value, ": ", why);
}

// The variable's value; null when unset or empty.
const char* Value(GetEnvFn get_env, Setting s) {
  const char* v = get_env(SpecOf(s).name);
  return v != nullptr && v[0] != '\0' ? v : nullptr;
}

// The setting's number (kNumber, kPowerOfTwo; kPercent in permille): its default when unset or
// refused (with a warning).
uint64_t Number(GetEnvFn get_env, Setting s) {
  uint64_t v = SpecOf(s).default_number;
  if (const char* text = Value(get_env, s); text != nullptr) {
    const ParseError e = SpecOf(s).kind == settings::Kind::kPercent
                             ? settings::ParsePercent(SpecOf(s), text, &v)
                             : settings::ParseNumber(SpecOf(s), text, &v);
    if (e != ParseError::kOk) {
      WarnRefused(s, text, e);
      v = SpecOf(s).default_number;
    }
  }
  return v;
}

bool Bool(GetEnvFn get_env, Setting s) {
  bool v = SpecOf(s).default_number != 0;
  if (const char* text = Value(get_env, s); text != nullptr) {
    if (const ParseError e = settings::ParseBool(text, &v); e != ParseError::kOk) {
      WarnRefused(s, text, e);
      v = SpecOf(s).default_number != 0;
    }
  }
  return v;
}

// The index of the setting's value among its choices; `fallback` when unset or refused.
uint32_t Choice(GetEnvFn get_env, Setting s, uint32_t fallback) {
  uint32_t index = fallback;
  if (const char* text = Value(get_env, s); text != nullptr) {
    if (const ParseError e = settings::ParseChoice(SpecOf(s), text, &index); e != ParseError::kOk) {
      WarnRefused(s, text, e);
      index = fallback;
    }
  }
  return index;
}

}  // namespace

ShimConfig ReadShimConfig(GetEnvFn get_env) {
  ShimConfig c;
  g_settings_said_by_brrr_run =
      Value(get_env, Setting::kShm) != nullptr || Value(get_env, Setting::kJobDir) != nullptr;
  c.geometry.ring_capacity = static_cast<uint32_t>(Number(get_env, Setting::kRingRecords));
  c.geometry.max_threads = static_cast<uint32_t>(Number(get_env, Setting::kMaxThreads));
  c.geometry.device_capacity = static_cast<uint32_t>(Number(get_env, Setting::kDeviceRecords));
  if (!ring::IsValidGeometry(c.geometry)) {
    Warn("BRRR_RING_RECORDS x BRRR_MAX_THREADS: segment would exceed the size limit; using "
         "defaults");
    c.geometry = ring::SegmentGeometry{};
  }
  c.stacks = Bool(get_env, Setting::kStacks);
  c.dwarf_stacks = Bool(get_env, Setting::kDwarfStacks);
  c.cupti = Bool(get_env, Setting::kCupti);
  c.callbacks = Bool(get_env, Setting::kCallbacks);
  c.counters = Bool(get_env, Setting::kCounters);
  c.allow_tsc = Choice(get_env, Setting::kClock, 0) == 0;  // tsc|monotonic
  c.report_wait_ms = static_cast<uint32_t>(Number(get_env, Setting::kReportWaitMs));
  c.python = Bool(get_env, Setting::kPython);
  c.launch_sample_period = static_cast<uint32_t>(Number(get_env, Setting::kLaunchSample));
  c.python_stall_us = static_cast<uint32_t>(Number(get_env, Setting::kPyStallUs));
  if (const char* range = Value(get_env, Setting::kCaptureRange); range != nullptr) {
    if (!ParseCaptureRange(range, &c.capture)) {
      Warn("BRRR_CAPTURE_RANGE=", range, ": not cudaProfilerApi or nvtx:NAME; recording everything");
    }
  }
  c.start_paused = Choice(get_env, Setting::kStart, 0) == 1;  // recording|paused
  c.flush_ms = static_cast<uint32_t>(Number(get_env, Setting::kFlushMs));
  c.sample_device_permille = static_cast<uint32_t>(Number(get_env, Setting::kSampleDevice));
  c.sample_window_ms = static_cast<uint32_t>(Number(get_env, Setting::kSampleWindowMs));
  const uint32_t detach = Choice(get_env, Setting::kCuptiDetach, 0);  // auto|1|0
  c.detach_wait_adaptive = Choice(get_env, Setting::kDetachWait, 0) == 0;  // adaptive|window
  c.launch_records = Bool(get_env, Setting::kLaunchRecords);
  c.driver_records = Bool(get_env, Setting::kDriverRecords);
  c.overhead_budget_permille = static_cast<uint32_t>(Number(get_env, Setting::kOverheadBudget));
  // A budget samples the device from the start: at the share asked, or 10% when none was.
  if (c.overhead_budget_permille > 0 && c.sample_device_permille >= 1000) {
    c.sample_device_permille = kBudgetStartPermille;
  }
  // auto: sampled tracing detaches CUPTI between windows. Left attached, it cost every launch
  // outside them (0.7 us on an H100; on the simulated launch loop 10 % sampling added 1.98 us a
  // launch attached, 0.86 us detached, full tracing 2.83 us), which no share or budget can steer.
  c.cupti_detach = detach == 1 || (detach == 0 && (c.overhead_budget_permille > 0 ||
                                                   c.sample_device_permille < 1000));
  if (const char* shm = Value(get_env, Setting::kShm); shm != nullptr) {
    if (shm[0] == '/' && strlen(shm) < 200 && strchr(shm + 1, '/') == nullptr) {
      c.shm_name = shm;
    } else {
      Warn("BRRR_SHM=", shm, ": not a shared-memory name (\"/name\"); creating a new segment");
    }
  }
  c.job_dir = Value(get_env, Setting::kJobDir);
#if defined(BRRR_TEST_SETTINGS)
  c.pm_sampling_library = Value(get_env, Setting::kPmSamplingLibrary);  // the test bed's only
#endif
  return c;
}

}  // namespace brrr::shim
