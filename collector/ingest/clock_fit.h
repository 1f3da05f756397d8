// Maps host TSC ticks to CLOCK_MONOTONIC nanoseconds from (tsc, monotonic) pairs: piecewise linear
// between the pairs, extrapolated with the nearest piece's slope outside them. Pairs come from the
// collector's own sampling while it drains (the TSC is machine-wide) and from the shim's header.
// Piecewise rather than one global line because NTP slews CLOCK_MONOTONIC's rate; pieces are kept
// at least `min_spacing_ns` apart so that pair jitter (tens of ns) barely moves the slopes, and
// thinned so memory stays bounded however long the run.
//
// Thread-safety: none; one owner (the reader on the drain thread).
// Must never: accept a pair that contradicts the others (time going backwards, an absurd rate), or
// return a value that overflowed.
#ifndef BRRR_COLLECTOR_INGEST_CLOCK_FIT_H_
#define BRRR_COLLECTOR_INGEST_CLOCK_FIT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "collector/ingest/clock_pair.h"

namespace brrr::ingest {

class ClockFit {
 public:
  struct Options {
    int64_t min_spacing_ns = 1'000'000;  // closer pairs replace the newest instead of adding one
    size_t max_pairs = 4096;             // beyond this, older pairs are thinned out
  };
  // Plausible TSC rates, in nanoseconds per tick (10 MHz .. 100 GHz).
  static constexpr double kMinNsPerTick = 0.01;
  static constexpr double kMaxNsPerTick = 100.0;

  ClockFit() : ClockFit(Options{}) {}
  explicit ClockFit(Options options) : options_(options) {}

  // Adds a pair. Returns false, and ignores it, when it contradicts the pairs already held.
  bool AddPair(ClockPair pair);

  // Number of pairs currently used.
  size_t pair_count() const { return points_.size(); }

  // CLOCK_MONOTONIC ns for a TSC value, clamped to [0, INT64_MAX]. With no pair: 0. With one pair:
  // 1 ns per tick relative to it (the reader always adds two before converting).
  int64_t ToNs(uint64_t tsc);

 private:
  struct Point {
    uint64_t tsc;
    int64_t ns;
  };
  bool ConsistentWith(const Point& a, const Point& b) const;  // a.tsc < b.tsc
  // Makes points_ and slopes_ follow kept_ and newest_ again, given that the first `unchanged`
  // points of points_ still equal kept_'s (0: all rebuilt).
  void RebuildFrom(size_t unchanged);
  void Thin();

  Options options_;
  std::vector<Point> kept_;      // sorted by tsc, spaced >= min_spacing_ns (except inserts)
  std::optional<Point> newest_;  // the latest pair when too close to kept_.back()
  std::vector<Point> points_;    // kept_ + newest_: what conversion uses
  std::vector<double> slopes_;   // ns per tick of piece i (points_[i] .. points_[i+1])
  size_t cached_piece_ = 0;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_CLOCK_FIT_H_
