// CounterClock (see counter_clock.h). Every input is clamped to [0, 2^62] first, so that
// raw - from + to never overflows int64.
#include "collector/ingest/counter_clock.h"

namespace brrr::ingest {
namespace {

constexpr uint64_t kMaxNs = uint64_t{1} << 62;

int64_t Clamp(uint64_t v) { return static_cast<int64_t>(v > kMaxNs ? kMaxNs : v); }

}  // namespace

std::optional<int64_t> CounterClock::Convert(uint64_t raw, CounterClockBasis basis) const {
  const int64_t r = Clamp(raw);
  switch (basis) {
    case CounterClockBasis::kMonotonic:
      return r;
    case CounterClockBasis::kCuptiTimestamp:
      if (pair_.cupti_ns == 0 || pair_.mono_ns == 0) return std::nullopt;
      return r - Clamp(pair_.cupti_ns) + Clamp(pair_.mono_ns);
    case CounterClockBasis::kRealtime:
      if (pair_.realtime_ns == 0 || pair_.mono_ns == 0) return std::nullopt;
      return r - Clamp(pair_.realtime_ns) + Clamp(pair_.mono_ns);
    case CounterClockBasis::kUndecided:
      break;
  }
  return std::nullopt;
}

std::optional<int64_t> CounterClock::ToMonotonic(uint64_t raw, int64_t earliest, int64_t latest) {
  if (basis_ != CounterClockBasis::kUndecided) return Convert(raw, basis_);
  for (CounterClockBasis b : {CounterClockBasis::kMonotonic, CounterClockBasis::kCuptiTimestamp,
                             CounterClockBasis::kRealtime}) {
    const std::optional<int64_t> t = Convert(raw, b);
    if (t && *t >= earliest && *t <= latest) {
      basis_ = b;
      return t;
    }
  }
  return std::nullopt;
}

}  // namespace brrr::ingest
