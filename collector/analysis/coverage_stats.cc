// CoverageStats: the coverage summary and its gap sentences (see coverage_stats.h).
//
// Must never: report `complete` with a non-empty gap list or the reverse.
#include "collector/analysis/coverage_stats.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace brrr {

std::vector<std::string> CoverageGaps(const CoverageFacts& facts, uint64_t calls_seen_by_shim,
                                      uint64_t calls_seen) {
  std::vector<std::string> gaps;
  if (facts.host_only) {
    const std::string why =
        facts.host_only_reason.empty() ? std::string("CUPTI unavailable") : facts.host_only_reason;
    gaps.push_back(absl::StrCat(
        "host-only run (", why,
        "): only calls through a dynamically linked libcudart were seen; calls through a static "
        "cudart, the driver API or libraries with their own runtime (cuBLAS, cuDNN, NCCL, "
        "Triton) were not, and device times are missing"));
  } else if (calls_seen == 0 && facts.device_ops == 0) {
    // Nothing at all: either the program used no CUDA, or it used it where brrr never started
    // (no call reached the hooks, so CUPTI was never set up). brrr cannot tell which.
    gaps.push_back(
        "no CUDA call or device work was recorded: if the program used CUDA, it did so out of "
        "brrr's sight (e.g. a static cudart or the driver API while CUPTI was not started)");
  } else if (facts.no_window && facts.api_records == 0) {
    gaps.push_back(
        "device tracing was sampled and the run ended before its first window: CUPTI recorded "
        "nothing, so calls that bypass the runtime hooks (static cudart, driver API) may be "
        "missing, and no device work was seen");
  } else if (facts.api_records == 0 && calls_seen_by_shim > 0) {
    gaps.push_back(
        "CUPTI was on but delivered no API records: calls that bypass the runtime hooks (static "
        "cudart, driver API) may be missing");
  }
  if (facts.cupti_detaches > 0 && !facts.host_only) {
    gaps.push_back(absl::StrCat(
        "CUPTI was detached between device-tracing windows (", facts.cupti_detaches,
        facts.cupti_detaches == 1 ? " time" : " times",
        "), so that it cost nothing there: driver-API calls made outside the windows "
        "(library launches: cuBLAS, Triton, NCCL) were not recorded, nor device work still queued "
        "when it was; calls through the runtime were (BRRR_CUPTI_DETACH=1, or an overhead budget, "
        "asked for this; with BRRR_CUPTI_DETACH=0 they are kept, at CUPTI's cost per call)"));
  }
  // The two causes apart: a full ring (a collector that fell behind, or --ring-records too small
  // for a burst) and threads past BRRR_MAX_THREADS (no ring at all).
  const uint64_t no_ring = std::min(facts.host_dropped_no_ring, facts.host_dropped);
  if (facts.host_dropped > no_ring) {
    gaps.push_back(absl::StrCat(facts.host_dropped - no_ring,
                                " host calls dropped (their thread's ring was full): they are "
                                "missing from every figure"));
  }
  if (facts.execs > 0) {
    gaps.push_back(absl::StrCat(
        "the process exec'd another program ", facts.execs, facts.execs == 1 ? " time" : " times",
        " and went on recording (one report for both): device records still buffered in CUPTI at "
        "the exec were lost with the old program, so some of its last launches have no kernel "
        "time"));
  }
  if (no_ring > 0) {
    gaps.push_back(absl::StrCat(
        no_ring, " host calls dropped from threads past BRRR_MAX_THREADS (",
        facts.max_threads, " threads had rings): they are missing from every figure; set "
        "BRRR_MAX_THREADS higher"));
  }
  if (facts.device_dropped > 0) {
    gaps.push_back(absl::StrCat(facts.device_dropped,
                                " device records dropped (device ring or CUPTI buffers full): "
                                "kernels, copies or calls seen only by CUPTI may be missing"));
  }
  if (facts.join_dropped > 0) {
    gaps.push_back(absl::StrCat(facts.join_dropped,
                                " pending records dropped at the analysis's memory cap: calls "
                                "seen only by CUPTI or launch latencies may be missing"));
  }
  if (facts.join_late > 0) {
    gaps.push_back(absl::StrCat(
        facts.join_late,
        " CUPTI API records came after brrr had stopped waiting for the host calls they belong to "
        "(a CUPTI buffer delivered very late): those calls may be counted twice"));
  }
  if (facts.invalid_times > 0) {
    gaps.push_back(
        absl::StrCat(facts.invalid_times, " events with impossible timestamps were ignored"));
  }
  if (facts.untimed_device_ops > 0) {
    gaps.push_back(absl::StrCat(
        facts.untimed_device_ops,
        " kernels, copies or memsets came from CUPTI without timestamps (work still queued or "
        "running when brrr flushed CUPTI's buffers, before detaching it or at exit): they ran, but "
        "their device time is unknown and in no figure"));
  }
  if (facts.execed) {
    gaps.push_back(
        "the process replaced its program (exec) before exiting: this report ends at the exec "
        "(device records of its last moments, since the last periodic flush, may be missing); "
        "the new program's report is a file of its own");
  } else if (facts.vanished && facts.term_signal == 0) {
    gaps.push_back(
        "the app ended without exiting (killed or crashed; its exit status is unknown): device "
        "records of its last moments (since the last periodic flush) are missing");
  }
  if (facts.term_signal != 0) {
    gaps.push_back(absl::StrCat("the app was killed by signal ", facts.term_signal,
                                ": records not yet flushed when it died (CUPTI's last buffers) "
                                "are missing"));
  }
  return gaps;
}

Coverage CoverageStats::Finish(const ApiStats& names, const CoverageFacts& facts,
                               size_t top) const {
  Coverage c;
  c.hooked_calls = hooked_calls_;
  c.callback_calls = callback_calls_;
  c.cupti_only_calls = cupti_only_calls_;
  for (size_t key = 0; key < without_stack_.size(); ++key) {
    const uint64_t calls = without_stack_[key];
    if (calls == 0) continue;
    c.calls_without_stack += calls;
    c.without_stack.push_back({names.Name(static_cast<CallKey>(key)), calls});
  }
  // Two keys can share a name (e.g. a placeholder for garbage ids): merge them into one row.
  std::sort(c.without_stack.begin(), c.without_stack.end(),
            [](const CallsWithoutStack& a, const CallsWithoutStack& b) { return a.api < b.api; });
  std::vector<CallsWithoutStack> merged;
  for (CallsWithoutStack& row : c.without_stack) {
    if (!merged.empty() && merged.back().api == row.api) {
      merged.back().calls += row.calls;
    } else {
      merged.push_back(std::move(row));
    }
  }
  std::stable_sort(
      merged.begin(), merged.end(),
      [](const CallsWithoutStack& a, const CallsWithoutStack& b) { return a.calls > b.calls; });
  if (merged.size() > top) merged.resize(top);
  c.without_stack = std::move(merged);
  c.untimed_device_ops = facts.untimed_device_ops;
  c.gaps = CoverageGaps(facts, hooked_calls_ + callback_calls_,
                        hooked_calls_ + callback_calls_ + cupti_only_calls_);
  c.complete = c.gaps.empty();
  return c;
}

}  // namespace brrr
