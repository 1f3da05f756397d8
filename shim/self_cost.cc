// See self_cost.h.
#include "shim/self_cost.h"

#include <algorithm>

#include "shim/clock.h"
#include "shim/ring_format.h"
#include "shim/ring_writer.h"

namespace brrr::shim {
namespace {

constexpr uint32_t kBatch = 256;  // a power of two: the scratch ring's capacity
constexpr int kBatches = 5;

struct ScratchRing {
  ring::RingHeader header;
  ring::HostRecord records[kBatch];
};

}  // namespace

uint32_t MeasureRecordCostNs() {
  static ScratchRing scratch;  // the shim's own memory, never the segment's
  RingCursor<ring::HostRecord> cursor;
  cursor.ring = &scratch.header;
  cursor.records = scratch.records;
  cursor.mask = kBatch - 1;
  uint64_t per_batch[kBatches];
  for (int b = 0; b < kBatches; ++b) {
    // Room for a whole batch: what the collector's drain does to a live ring.
    scratch.header.read_index.store(scratch.header.write_index.load(std::memory_order_relaxed),
                                    std::memory_order_release);
    const uint64_t t0 = MonotonicNs();
    for (uint32_t i = 0; i < kBatch; ++i) {
      ring::HostRecord r{};
      r.enter = HostNow();
      r.api = static_cast<uint16_t>(i);
      r.exit = HostNow();
      AppendRecord(cursor, r);
    }
    per_batch[b] = MonotonicNs() - t0;
  }
  std::sort(per_batch, per_batch + kBatches);
  const uint64_t ns = per_batch[kBatches / 2] / kBatch;
  return static_cast<uint32_t>(std::clamp<uint64_t>(ns, 1, UINT32_MAX));
}

}  // namespace brrr::shim
