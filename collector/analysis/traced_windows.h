// The device figures of a run whose device was traced in windows (sampled device tracing,
// BRRR_SAMPLE_DEVICE; shim/tracing_windows.h). CUPTI records a kernel when its launch call ran
// inside a window, whenever the kernel itself runs (a device far behind its host runs a window's
// kernels long after it closed). So the windows sample launch calls, not device time: the
// estimate scales what was recorded by the share of launch calls traced,
//   scale = launch calls the host made / launch calls with a kernel record,
// applied to each device's busy time (the union of recorded work, capped at its steady state;
// the idle parts shrink in proportion to fill the rest, so each device still sums to its wall
// time) and to the kernel table.
//
// The error bound treats each window as one cluster of the sample: window i traced n_i launch
// calls whose kernels ran K_i ns; the ratio estimate r = sum K / sum n has the standard error
// sqrt(sum (K_i - r n_i)^2 / (m (m - 1))) / mean(n) over m windows (the ratio estimator of
// cluster sampling). Two of them, times the run's launch calls, as a share of the steady state,
// is the bound on the busy share in percentage points.
//
// Launch calls not seen outside the windows: CUPTI-only calls (its API records are off there too)
// and, when CUPTI was detached between windows (BRRR_CUPTI_DETACH), calls from its callbacks. Then
// the run's launch calls are estimated as those inside the windows times the share of the calls
// seen everywhere (the hooks', and the callbacks' unless detached) that fell inside:
//   launch calls = inside x (seen everywhere / seen everywhere inside),
// never fewer than were recorded. With every launch seen everywhere this is the recorded count.
//
// A launch call is inside or outside by the windows known when it is classified, and the
// collector drains the app's rings before the device ring that carries the window records (and
// the shim's control thread stamps a window's edge before it writes its record): a call drained
// with no record of the edge before it yet would count on the wrong side. Where CUPTI is detached
// after a close, the calls after it that count as inside are the hooks' only, which made the
// estimate of launch calls run low (0.87-0.96 of the truth). So a call waits until a window record
// stamped after it came (the shim writes them in time order: every edge before it is known then),
// or Finish; at most max_held_calls wait (then the oldest is classified by what is known, which is
// settled once it is a second behind the newest: a window's record comes within a drain).
//
// What tracing costs, measured in the run (an A/B in the job itself): the host launch calls made
// inside windows against those made outside, median durations; the difference times the calls
// inside is the device tracing's cost to the app. It sees what tracing adds in a window, not what
// CUPTI costs while subscribed with every kind off (DESIGN.md fact 18). Where CUPTI is detached
// between windows, it stays subscribed with every kind off after each window until the detach
// (which waits for the window's queued work: as long as the shim found needed, at most a window
// length, shim/detach_grace.h; the close record says when): on an H100 that span cost a launch
// about 0.9 us, as much as the window's own tracing did. So the calls in that span after each
// window (until its detach; SetAfterWindowNs for a shim that does not say) are a third side,
// priced against the calls outside the same way; without a detach they are outside calls like any
// other.
//
// Each window's first launch call pays what turning kernel records on costs (5.6-5.9 ms on an
// H200), which no median sees: it is priced apart, beyond the median inside. Such a stall costs
// the app nothing while the device still has earlier work queued for longer than it lasts (a
// device-bound loop's queue, whose launch calls wait for it anyway): the kernel that call launched
// then started after the call returned, by as much as the device was still busy. That much of the
// call's excess is hidden and not counted. Where CUPTI was attached again for the window (the
// window before it named a detach), the part of the call before the window's start is left out
// too: it can only be waiting for that attach (and its kinds), which the estimate counts in full
// from the shim's own timing.
//
// A detach or an attach waits for the device's queued work (DESIGN.md; tools/gpu/workloads/
// attach_probe.cu: 30 ms queued, a finalize took 29.7 ms), which keeps the device busy meanwhile.
// How far behind its host the device was is known at each window's end: its last launch's kernel
// started that long after the call. The least of that over the windows (at least kMinLagWindows of
// them) is what the run kept queued at any window's end; the estimate takes up to that much of
// each detach and attach as hidden (collector/analysis/analysis.cc, FinishOverhead). Where that
// least lag is kBackloggedLagNs or more, the host stayed ahead of its device through every window,
// tracing or not, and what tracing added to the launch calls inside cost the app nothing either
// (on a device-bound loop the A/B of their medians measures the device's queue, not CUPTI).
//
// Not thread-safe. Must never: change a device's total, keep more than max_windows windows
// (older ones are folded into running sums) or more than max_held_calls calls waiting.
#ifndef BRRR_COLLECTOR_ANALYSIS_TRACED_WINDOWS_H_
#define BRRR_COLLECTOR_ANALYSIS_TRACED_WINDOWS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "collector/analysis/fifo.h"
#include "collector/analysis/log_histogram.h"
#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

class TracedWindows {
 public:
  struct Options {
    size_t max_windows = 4096;
    // 16 bytes each: 4 MiB, the calls of a 0.5 s gap between windows at 500,000 launches/s.
    size_t max_held_calls = size_t{1} << 18;
  };
  TracedWindows() = default;
  explicit TracedWindows(Options options) : options_(options) {}
  struct Estimate {
    uint64_t windows = 0;   // closed windows
    int64_t traced_ns = 0;  // their total length
    uint64_t bad_windows = 0;  // overlapping or out of order: ignored
    uint64_t traced_launches = 0;       // launch calls with a kernel record
    uint64_t unattributed_launches = 0;  // of those, in no known window (counted in the scale)
    double scale = 1;  // launch calls / traced launches (1 when nothing was traced)
    uint64_t launch_calls = 0;  // recorded, or estimated where some were seen in windows only
    // Two standard errors of the busy share (percentage points) of the steady state; absent
    // under two windows or without launches.
    std::optional<double> busy_error_points;
    uint64_t error_windows = 0;
    // The A/B: host launch calls inside and outside windows, their median and mean durations (the
    // mean inside without the windows' first calls, priced apart below), and what tracing added
    // per call inside: the difference of the means, so that rare costly calls count (CUPTI handing
    // over a full activity buffer: on the simulated launch loop the mean inside was 14.0 us
    // against a median of 4.6 us, outside 6.0 against 2.8); absent under kMinAbCalls on either
    // side.
    uint64_t launch_calls_in = 0, launch_calls_out = 0;
    int64_t launch_p50_in_ns = 0, launch_p50_out_ns = 0;
    int64_t launch_mean_in_ns = 0, launch_mean_out_ns = 0;
    std::optional<int64_t> tracing_ns_per_launch;
    // The calls in the span after each window while CUPTI waited to detach, and what that span
    // added per call (absent under kMinAbCalls; all zero without a detach: they are outside then).
    uint64_t launch_calls_after = 0;
    int64_t launch_p50_after_ns = 0, launch_mean_after_ns = 0;
    // The mean length of that span over the windows whose close record said when the detach was
    // (the shim's wait adapts: shim/detach_grace.h); 0 = none said (then it is the window length).
    int64_t after_span_mean_ns = 0;
    // Closed windows after which CUPTI stayed attached although the shim was to detach it between
    // windows (their close records say so: the device ran behind its host, shim/detach_grace.h).
    uint64_t windows_kept_attached = 0;
    std::optional<int64_t> after_window_ns_per_launch;
    // The first launch call of each window, beyond the median inside, summed over the windows that
    // had one (`windows_with_first_call`): what turning kernel records on cost the app's next
    // launch (5.6-5.9 ms on an H200: tools/gpu/workloads/attach_probe.cu), which no median sees;
    // less what the device's queued work hid. Absent under kMinAbCalls inside.
    std::optional<int64_t> window_opening_ns;
    uint64_t windows_with_first_call = 0;
    // Of that excess, what the device's queued work hid (the first call's kernel started that long
    // after the call returned: the device had earlier work until then), not counted above; and in
    // how many windows.
    int64_t window_opening_hidden_ns = 0;
    uint64_t windows_opening_hidden = 0;
    // Of that excess, what fell before the start of windows CUPTI was attached again for: the
    // attach's, counted with the attaches (the shim times them), not above.
    int64_t window_opening_in_attach_ns = 0;
    // The least the device was behind its host at a window's end (its last launch call's kernel
    // started that long after the call entered), over `lag_windows` windows; absent under
    // kMinLagWindows of them. And the windows CUPTI was attached again for (the window before
    // named a detach): the attaches between windows.
    std::optional<int64_t> device_lag_min_ns;
    uint64_t lag_windows = 0;
    uint64_t windows_attached_before = 0;
    uint64_t detaches_named = 0;  // windows whose close record named a detach after them
    // Launch calls classified before a window record stamped after them came (over
    // max_held_calls) and less than a second behind the newest call: their side may be wrong.
    uint64_t calls_classified_early = 0;
  };
  static constexpr uint64_t kMinAbCalls = 100;
  static constexpr uint64_t kMinLagWindows = 3;
  // A least lag at the windows' ends from which the host counts as ahead of its device through
  // every window: far above a kernel's launch latency on an idle GPU (3.86 us on an H200).
  static constexpr int64_t kBackloggedLagNs = 1'000'000;

  // The run traces its device in windows (the first window says so too).
  void Enable() { enabled_ = true; }
  // How long CUPTI stays subscribed after a window where it detaches between them (the window's
  // length); 0: no such span is told apart.
  void SetAfterWindowNs(int64_t ns) { after_window_ns_ = std::max<int64_t>(ns, 0); }
  bool enabled() const { return enabled_; }

  void AddWindow(const TracingWindowEvent& window);
  // The run ended (or was killed) with a window open: it ends at end_ns.
  void CloseOpenWindow(int64_t end_ns);
  // A kernel joined to its launch call (entered at launch_enter_ns); `first` once per launch call,
  // with the start of the launch's first kernel (`start_ns`, 0: unknown). Inline: with no window
  // (full tracing) it is a count.
  void AddTracedKernel(int64_t launch_enter_ns, int64_t device_ns, bool first,
                       int64_t start_ns = 0) {
    if (first) ++traced_launches_;
    if (windows_.empty()) {  // full tracing (or no window yet): in no known window
      if (first) ++unattributed_;
      return;
    }
    AddKernelInWindows(launch_enter_ns, device_ns, first, start_ns);
    if (first && start_ns > 0) NoteFirstKernel(launch_enter_ns, start_ns);
  }
  // A launch call the host made (for the A/B and the count): inside a window or not, by its entry,
  // once the windows up to it are known. Inline: under full tracing every call is outside at once.
  enum class SeenBy : uint8_t { kHook, kCallback };
  void AddLaunchCall(int64_t enter_ns, int64_t duration_ns, SeenBy seen_by = SeenBy::kHook) {
    if (!enabled_ || enter_ns < known_until_) {
      Classify(enter_ns, duration_ns, seen_by);
    } else {
      Hold(enter_ns, duration_ns, seen_by);
    }
  }

  // The A/B so far: what tracing added to a launch call inside a window (mean inside, without the
  // windows' first calls, minus mean outside, at least 0); nullopt under kMinAbCalls on either
  // side. Also read during the run.
  std::optional<int64_t> TracingNsPerLaunch() const;
  // CUPTI's detaches between windows and the attaches after them, as the shim timed them
  // (SegmentHeader.cupti_detaches, cupti_detach_ns, cupti_attach_ns).
  struct Switches {
    uint64_t detaches = 0;
    uint64_t detach_ns = 0;
    uint64_t attach_ns = 0;
  };
  // What tracing costs the app for each launch call inside a window: inside's addition, plus
  // after's (the span after each window while CUPTI waits to detach, where it detaches) times the
  // calls after per call inside, plus the windows' first calls', plus the detaches and attaches
  // (less what the device's queue hid of them: SwitchCost) per call inside; each window brings its
  // own, so they scale with the share traced as the calls inside do. nullopt as
  // TracingNsPerLaunch. Steers a budget during the run. Where the device was kBackloggedLagNs or
  // more behind at every window's end so far, inside's addition is hidden, and so is after's where
  // the detaches took kBackloggedLagNs or more on average (what the final estimate leaves out).
  std::optional<double> CostPerTracedLaunchNs(const Switches& switches) const;
  // The least the device was behind its host at a closed window's end so far; nullopt under
  // kMinLagWindows such windows.
  std::optional<int64_t> LeastLagNs() const;
  // Which parts of the A/B the device's queue hid, where the host stayed ahead of its device
  // through every window (a least lag at the windows' ends of kBackloggedLagNs or more): what
  // tracing added to the launch calls inside, and to those after the windows where the detaches
  // that ended those spans took as long on average (`detach_mean_ns`). The estimate and a budget's
  // steering both leave them out.
  struct HiddenAb {
    bool inside = false;
    bool after = false;
  };
  static HiddenAb AbHiddenByQueue(std::optional<int64_t> least_lag_ns, int64_t detach_mean_ns) {
    const bool inside = least_lag_ns.value_or(0) >= kBackloggedLagNs;
    return {inside, inside && detach_mean_ns >= kBackloggedLagNs};
  }
  // The attaches between windows: one for each window CUPTI was attached again for (the window
  // before it named a detach), and one more where the run's detaches outnumber those the windows'
  // close records named and a window opened (the shim's detach before its first window).
  static uint64_t Attaches(uint64_t detaches, uint64_t windows_attached_before,
                           uint64_t detaches_named, uint64_t windows) {
    return windows_attached_before + (detaches > detaches_named && windows > 0 ? 1 : 0);
  }
  // What the detaches and `attaches` cost the app: each waits for the device's queued work, which
  // kept the device busy meanwhile, so up to the least lag at the windows' ends of each one is
  // hidden (none without a least lag); the rest is counted.
  struct SwitchCost {
    int64_t counted = 0;
    int64_t hidden = 0;
  };
  static SwitchCost CostOfSwitches(const Switches& switches, uint64_t attaches,
                                   std::optional<int64_t> least_lag_ns);
  // The windows CUPTI was attached again for so far (folded or not; the open one included).
  uint64_t WindowsAttachedBefore() const;
  // What a detach took on average (0 without one).
  static int64_t MeanDetachNs(uint64_t detaches, uint64_t detach_ns) {
    return detaches > 0 ? static_cast<int64_t>(detach_ns / detaches) : 0;
  }
  uint64_t launch_calls() const {
    return launch_in_.count() + launch_out_.count() + launch_after_.count() + held_.size();
  }
  // Launch calls waiting for the window records after them.
  size_t held_calls() const { return held_.size(); }
  // No window was opened (the run ended before the first one).
  bool no_window() const { return windows_.empty() && closed_ == 0; }

  // `launch_calls`: every launch call recorded; `steady_ns`: the devices' steady state;
  // `callbacks_detached`: CUPTI's callbacks were off between windows
  // (SegmentHeader.cupti_detaches).
  Estimate Finish(uint64_t launch_calls, int64_t steady_ns, bool callbacks_detached = false);
  // Scales each device's busy time by `scale` (capped at its steady state) and shrinks or grows
  // its idle parts in proportion to fill the rest: each still sums to its wall time.
  static void ScaleBusy(double scale, std::vector<DeviceBreakdown>* devices);
  // The same for one set of parts (a device's, a step's): `busy` times `scale`, at most their
  // steady state (busy + idle), the idle parts resized in proportion to fill the rest.
  static void ScaleBusyParts(double scale, int64_t* busy, IdleBreakdown* idle);

 private:
  static constexpr int64_t kOpen = INT64_MAX;
  struct Window {
    int64_t start;
    int64_t end;  // kOpen while open
    uint64_t launches = 0;
    int64_t kernel_ns = 0;
    int64_t after_end = 0;  // the detach after it, as its close record said (0: after_window_ns_)
    int64_t first_enter = 0;     // the first launch call inside it (0: none yet) and its duration
    int64_t first_ns = 0;
    uint8_t first_side = 0;      // the Side it was counted on (a call that ran into the opening)
    // The earliest-entered launch call with a kernel record between the previous window's calls
    // and this one's end (0: none yet), and when its first kernel started: the first call's kernel
    // where the entries match.
    int64_t first_kernel_enter = 0;
    int64_t first_kernel_start = 0;
    // CUPTI was attached again for it: the window before it named a detach (the run's first window
    // counts as not, whatever happened before it).
    bool attached_before = false;
    // Its latest-entered launch call with a kernel record (0: none) and that kernel's start.
    int64_t last_kernel_enter = 0;
    int64_t last_kernel_start = 0;
  };
  // What the windows' first launch calls cost beyond the median inside (`cost`, the sum of each
  // one's excess less what the device's queued work hid), what was hidden, and in how many windows.
  struct Opening {
    int64_t cost = 0;
    int64_t hidden = 0;
    uint64_t hidden_windows = 0;
    int64_t in_attach = 0;  // the first calls' excess before their windows' attaches ended
    void Add(const Window& w, int64_t median);
  };
  // How far behind its host the device was at a window's end (its last launch call's kernel start
  // after the call entered; 0 at least); nullopt without a kernel record.
  static std::optional<int64_t> LagAtEnd(const Window& w) {
    if (w.last_kernel_enter == 0) return std::nullopt;
    return std::max<int64_t>(w.last_kernel_start - w.last_kernel_enter, 0);
  }
  // A closed window's detach time (TracingWindowEvent.detach_at_ns), counted in the mean span, or
  // that CUPTI stayed attached after it.
  void SetAfterEnd(Window& w, const TracingWindowEvent& close);
  void Fold(const Window& w);  // into the running sums
  // AddTracedKernel when there are windows: the window the launch call entered in gets it (and
  // keeps its last launch's kernel start: how far behind the device was).
  void AddKernelInWindows(int64_t launch_enter_ns, int64_t device_ns, bool first, int64_t start_ns);
  // A launch call's first kernel started at start_ns: a candidate for the first call of the window
  // it entered in or before (after the previous window's calls).
  void NoteFirstKernel(int64_t launch_enter_ns, int64_t start_ns);
  enum class Side : uint8_t { kInside, kAfter, kOutside };
  // Where t lies among the known windows: in one (an open one: after its start), in the span
  // after one (until its detach; none where CUPTI stayed attached after it; after_window_ns_ for a
  // shim that names no detach), or outside.
  // `*window`: the window whose first launch call a call entered at t for `duration` ns may be: the
  // one it entered in, or the next one, which opened while it ran (the call that pays what turning
  // kernel records on costs may have begun before the window's start was stamped); else unchanged.
  Side SideOf(int64_t t, int64_t duration, Window** window);
  // Counts the launch call inside, after or outside by the windows known now.
  void Classify(int64_t enter_ns, int64_t duration_ns, SeenBy seen_by) {
    // No window (full tracing): outside at once, no out-of-line call on the drain's path.
    Window* window = nullptr;
    const Side side = windows_.empty() ? Side::kOutside : SideOf(enter_ns, duration_ns, &window);
    if (window != nullptr) NoteFirstCall(*window, enter_ns, duration_ns, side);
    (side == Side::kInside  ? launch_in_
     : side == Side::kAfter ? launch_after_
                            : launch_out_)
        .Add(duration_ns);
    const size_t k = static_cast<size_t>(seen_by);
    ++seen_all_[k];
    if (side == Side::kInside) ++seen_in_[k];
  }
  // Keeps the window's first launch call (the earliest entered: calls of several threads come in
  // any order) in the sums of first calls, by the side it was counted on.
  void NoteFirstCall(Window& w, int64_t enter_ns, int64_t duration_ns, Side side);
  // What the first launch call of each window took beyond the median inside, less what the device's
  // queued work hid, summed over the windows (at least 0): nullopt under kMinAbCalls inside.
  std::optional<Opening> WindowOpening() const;
  // After's addition per call after (mean after minus outside, at least 0), nullopt under
  // kMinAbCalls on either side.
  std::optional<int64_t> AfterWindowNsPerLaunch() const;
  // The mean launch call on one side, without the windows' first calls (priced apart:
  // WindowOpening), 0 without calls.
  int64_t MeanNs(Side side) const;
  // A launch call after every window record so far waits for the next (the oldest waiting one is
  // classified now when max_held_calls wait: early, when it is less than a second older than the
  // newest, as a window's record may still come for it).
  void Hold(int64_t enter_ns, int64_t duration_ns, SeenBy seen_by);
  // A window record stamped at `stamp` came: every edge before it is known. Classifies the calls
  // that entered before it.
  void KnownUntil(int64_t stamp);

  Options options_;
  bool enabled_ = false;
  std::deque<Window> windows_;  // in time order, not overlapping
  uint64_t closed_ = 0;
  int64_t traced_ns_ = 0;
  uint64_t bad_windows_ = 0;
  uint64_t traced_launches_ = 0;
  uint64_t unattributed_ = 0;
  // Sums over folded windows: m, sum n, sum K, sum n^2, sum K^2, sum nK.
  double m_ = 0, sn_ = 0, sk_ = 0, snn_ = 0, skk_ = 0, snk_ = 0;
  int64_t after_window_ns_ = 0;
  uint64_t first_calls_ = 0;    // windows with a first launch call
  // Those calls by the side they were counted on (indexed by Side): how many, their durations.
  uint64_t firsts_by_side_[3] = {};
  int64_t firsts_ns_by_side_[3] = {};
  Opening folded_opening_;      // of the folded windows, at the median inside when folded
  int64_t lag_min_ = INT64_MAX;  // of the folded windows: the least lag at an end, over how many
  uint64_t lag_windows_ = 0;
  uint64_t attached_before_ = 0;  // folded windows CUPTI was attached again for
  int64_t after_spans_ns_ = 0;  // the spans windows' close records gave, summed
  uint64_t after_spans_ = 0;
  uint64_t kept_attached_ = 0;  // closed windows after which CUPTI stayed attached
  LogHistogram launch_in_, launch_out_, launch_after_;
  uint64_t seen_in_[2] = {}, seen_all_[2] = {};  // launch calls by SeenBy: inside, all
  struct HeldCall {
    int64_t enter_ns;
    uint32_t duration_ns;  // clamped to 4.3 s: it only goes into the A/B's medians
    SeenBy seen_by;
  };
  Fifo<HeldCall> held_;              // in drain order (time order per thread)
  int64_t known_until_ = INT64_MIN;  // the latest window record's stamp
  int64_t newest_held_ = INT64_MIN;  // the latest entry of a call held
  uint64_t classified_early_ = 0;    // classified at the cap less than a second behind the newest
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_TRACED_WINDOWS_H_
