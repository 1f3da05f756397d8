// Hands the breakdown's finalized pieces (DeviceTimeBreakdown::PartListener) to two listeners in
// turn: the timeline and, once a loop has steps, the step ledger.
//
// Must never: call a listener that is null, or change what either receives.
#ifndef BRRR_COLLECTOR_ANALYSIS_PART_FANOUT_H_
#define BRRR_COLLECTOR_ANALYSIS_PART_FANOUT_H_

#include "collector/analysis/device_time_breakdown.h"

namespace brrr {

class PartFanout : public DeviceTimeBreakdown::PartListener {
 public:
  PartFanout(PartListener* first, PartListener* second) : first_(first), second_(second) {}
  void OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) override {
    first_->OnPart(device_id, part, lo, hi);
    second_->OnPart(device_id, part, lo, hi);
  }
  void OnParts(uint32_t device_id, const Piece* pieces, size_t count) override {
    first_->OnParts(device_id, pieces, count);
    second_->OnParts(device_id, pieces, count);
  }
  void OnEmptyDevicePart(Part part, int64_t lo, int64_t hi) override {
    first_->OnEmptyDevicePart(part, lo, hi);
    second_->OnEmptyDevicePart(part, lo, hi);
  }
  void OnSwept(int64_t watermark) override {
    first_->OnSwept(watermark);
    second_->OnSwept(watermark);
  }

 private:
  PartListener* first_;
  PartListener* second_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_PART_FANOUT_H_
