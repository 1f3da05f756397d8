// How long the shim waits after a window of sampled device tracing closes before it flushes CUPTI
// and detaches it (BRRR_CUPTI_DETACH; shim/tracing_windows.h), and when it stops detaching.
//
// Until the detach CUPTI stays subscribed with its kinds off, which costs each CUDA call about what
// tracing does (on an H100 +0.9 us a launch, tools/gpu/README.md, 2026-11-28): a window length of
// it doubled what sampled tracing cost a launch-bound loop. The wait exists for work queued inside
// the window: a forced flush hands back what has not completed without timestamps (collector:
// DeviceOp.untimed), and the detach then drops it. So the wait adapts:
//  - it starts at the window length (nothing lost on a device far behind its host), halves after
//    every flush that handed back no untimed work, down to kMinNs, and goes four times longer (at
//    most the window length) after one that did;
//  - after a loss at a wait w it does not halve below 2w for kFloorFlushes clean flushes (then that
//    floor halves): on an H100 a loop whose device ran 32 ms behind, with 50 ms windows, otherwise
//    went 50 ms (clean), 25 (lost), 50, 25, ..., losing the end of every other window; a floor held
//    for the whole run kept the wait long after one late flush on a busy machine.
// CUPTI stays attached after every later window once
//  - a wait of a whole window still lost work: the device is far behind its host, which waits for
//    it anyway, so what CUPTI costs a CUDA call costs the run little, while each detach loses the
//    device times of every window whose work is still queued; or
//  - a detach's cuptiFinalize took longer than kSlowDetachNs or a quarter of the window: the real
//    cuptiFinalize and cuptiSubscribe wait for the device's queued work (attach_probe.cu on an
//    H100: 29.7 and 32.5 ms with 30 ms queued, 1.7-2.3 and 9.4-10 ms idle), so on a device behind
//    its host every detach and attach held the app's threads about the queue's depth (22 and 34 ms
//    a window on a loop 32 ms behind: brrr counted 11-13 % of the run, the run was 0.3-1.1 %
//    slower than alone), for a per-call saving the host, waiting for the device, does not feel.
//
// Pure arithmetic, tested alone. Must never: wait longer than the window length, or less than
// kMinNs; go back to a wait that lost work within kFloorFlushes clean flushes; stop detaching
// before a wait of a whole window lost work or a detach waited long.
#ifndef BRRR_SHIM_DETACH_GRACE_H_
#define BRRR_SHIM_DETACH_GRACE_H_

#include <cstdint>

namespace brrr::shim {

class DetachGrace {
 public:
  static constexpr uint64_t kMinNs = 1'000'000;  // a control-thread tick is ~0.1 ms at best
  // A cuptiFinalize longer than this (or a quarter of the window) waited for queued device work:
  // idle, it takes 1.7-2.3 ms on an H100.
  static constexpr uint64_t kSlowDetachNs = 5'000'000;
  // Clean flushes at the floor before it halves.
  static constexpr uint32_t kFloorFlushes = 8;

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
      const uint64_t above_lost = ns_ > max_ns_ / 2 ? max_ns_ : ns_ * 2;
      if (above_lost > floor_ns_) floor_ns_ = above_lost;
      clean_at_floor_ = 0;
      ns_ = ns_ > max_ns_ / 4 ? max_ns_ : ns_ * 4;
    } else {
      if (ns_ <= floor_ns_ && floor_ns_ > kMinNs && ++clean_at_floor_ >= kFloorFlushes) {
        floor_ns_ = floor_ns_ / 2 < kMinNs ? kMinNs : floor_ns_ / 2;
        clean_at_floor_ = 0;
      }
      ns_ = ns_ / 2 < floor_ns_ ? floor_ns_ : ns_ / 2;
    }
  }

  // A detach's cuptiFinalize took `ns`.
  void OnDetachTook(uint64_t ns) {
    if (!adaptive_) return;
    const uint64_t slow = max_ns_ / 4 > kSlowDetachNs ? max_ns_ / 4 : kSlowDetachNs;
    if (ns > slow) stay_attached_ = true;
  }

 private:
  uint64_t max_ns_ = kMinNs;
  uint64_t ns_ = kMinNs;
  // Twice the longest recent wait that lost work (at most max_ns_); halves after kFloorFlushes.
  uint64_t floor_ns_ = kMinNs;
  uint32_t clean_at_floor_ = 0;
  bool adaptive_ = true;
  bool stay_attached_ = false;
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_DETACH_GRACE_H_
