// A segment laid out in ordinary heap memory, for unit tests of the writer side (no shm, no
// preload). Also a minimal reader that drains host rings per R1/R2, written independently of the
// collector's so that the writer is tested against the contract, not against another
// implementation.
//
// Must never: be linked into libbrrr.so.
#ifndef BRRR_SHIM_TESTS_TEST_SEGMENT_H_
#define BRRR_SHIM_TESTS_TEST_SEGMENT_H_

#include <cstdlib>
#include <cstring>
#include <memory>

#include "shim/segment.h"

namespace brrr::shim::testing {

class HeapSegment {
 public:
  explicit HeapSegment(const ring::SegmentGeometry& g) {
    bytes_ = ring::ComputeLayout(g).segment_size;
    memory_ = static_cast<char*>(std::aligned_alloc(4096, bytes_));
    std::memset(memory_, 0, bytes_);
    ok_ = InitSegmentMemory(memory_, bytes_, g, &view_);
  }
  ~HeapSegment() { std::free(memory_); }
  HeapSegment(const HeapSegment&) = delete;
  HeapSegment& operator=(const HeapSegment&) = delete;

  bool ok() const { return ok_; }
  const SegmentView& view() const { return view_; }
  ring::SegmentHeader* header() const { return view_.header; }

 private:
  char* memory_ = nullptr;
  uint64_t bytes_ = 0;
  bool ok_ = false;
  SegmentView view_;
};

// Copies out every published record of `r` (capacity `cap`) and advances read_index. Calls
// `on_record` for each. Returns how many were read.
template <typename Fn>
uint64_t DrainRing(ring::RingHeader* r, const ring::HostRecord* records, uint64_t cap,
                   Fn&& on_record) {
  const uint64_t w = r->write_index.load(std::memory_order_acquire);  // R1
  const uint64_t rd = r->read_index.load(std::memory_order_relaxed);
  for (uint64_t i = rd; i < w; ++i) on_record(records[i & (cap - 1)]);
  r->read_index.store(w, std::memory_order_release);  // R2
  return w - rd;
}

}  // namespace brrr::shim::testing

#endif  // BRRR_SHIM_TESTS_TEST_SEGMENT_H_
