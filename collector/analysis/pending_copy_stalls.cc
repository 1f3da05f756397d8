// PendingCopyStalls: see pending_copy_stalls.h.
//
// Must never: decide a copy twice (every path erases what it decides).
#include "collector/analysis/pending_copy_stalls.h"

#include <utility>
#include <vector>

namespace brrr {
namespace {

// CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind values.
constexpr uint8_t kMemcpyHtoD = 1, kMemcpyDtoH = 2, kMemcpyDtoD = 8, kMemcpyHtoH = 9,
                  kMemcpyPtoP = 10;
constexpr uint8_t kMemoryPageable = 1, kMemoryPinned = 2;

CopyKind CopyKindOf(uint8_t cupti_kind) {
  switch (cupti_kind) {
    case kMemcpyHtoD:
      return CopyKind::kHtoD;
    case kMemcpyDtoH:
      return CopyKind::kDtoH;
    case kMemcpyDtoD:
      return CopyKind::kDtoD;
    case kMemcpyHtoH:
      return CopyKind::kHtoH;
    case kMemcpyPtoP:
      return CopyKind::kPeer;
    default:
      return CopyKind::kNone;
  }
}

}  // namespace

PendingCopyStalls::PendingCopyStalls(int64_t window_ns, size_t max_pending, Decide decide)
    : window_ns_(window_ns), max_pending_(max_pending), decide_(std::move(decide)) {}

void PendingCopyStalls::DecideNow(const Copy& copy) {
  BlockingCallFacts facts = copy.facts;
  facts.cupti_name = copy.cupti_name;  // a view of the copy's own string, used right away
  decide_(copy, ClassifyBlockingCall(facts));
}

void PendingCopyStalls::Hold(uint32_t correlation_id, const Copy& copy) {
  if (correlation_id == 0 || held_.size() >= max_pending_ || held_.contains(correlation_id)) {
    DecideNow(copy);
    return;
  }
  held_.emplace(correlation_id, copy);
}

void PendingCopyStalls::OnMemcpy(const DeviceOp& op) {
  if (held_.empty()) return;
  auto it = held_.find(op.correlation_id);
  if (it == held_.end()) return;
  Copy copy = std::move(it->second);
  held_.erase(it);
  copy.facts.copy_kind = CopyKindOf(op.copy_kind);
  const uint8_t host_side = copy.facts.copy_kind == CopyKind::kDtoH ? op.dst_kind : op.src_kind;
  if (host_side == kMemoryPageable) copy.facts.host_memory = HostMemory::kPageable;
  if (host_side == kMemoryPinned) copy.facts.host_memory = HostMemory::kPinned;
  copy.facts.pageable_evidence = op.src_kind == kMemoryPageable || op.dst_kind == kMemoryPageable;
  DecideNow(copy);
}

void PendingCopyStalls::Expire(int64_t now) {
  if (held_.empty()) return;
  std::vector<uint32_t> old;
  for (const auto& [id, copy] : held_) {
    if (now - copy.seen_at > window_ns_) old.push_back(id);
  }
  for (uint32_t id : old) {
    auto it = held_.find(id);
    const Copy copy = std::move(it->second);
    held_.erase(it);
    DecideNow(copy);
  }
}

void PendingCopyStalls::Finish() { Expire(int64_t{1} << 62); }

}  // namespace brrr
