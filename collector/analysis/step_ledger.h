// Steps: a training loop measured step by step (report.h, StepsSummary). A step is a top-level
// occurrence of an NVTX range with the chosen name (a range of that name not inside another): by
// default `ProfilerStep#N` (any N: what torch.profiler's schedule emits), or NAME exactly (the
// range's message, or `domain:message`) with `--steps=nvtx:NAME` / BRRR_STEPS. Push/pop ranges
// nest per thread; start/end ranges are matched by id.
//
// Each step gets, by time (any thread's events fall in the step whose interval holds them):
// its launch calls, stalls (calls and time, and its longest stall), H2D/D2H bytes of its copies
// (by copy start), and its breakdown parts on the first device the breakdown reports (busy,
// launch-bound, sync-drain, host outside CUDA; start-up and teardown are not steps' time). A
// step is final once the breakdown has swept past its end (late device records included).
//
// Outliers: a step whose wall exceeds the median by more than kOutlierMads scaled MADs (1.4826 x
// the median absolute deviation) and is at least kOutlierRatio x the median. Its cause is the part
// that grew most against the median of that part over all kept steps.
//
// Bounded memory: the first max_kept steps are kept whole; after that only sums and a wall-time
// histogram (percentiles then estimated, and the report says so); the steps not yet final are
// bounded by the breakdown's lag (and max_live).
//
// Not thread-safe. Must never: attribute one event to two steps, or grow with the run's length.
#ifndef BRRR_COLLECTOR_ANALYSIS_STEP_LEDGER_H_
#define BRRR_COLLECTOR_ANALYSIS_STEP_LEDGER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/device_time_breakdown.h"
#include "collector/analysis/log_histogram.h"
#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

inline constexpr char kDefaultStepPrefix[] = "ProfilerStep#";

struct StepLedgerOptions {
  std::string range_name;  // "" = ranges named ProfilerStep#N
  size_t max_kept = 10'000;
  size_t max_live = 100'000;  // steps not yet final (past it the oldest is finalized early)
  size_t max_depth = 64;      // push/pop nesting per thread
  size_t max_outliers = 50;   // listed (all are counted)
};

class StepLedger : public DeviceTimeBreakdown::PartListener {
 public:
  using Options = StepLedgerOptions;
  static constexpr double kOutlierMads = 5;
  static constexpr double kOutlierRatio = 1.2;

  explicit StepLedger(Options options = {});

  void OnNvtx(const NvtxEvent& event);
  // Whether any step began: before that, nothing else needs calling.
  bool active() const { return started_ > 0; }

  void AddLaunch(int64_t t_ns);
  // A stall of `ns` that began at `t_ns`; `what` names it in an outlier ("cudaMemcpy d2h_copy").
  void AddStall(int64_t t_ns, int64_t ns, const std::function<std::string()>& what);
  void AddCopy(int64_t t_ns, uint8_t copy_kind, uint64_t bytes);
  // A syncing call (report.h, SyncCalls) that began at `t_ns`, stalled or not.
  void AddSyncingCall(int64_t t_ns);

  void OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) override;
  void OnEmptyDevicePart(Part, int64_t, int64_t) override {}
  void OnSwept(int64_t watermark) override;

  // Finalizes every closed step (a step still open is counted as unfinished) and summarizes;
  // absent when no step began.
  std::optional<StepsSummary> Finish();

 private:
  struct Step {
    uint64_t index = 0;
    std::string name;
    int64_t start = 0;
    int64_t end = -1;  // -1: open
    uint64_t launches = 0;
    uint64_t stall_calls = 0;
    int64_t stall_ns = 0;
    uint64_t h2d_bytes = 0;
    uint64_t d2h_bytes = 0;
    uint64_t sync_calls = 0;
    int64_t parts[4] = {0, 0, 0, 0};  // busy, launch-bound, sync-drain, host outside CUDA
    int64_t top_stall_ns = 0;
    std::string top_stall;
  };
  static constexpr int kSums = 10;
  struct Frame {
    bool step;  // this push opened the current step
  };

  bool Matches(const NvtxEvent& event) const;
  void Begin(const NvtxEvent& event);
  void End(int64_t t_ns);
  // The live step whose interval holds t, or nullptr.
  Step* StepAt(int64_t t_ns);
  void Finalize(Step& step);

  Options options_;
  uint64_t started_ = 0;     // steps begun
  bool in_step_ = false;     // a step is open
  uint32_t step_tid_ = 0;    // its thread (push/pop) ...
  uint64_t step_range_ = 0;  // ... or its start/end range id (0: push/pop)
  absl::flat_hash_map<uint32_t, std::vector<Frame>> stacks_;  // per thread
  std::deque<Step> live_;                                     // by start; the last may be open
  bool have_device_ = false;
  uint32_t device_ = 0;  // the device whose parts count

  // Final steps.
  uint64_t count_ = 0;
  uint64_t unfinished_ = 0;
  std::vector<Step> kept_;
  LogHistogram walls_;
  int64_t wall_sum_ = 0;
  double sums_[kSums] = {};  // the per-step means' numerators, in StepsSummary::PerStep's order
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_STEP_LEDGER_H_
