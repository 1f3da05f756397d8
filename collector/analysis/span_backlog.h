// The pending spans of the device-time breakdown: appended in almost-sorted order (each source,
// e.g. one host thread's ring or a device's record stream, is in time order; sources interleave in
// batches), sorted by start on demand and consumed from the front. Appending notes where a new
// sorted run begins, so sorting merges those runs (O(n log runs), with a scratch buffer that is
// reused) instead of sorting from scratch; consuming moves the rest to the front (one memmove).
//
// Not thread-safe. Must never: allocate once the backlog has reached its steady size, or lose or
// duplicate a span (sorting only reorders; the order of spans with equal starts is unspecified).
#ifndef BRRR_COLLECTOR_ANALYSIS_SPAN_BACKLOG_H_
#define BRRR_COLLECTOR_ANALYSIS_SPAN_BACKLOG_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace brrr {

struct PendingSpan {
  int64_t start;
  int64_t end;
  bool stall;  // host spans only
};

class SpanBacklog {
 public:
  size_t size() const { return items_.size() - head_; }
  bool empty() const { return items_.size() == head_; }
  const PendingSpan& operator[](size_t i) const { return items_[head_ + i]; }

  // Takes the span's fields, not a PendingSpan: a struct built on the caller's stack and copied in
  // is read back with wider loads than it was written with, which the CPU cannot forward from its
  // store buffer (a stall per span).
  void push_back(int64_t start, int64_t end, bool stall) {
    if (items_.size() > head_ && start < items_.back().start) {
      run_starts_.push_back(items_.size());
    }
    PendingSpan& span = items_.emplace_back();
    span.start = start;
    span.end = end;
    span.stall = stall;
  }

  // Orders the spans by start. Cheap when already sorted (nothing to do).
  void Sort();
  // After Sort: how many spans (from the front) start before t.
  size_t CountStartingBefore(int64_t t) const;
  // After Sort: drops the first n spans.
  void DropFront(size_t n);
  void clear();

 private:
  // More runs than this are first reduced to two by std::sort of all but the first run.
  static constexpr size_t kMaxMergedRuns = 64;

  void Compact();

  std::vector<PendingSpan> items_;  // live spans are [head_, size)
  size_t head_ = 0;
  std::vector<size_t> run_starts_;  // indices into items_ where a descent began a new run
  std::vector<size_t> bounds_;      // Sort's work list of run boundaries (relative to head_)
  std::vector<PendingSpan> scratch_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_SPAN_BACKLOG_H_
