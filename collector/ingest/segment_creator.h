// Creates the shared-memory segment for `brrr run`: a fresh, uniquely named POSIX shm object
// (O_EXCL, mode 0600), sized and laid out by shim/segment_layout.h with every page reserved
// (shim/segment_reserve.h: smaller than asked when /dev/shm is short, never a SIGBUS later), its
// header filled as the shim would fill it when it creates one itself. The app finds it through BRRR_SHM=<name>. The name is
// unlinked when the CreatedSegment is destroyed (or earlier, by Unlink()).
//
// Thread-safety: not thread-safe; one owner.
// Must never: reuse or overwrite an existing shm object, or leave the name behind on an error path.
#ifndef BRRR_COLLECTOR_INGEST_SEGMENT_CREATOR_H_
#define BRRR_COLLECTOR_INGEST_SEGMENT_CREATOR_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "collector/ingest/shm_mapping.h"
#include "shim/segment_layout.h"

namespace brrr::ingest {

class CreatedSegment {
 public:
  // Creates "/brrr-<collector pid>-<random>" with `geometry` (validated first), or a smaller one
  // that fits the free space (then note() says so). ResourceExhausted when nothing fits.
  static absl::StatusOr<std::unique_ptr<CreatedSegment>> Create(
      const ring::SegmentGeometry& geometry);

  // Why the segment is smaller than asked, and how to get the full size; "" when it is not.
  const std::string& note() const { return note_; }

  ~CreatedSegment();
  CreatedSegment(const CreatedSegment&) = delete;
  CreatedSegment& operator=(const CreatedSegment&) = delete;

  const std::string& name() const { return mapping_->name(); }
  ShmMapping& mapping() { return *mapping_; }

  // Removes the name (the mapping stays usable). Idempotent.
  void Unlink();

 private:
  explicit CreatedSegment(std::unique_ptr<ShmMapping> mapping) : mapping_(std::move(mapping)) {}

  std::unique_ptr<ShmMapping> mapping_;
  std::string note_;
  bool unlinked_ = false;
};

// Fills a zero-filled segment header for `geometry`: layout fields (WriteGeometry), the host clock
// the shim will use (TSC when invariant, else CLOCK_MONOTONIC) with a calibration pair, and the
// start time. pid, flags and command are left to the shim.
void InitializeSegmentHeader(const ring::SegmentGeometry& geometry, ring::SegmentHeader* header);

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_SEGMENT_CREATOR_H_
