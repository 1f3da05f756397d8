// How long the shim waits after a window of sampled device tracing closes before it flushes CUPTI
// and detaches it (BRRR_CUPTI_DETACH; shim/tracing_windows.h). Until the detach CUPTI stays
// subscribed with its kinds off, which costs each CUDA call about what tracing does (on an H100
// +0.9 us a launch, tools/gpu/README.md, 2026-11-28): a window length of it doubled what sampled
// tracing cost a launch-bound loop. The wait exists for work queued inside the window: a forced
// flush hands back what has not completed without timestamps (collector: DeviceOp.untimed), and the
// detach then drops it. So the wait adapts: it starts at the window length (nothing lost on a
// device far behind its host), halves after every flush that handed back no untimed work, down to
// kMinNs, and goes four times longer (at most the window length) after one that did. When even a
// window length was not enough, CUPTI stays attached after every later window: the device is far
// behind its host (seconds, on the simulated device's launch loops), which then waits for it
// anyway, so what CUPTI costs a CUDA call costs the run little; and each detach would lose the
// device times of every window whose work was still queued (a stay of a few windows did: the
// detach after it dropped them all).
//
// Pure arithmetic, tested alone. Must never: wait longer than the window length, or less than
// kMinNs; stop detaching before a wait of a whole window lost work.
#ifndef BRRR_SHIM_DETACH_GRACE_H_
#define BRRR_SHIM_DETACH_GRACE_H_

#include <cstdint>

namespace brrr::shim {

class DetachGrace {
 public:
  static constexpr uint64_t kMinNs = 1'000'000;  // a control-thread tick is ~0.1 ms at best

  // `adaptive` false (BRRR_DETACH_WAIT=window): always the window length. constexpr: the shim's
  // state holding it must be initialized before any code runs (it is configured from the library's
  // constructor, whatever the order of static initialization).
  constexpr explicit DetachGrace(uint64_t window_ns, bool adaptive = true)
      : max_ns_(window_ns > kMinNs ? window_ns : kMinNs), ns_(max_ns_), adaptive_(adaptive) {}

  uint64_t ns() const { return ns_; }
  // Whether CUPTI is still detached after a window (false once it stays attached).
  bool detaches() const { return !stay_attached_; }
  // The flush before a detach: `untimed` records of queued work came back without timestamps.
  void OnFlushBeforeDetach(uint64_t untimed) {
    if (!adaptive_) return;
    if (untimed > 0) {
      if (ns_ == max_ns_) stay_attached_ = true;  // a window length was not enough
      ns_ = ns_ > max_ns_ / 4 ? max_ns_ : ns_ * 4;
    } else {
      ns_ = ns_ / 2 < kMinNs ? kMinNs : ns_ / 2;
    }
  }

 private:
  uint64_t max_ns_ = kMinNs;
  uint64_t ns_ = kMinNs;
  bool adaptive_ = true;
  bool stay_attached_ = false;
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_DETACH_GRACE_H_
