// SpanBacklog's run merging and front consumption (see span_backlog.h).
//
// Must never: read or write outside [0, size) of a buffer while merging, or leave run_starts_
// pointing at spans that moved.
#include "collector/analysis/span_backlog.h"

#include <algorithm>
#include <utility>

namespace brrr {
namespace {

bool StartsEarlier(const PendingSpan& a, const PendingSpan& b) { return a.start < b.start; }

}  // namespace

void SpanBacklog::Sort() {
  if (run_starts_.empty()) return;
  const size_t n = size();
  bounds_.clear();
  bounds_.push_back(0);
  for (size_t start : run_starts_) bounds_.push_back(start - head_);
  bounds_.push_back(n);
  run_starts_.clear();
  if (bounds_.size() - 1 > kMaxMergedRuns) {
    // Too fragmented to merge run by run: sort everything after the first run, leaving two runs.
    std::sort(items_.begin() + static_cast<ptrdiff_t>(head_ + bounds_[1]), items_.end(),
              StartsEarlier);
    bounds_.resize(2);
    bounds_.push_back(n);
  }
  if (scratch_.size() < n) scratch_.resize(n);
  // Bottom-up merging of neighbouring runs, alternating between items_ and scratch_. The first
  // pass reads the live part of items_ (from head_); later passes write items_ from index 0.
  const PendingSpan* src = items_.data() + head_;
  PendingSpan* dst = scratch_.data();
  bool result_in_scratch = false;
  while (bounds_.size() > 2) {
    const size_t runs = bounds_.size() - 1;
    size_t kept = 0;
    for (size_t r = 0; r < runs; r += 2) {
      const size_t lo = bounds_[r];
      const size_t mid = bounds_[r + 1];
      if (r + 1 < runs) {
        const size_t hi = bounds_[r + 2];
        std::merge(src + lo, src + mid, src + mid, src + hi, dst + lo, StartsEarlier);
      } else {
        std::copy(src + lo, src + mid, dst + lo);
      }
      bounds_[kept++] = lo;
    }
    bounds_[kept++] = n;
    bounds_.resize(kept);
    result_in_scratch = !result_in_scratch;
    if (result_in_scratch) {
      src = scratch_.data();
      dst = items_.data();
    } else {
      src = items_.data();
      dst = scratch_.data();
    }
  }
  if (result_in_scratch) {
    std::swap(items_, scratch_);
    items_.resize(n);
    head_ = 0;
  } else {
    // An even number of passes (at least two): the result sits at the start of items_.
    items_.resize(n);
    head_ = 0;
  }
}

size_t SpanBacklog::CountStartingBefore(int64_t t) const {
  const auto first = items_.begin() + static_cast<ptrdiff_t>(head_);
  return static_cast<size_t>(
      std::lower_bound(first, items_.end(), t,
                       [](const PendingSpan& s, int64_t w) { return s.start < w; }) -
      first);
}

void SpanBacklog::DropFront(size_t n) {
  head_ += std::min(n, size());
  if (head_ == items_.size()) {
    clear();
  } else {
    // Compacting right away measured faster than deferring it (BM_LaunchLoop): a deferred
    // compaction keeps the consumed spans' memory hot and the backlog's footprint up to 2x.
    Compact();
  }
}

void SpanBacklog::Compact() {
  if (head_ == 0) return;
  items_.erase(items_.begin(), items_.begin() + static_cast<ptrdiff_t>(head_));
  size_t kept = 0;
  for (size_t start : run_starts_) {
    if (start > head_) run_starts_[kept++] = start - head_;
  }
  run_starts_.resize(kept);
  head_ = 0;
}

void SpanBacklog::clear() {
  items_.clear();
  head_ = 0;
  run_starts_.clear();
}

}  // namespace brrr
