// A growable ring buffer (FIFO with random access from the front): the pending queues of the
// analysis. Push and pop are O(1) and allocate only when the buffer must grow (doubling), so a
// queue that stays at a bounded size never allocates again.
//
// Not thread-safe. Must never: shrink implicitly, or invalidate indices except by pop_front.
#ifndef BRRR_COLLECTOR_ANALYSIS_FIFO_H_
#define BRRR_COLLECTOR_ANALYSIS_FIFO_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace brrr {

template <typename T>
class Fifo {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return buffer_.size(); }

  T& operator[](size_t i) { return buffer_[(head_ + i) & mask_]; }
  const T& operator[](size_t i) const { return buffer_[(head_ + i) & mask_]; }
  // Asks the CPU to bring item i into its cache: a queue read long after it was written, in order,
  // can hide the misses. Past the end it touches a slot of the buffer that is not in use (or, with
  // no buffer, nothing): harmless, as a prefetch never faults. (Unconditional on purpose: GCC 12
  // drops a prefetch guarded by a bounds check.)
  void Prefetch(size_t i) const { __builtin_prefetch(buffer_.data() + ((head_ + i) & mask_)); }
  T& front() { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& value) {
    if (size_ == buffer_.size()) Grow();
    buffer_[(head_ + size_) & mask_] = value;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  void Grow() {
    std::vector<T> bigger(buffer_.empty() ? 16 : buffer_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    buffer_ = std::move(bigger);
    head_ = 0;
    mask_ = buffer_.size() - 1;
  }

  std::vector<T> buffer_;
  size_t head_ = 0;
  size_t size_ = 0;
  size_t mask_ = 0;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_FIFO_H_
