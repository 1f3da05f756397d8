// When sampled device tracing's windows open (shim/tracing_windows.h): time is cut into periods
// of window / share from an origin; each period holds one window whose offset is drawn uniformly
// over the period (SplitMix64 from a seed), so that over many periods every phase of a periodic
// loop is traced equally often. Pure arithmetic, tested alone.
//
// A schedule that ramps (the run's first) starts with windows an eighth as long (at least
// kMinRampWindowNs) and doubles them each period up to the asked length, each period still traced
// at the asked share: a short run gets several windows, not one (at 10 % and 50 ms windows: 6.25,
// 12.5 and 25 ms windows by 0.44 s, where a fixed schedule gives one window per 0.5 s).
//
// Must never: allocate, or place (or extend) a window outside its period.
#ifndef BRRR_SHIM_WINDOW_SCHEDULE_H_
#define BRRR_SHIM_WINDOW_SCHEDULE_H_

#include <cstdint>

namespace brrr::shim {

class WindowSchedule {
 public:
  struct Window {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
  };
  static constexpr uint64_t kMinRampWindowNs = 5'000'000;
  WindowSchedule() = default;
  // Periods of window_ns * 1000 / permille from origin_ns; permille in [1, 1000]. `ramp`: the
  // first windows are shorter (see above).
  WindowSchedule(uint32_t permille, uint64_t window_ns, uint64_t seed, uint64_t origin_ns,
                 bool ramp = false)
      : permille_(permille == 0 ? 1 : permille),
        full_window_ns_(window_ns),
        window_ns_(ramp ? RampStart(window_ns) : window_ns),
        period_ns_(PeriodOf(window_ns_)),
        period_start_(origin_ns),
        state_(seed) {
    Place();
  }
  // The window of the current period, then of the next one after each Advance.
  Window current() const { return current_; }
  // The current window really opened at `opened_ns` (turning tracing on took that long: attaching
  // CUPTI again took 9.4-16.7 ms on an H100 and an H200, and as long as the device's queue when
  // work was queued): it ends a window length later, so that the share traced is the one asked,
  // but never after its period.
  void OpenedAt(uint64_t opened_ns) {
    const uint64_t period_end = period_start_ + period_ns_;
    const uint64_t end = opened_ns + window_ns_;
    if (end > current_.end_ns) current_.end_ns = end < period_end ? end : period_end;
  }
  void Advance() {
    period_start_ += period_ns_;
    if (window_ns_ < full_window_ns_) {
      window_ns_ = window_ns_ * 2 < full_window_ns_ ? window_ns_ * 2 : full_window_ns_;
      period_ns_ = PeriodOf(window_ns_);
    }
    Place();
  }
  uint64_t period_ns() const { return period_ns_; }
  uint64_t period_start_ns() const { return period_start_; }

 private:
  static uint64_t SplitMix64(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  static uint64_t RampStart(uint64_t window_ns) {
    const uint64_t eighth = window_ns / 8;
    if (eighth >= kMinRampWindowNs) return eighth;
    return window_ns < kMinRampWindowNs ? window_ns : kMinRampWindowNs;
  }
  uint64_t PeriodOf(uint64_t window_ns) const { return window_ns * 1000 / permille_; }
  void Place() {
    const uint64_t slack = period_ns_ > window_ns_ ? period_ns_ - window_ns_ : 0;
    const uint64_t offset = slack == 0 ? 0 : SplitMix64(&state_) % (slack + 1);
    current_.start_ns = period_start_ + offset;
    current_.end_ns = current_.start_ns + window_ns_;
  }

  uint64_t permille_ = 1000;
  uint64_t full_window_ns_ = 0;  // the asked length
  uint64_t window_ns_ = 0;       // this period's (shorter while ramping)
  uint64_t period_ns_ = 0;
  uint64_t period_start_ = 0;
  uint64_t state_ = 0;
  Window current_;
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_WINDOW_SCHEDULE_H_
