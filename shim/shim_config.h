// The shim's settings, read from the environment once at start-up by the rules of the settings
// table (settings.def, settings.h). Every bad value gets one warning ("brrr: BRRR_X=...: <why>;
// using default (D)") and the default: brrr being loaded never changes what the app does.
//
// Must never: be read on the hot path (getenv walks the environment), or fail.
#ifndef BRRR_SHIM_SHIM_CONFIG_H_
#define BRRR_SHIM_SHIM_CONFIG_H_

#include <cstdint>

#include "shim/capture_range.h"
#include "shim/segment_layout.h"

namespace brrr::shim {

// 1 in 64 launches: a sampled launch costs about one Python stack capture (under 1 us), so the
// average added per launch stays a few ns (tools/bench/python_stack_bench.sh).
inline constexpr uint32_t kDefaultLaunchSamplePeriod = 64;

// A fifth of a second: device records reach the collector within about a quarter second of the
// work finishing (a killed app loses about that much); an idle flush costs a few microseconds.
inline constexpr uint32_t kDefaultFlushMs = 200;

// Under BRRR_OVERHEAD_BUDGET without BRRR_SAMPLE_DEVICE, the share device tracing starts at.
// Low, so that a budget is not overspent before the collector has measured anything: it grows
// from there (collector/analysis/overhead_budget.h).
inline constexpr uint32_t kBudgetStartPermille = 20;

struct ShimConfig {
  ring::SegmentGeometry geometry;  // BRRR_RING_RECORDS, BRRR_MAX_THREADS, BRRR_DEVICE_RECORDS
  bool stacks = true;              // BRRR_STACKS
  bool dwarf_stacks = true;        // BRRR_DWARF_STACKS
  bool cupti = true;               // BRRR_CUPTI
  bool callbacks = true;           // BRRR_CALLBACKS: CUPTI-callback host records
  bool counters = false;           // BRRR_COUNTERS: the PM sampler runs
  bool allow_tsc = true;           // BRRR_CLOCK=monotonic forces CLOCK_MONOTONIC
  uint32_t report_wait_ms = 5000;  // BRRR_REPORT_WAIT_MS: bounded wait for the collector at exit
  const char* shm_name = nullptr;  // BRRR_SHM: segment created by `brrr run`; null = create one
  const char* job_dir = nullptr;   // BRRR_JOB_DIR: `brrr run`'s job directory; null = no job
  // BRRR_PM_SAMPLING_LIBRARY (test builds only): the library the PM sampler loads; null = CUPTI.
  const char* pm_sampling_library = nullptr;
  bool python = true;  // BRRR_PYTHON=0: no Python frames (stacks off also means none)
  // BRRR_LAUNCH_SAMPLE=N: 1 in N launches per thread carries its (Python) stack; 0 = off.
  uint32_t launch_sample_period = kDefaultLaunchSamplePeriod;
  // BRRR_PY_STALL_US: copies, memsets, frees and syncs at least this long carry Python frames.
  uint32_t python_stall_us = 5;
  // BRRR_CAPTURE_RANGE=cudaProfilerApi|nvtx:NAME: record only inside those ranges.
  CaptureRange capture;
  // BRRR_START=paused: the hooks only forward and CUPTI activity is off until
  // `brrr ctl PID resume`; BRRR_START=recording (the default) records from the start.
  bool start_paused = false;
  // BRRR_FLUSH_MS: the control thread flushes CUPTI's buffers this often, so a killed app loses
  // at most about this much of its device records; 0 = no periodic flush (only at exit).
  uint32_t flush_ms = kDefaultFlushMs;
  // BRRR_SAMPLE_DEVICE=PCT: CUPTI activity only in windows covering this share of the run's time
  // (permille; 1000 = always on); BRRR_SAMPLE_WINDOW_MS: one window's length.
  uint32_t sample_device_permille = 1000;
  uint32_t sample_window_ms = 50;
  // BRRR_CUPTI_DETACH: while device tracing is off, detach CUPTI (cupti_session.h); `auto`
  // (the default) does under an overhead budget.
  bool cupti_detach = false;
  // BRRR_DETACH_WAIT: the wait before a detach adapts (detach_grace.h); false = one window length.
  bool detach_wait_adaptive = true;
  // BRRR_LAUNCH_RECORDS: CUPTI writes RUNTIME records for hooked kernel launches (cupti_session.h).
  bool launch_records = true;
  // BRRR_DRIVER_RECORDS: CUPTI's DRIVER activity kind is enabled (cupti_session.h).
  bool driver_records = true;
  // BRRR_OVERHEAD_BUDGET=PCT in permille (0 = none): device tracing starts sampled and the
  // collector steers the share (SegmentHeader.device_sample_wanted_permille).
  uint32_t overhead_budget_permille = 0;
};

using GetEnvFn = const char* (*)(const char* name);

// Reads and validates every setting through `get_env` (getenv in production; a table in tests).
ShimConfig ReadShimConfig(GetEnvFn get_env);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_SHIM_CONFIG_H_
