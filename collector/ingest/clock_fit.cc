// Piecewise-linear TSC -> CLOCK_MONOTONIC mapping. See clock_fit.h.
//
// Must never: divide by zero, overflow int64, or grow without bound.
#include "collector/ingest/clock_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace brrr::ingest {
bool ClockFit::ConsistentWith(const Point& a, const Point& b) const {
  if (b.tsc <= a.tsc || b.ns < a.ns) return false;
  const long double slope = static_cast<long double>(b.ns - a.ns) / (b.tsc - a.tsc);
  return slope >= kMinNsPerTick && slope <= kMaxNsPerTick;
}

bool ClockFit::AddPair(ClockPair pair) {
  if (pair.mono_ns < 0) return false;
  const Point p{pair.tsc, pair.mono_ns};
  // Check against its neighbours among all points in use.
  auto next = std::lower_bound(points_.begin(), points_.end(), p.tsc,
                               [](const Point& q, uint64_t tsc) { return q.tsc < tsc; });
  if (next != points_.end() && next->tsc == p.tsc) return false;
  if (next != points_.end() && !ConsistentWith(p, *next)) return false;
  if (next != points_.begin() && !ConsistentWith(*(next - 1), p)) return false;

  // Leading points of points_ that stay as they are. In the common case (the collector's own
  // pairs, in time order) only the end changes, so only the end is rebuilt: a whole rebuild per
  // pair would cost O(pairs) at every drain.
  size_t unchanged = 0;
  if (kept_.empty() || p.tsc > kept_.back().tsc) {
    unchanged = kept_.size();
    if (!newest_.has_value() && kept_.empty()) {
      kept_.push_back(p);
    } else if (p.ns - kept_.back().ns >= options_.min_spacing_ns) {
      kept_.push_back(p);
      newest_.reset();
    } else if (newest_.has_value() && p.tsc < newest_->tsc) {
      // Between the last kept pair and the newest one: the newest stays the endpoint.
      return true;
    } else {
      newest_ = p;
    }
  } else {
    // An older pair (e.g. the shim's, read late): insert in order.
    auto pos = std::lower_bound(kept_.begin(), kept_.end(), p.tsc,
                                [](const Point& q, uint64_t tsc) { return q.tsc < tsc; });
    kept_.insert(pos, p);
  }
  if (kept_.size() > options_.max_pairs) {
    Thin();
    unchanged = 0;
  }
  RebuildFrom(unchanged);
  return true;
}

void ClockFit::Thin() {
  // Drop every other pair in the older half; the first and the recent ones stay.
  std::vector<Point> thinned;
  thinned.reserve(kept_.size());
  const size_t half = kept_.size() / 2;
  for (size_t i = 0; i < kept_.size(); ++i) {
    if (i == 0 || i >= half || i % 2 == 0) thinned.push_back(kept_[i]);
  }
  kept_.swap(thinned);
}

void ClockFit::RebuildFrom(size_t unchanged) {
  unchanged = std::min({unchanged, kept_.size(), points_.size()});
  points_.resize(unchanged);
  points_.insert(points_.end(), kept_.begin() + static_cast<ptrdiff_t>(unchanged), kept_.end());
  if (newest_.has_value()) points_.push_back(*newest_);
  // Slope i depends on points i and i + 1: those of the unchanged points' pieces stay.
  slopes_.resize(unchanged > 0 ? unchanged - 1 : 0);
  for (size_t i = slopes_.size(); i + 1 < points_.size(); ++i) {
    slopes_.push_back(static_cast<double>(points_[i + 1].ns - points_[i].ns) /
                      static_cast<double>(points_[i + 1].tsc - points_[i].tsc));
  }
  cached_piece_ = 0;
}

int64_t ClockFit::ToNs(uint64_t tsc) {
  if (points_.empty()) return 0;
  size_t piece = 0;
  double slope = 1.0;
  if (!slopes_.empty()) {
    const size_t last = slopes_.size() - 1;
    const auto in_piece = [&](size_t i) {
      return (i == 0 || tsc >= points_[i].tsc) && (i == last || tsc < points_[i + 1].tsc);
    };
    if (in_piece(cached_piece_)) {
      piece = cached_piece_;
    } else {
      auto it = std::upper_bound(points_.begin(), points_.end(), tsc,
                                 [](uint64_t t, const Point& q) { return t < q.tsc; });
      const size_t after = static_cast<size_t>(it - points_.begin());  // first point > tsc
      piece = after == 0 ? 0 : std::min(after - 1, last);
      cached_piece_ = piece;
    }
    slope = slopes_[piece];
  }
  const Point& base = points_[piece];
  const bool forward = tsc >= base.tsc;
  const uint64_t ticks = forward ? tsc - base.tsc : base.tsc - tsc;
  const double offset = static_cast<double>(ticks) * slope;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (!(offset < 9.0e18)) return forward ? kMax : 0;  // also catches NaN
  const int64_t off = static_cast<int64_t>(offset);
  if (forward) return off > kMax - base.ns ? kMax : base.ns + off;
  return off >= base.ns ? 0 : base.ns - off;
}

}  // namespace brrr::ingest
