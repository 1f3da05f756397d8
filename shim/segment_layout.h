// Where everything lives inside a brrr shared-memory segment, computed from five numbers (the
// geometry). The one layout function used by every side: the shim when it creates the segment
// itself, the collector when it creates one for `brrr run`, and the collector's untrusted reader,
// which recomputes the layout from the header's geometry and rejects a header whose offsets or
// sizes disagree. Header-only, constexpr, no allocation: the shim includes it.
//
// Must never: allocate, lock, call libc, or accept a geometry
// outside the limits below (the reader relies on ValidateHeader to bound every later access).
#ifndef BRRR_SHIM_SEGMENT_LAYOUT_H_
#define BRRR_SHIM_SEGMENT_LAYOUT_H_

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::ring {

// Limits on each geometry number. Capacities and slot counts are powers of two (rings and the
// hash tables index with a mask).
inline constexpr uint32_t kMinMaxThreads = 1;
inline constexpr uint32_t kMaxMaxThreads = 4096;
inline constexpr uint32_t kMinRingCapacity = 8;
inline constexpr uint32_t kMaxRingCapacity = 1u << 22;
inline constexpr uint32_t kMinDeviceCapacity = 8;
inline constexpr uint32_t kMaxDeviceCapacity = 1u << 22;
inline constexpr uint32_t kMinTableSlots = 8;
inline constexpr uint32_t kMaxTableSlots = 1u << 20;
inline constexpr uint32_t kMaxCodeSlots = 1u << 16;  // 256 MiB of 4 KiB slots
inline constexpr uint64_t kMaxSegmentBytes = uint64_t{8} << 30;  // 8 GiB
inline constexpr uint64_t kSegmentPageSize = 4096;

struct SegmentGeometry {
  uint32_t max_threads = kDefaultMaxThreads;
  uint32_t ring_capacity = kDefaultRingCapacity;
  uint32_t device_capacity = kDefaultDeviceCapacity;
  uint32_t stack_slots = kDefaultStackSlots;
  uint32_t name_slots = kDefaultNameSlots;
  uint32_t code_slots = kDefaultCodeSlots;
};

struct SegmentLayout {
  uint64_t threads_offset = 0;
  uint64_t thread_ring_stride = 0;  // bytes from one ThreadRing's RingHeader to the next
  uint64_t device_offset = 0;
  uint64_t stacks_offset = 0;
  uint64_t names_offset = 0;
  uint64_t codes_offset = 0;
  uint64_t segment_size = 0;  // total, rounded up to kSegmentPageSize
};

constexpr bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

constexpr uint64_t RoundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// True when every number is within its limits and the whole segment fits kMaxSegmentBytes.
constexpr bool IsValidGeometry(const SegmentGeometry& g) {
  if (g.max_threads < kMinMaxThreads || g.max_threads > kMaxMaxThreads) return false;
  if (!IsPowerOfTwo(g.ring_capacity) || g.ring_capacity < kMinRingCapacity ||
      g.ring_capacity > kMaxRingCapacity)
    return false;
  if (!IsPowerOfTwo(g.device_capacity) || g.device_capacity < kMinDeviceCapacity ||
      g.device_capacity > kMaxDeviceCapacity)
    return false;
  if (!IsPowerOfTwo(g.stack_slots) || g.stack_slots < kMinTableSlots ||
      g.stack_slots > kMaxTableSlots)
    return false;
  if (!IsPowerOfTwo(g.name_slots) || g.name_slots < kMinTableSlots || g.name_slots > kMaxTableSlots)
    return false;
  if (!IsPowerOfTwo(g.code_slots) || g.code_slots < kMinTableSlots || g.code_slots > kMaxCodeSlots)
    return false;
  // With the limits above nothing overflows 64 bits; check the total.
  const uint64_t total =
      kSegmentHeaderSize +
      uint64_t{g.max_threads} * RoundUp(ThreadRingBytes(g.ring_capacity), kCacheLine) +
      RoundUp(DeviceRingBytes(g.device_capacity), kCacheLine) +
      uint64_t{g.stack_slots} * sizeof(StackSlot) + uint64_t{g.name_slots} * sizeof(NameSlot) +
      uint64_t{g.code_slots} * sizeof(CodeSlot) + 2 * kCacheLine;
  return RoundUp(total, kSegmentPageSize) <= kMaxSegmentBytes;
}

// The layout for a geometry. Meaningful only when IsValidGeometry(g).
constexpr SegmentLayout ComputeLayout(const SegmentGeometry& g) {
  SegmentLayout l;
  l.threads_offset = kSegmentHeaderSize;
  l.thread_ring_stride = RoundUp(ThreadRingBytes(g.ring_capacity), kCacheLine);
  l.device_offset =
      RoundUp(l.threads_offset + uint64_t{g.max_threads} * l.thread_ring_stride, kCacheLine);
  l.stacks_offset = RoundUp(l.device_offset + DeviceRingBytes(g.device_capacity), kCacheLine);
  l.names_offset =
      RoundUp(l.stacks_offset + uint64_t{g.stack_slots} * sizeof(StackSlot), kCacheLine);
  l.codes_offset =
      RoundUp(l.names_offset + uint64_t{g.name_slots} * sizeof(NameSlot), kCacheLine);
  l.segment_size =
      RoundUp(l.codes_offset + uint64_t{g.code_slots} * sizeof(CodeSlot), kSegmentPageSize);
  return l;
}

// Writes the geometry and layout fields of a zero-filled header (magic, version, sizes, offsets).
// Leaves pid, flags, clocks, command and the atomics to the caller. Works on a header in any
// memory (a fresh mmap of the segment is zero-filled).
inline void WriteGeometry(const SegmentGeometry& g, SegmentHeader* h) {
  const SegmentLayout l = ComputeLayout(g);
  h->magic = kMagic;
  h->version = kVersion;
  h->header_size = kSegmentHeaderSize;
  h->segment_size = l.segment_size;
  h->record_size = sizeof(HostRecord);
  h->device_record_size = sizeof(DeviceRecord);
  h->max_threads = g.max_threads;
  h->ring_capacity = g.ring_capacity;
  h->device_capacity = g.device_capacity;
  h->stack_slots = g.stack_slots;
  h->name_slots = g.name_slots;
  h->code_slots = g.code_slots;
  h->threads_offset = l.threads_offset;
  h->device_offset = l.device_offset;
  h->stacks_offset = l.stacks_offset;
  h->names_offset = l.names_offset;
  h->codes_offset = l.codes_offset;
}

// Why a header was rejected; kOk when accepted.
enum class HeaderCheck {
  kOk = 0,
  kTooSmall,  // mapping smaller than the header
  kBadMagic,
  kBadVersion,
  kBadRecordSizes,   // header_size / record_size / device_record_size differ from this build
  kBadGeometry,      // a geometry number outside the limits
  kBadOffsets,       // offsets or segment_size disagree with ComputeLayout
  kMappingTooSmall,  // segment_size larger than the bytes actually mapped
};

inline const char* HeaderCheckName(HeaderCheck c) {
  switch (c) {
    case HeaderCheck::kOk:
      return "ok";
    case HeaderCheck::kTooSmall:
      return "mapping smaller than the segment header";
    case HeaderCheck::kBadMagic:
      return "bad magic";
    case HeaderCheck::kBadVersion:
      return "unsupported version";
    case HeaderCheck::kBadRecordSizes:
      return "record sizes differ from this build";
    case HeaderCheck::kBadGeometry:
      return "geometry outside limits";
    case HeaderCheck::kBadOffsets:
      return "offsets disagree with the layout";
    case HeaderCheck::kMappingTooSmall:
      return "segment larger than the mapping";
  }
  return "unknown";
}

// Validates an (untrusted) header against `mapped_bytes`, the size actually mapped. On kOk, fills
// `geometry` and `layout` (copies: the caller must use these, never re-read the header's fields,
// which another process may change at any time).
inline HeaderCheck ValidateHeader(const SegmentHeader& h, uint64_t mapped_bytes,
                                  SegmentGeometry* geometry, SegmentLayout* layout) {
  if (mapped_bytes < kSegmentHeaderSize) return HeaderCheck::kTooSmall;
  // Copy every field once (volatile-free snapshot; a racing writer can only make checks fail).
  const uint64_t magic = h.magic;
  const uint32_t version = h.version;
  if (magic != kMagic) return HeaderCheck::kBadMagic;
  if (version != kVersion) return HeaderCheck::kBadVersion;
  if (h.header_size != kSegmentHeaderSize || h.record_size != sizeof(HostRecord) ||
      h.device_record_size != sizeof(DeviceRecord))
    return HeaderCheck::kBadRecordSizes;
  SegmentGeometry g;
  g.max_threads = h.max_threads;
  g.ring_capacity = h.ring_capacity;
  g.device_capacity = h.device_capacity;
  g.stack_slots = h.stack_slots;
  g.name_slots = h.name_slots;
  g.code_slots = h.code_slots;
  if (!IsValidGeometry(g)) return HeaderCheck::kBadGeometry;
  const SegmentLayout l = ComputeLayout(g);
  if (h.threads_offset != l.threads_offset || h.device_offset != l.device_offset ||
      h.stacks_offset != l.stacks_offset || h.names_offset != l.names_offset ||
      h.codes_offset != l.codes_offset ||
      h.segment_size != l.segment_size)
    return HeaderCheck::kBadOffsets;
  if (l.segment_size > mapped_bytes) return HeaderCheck::kMappingTooSmall;
  if (geometry != nullptr) *geometry = g;
  if (layout != nullptr) *layout = l;
  return HeaderCheck::kOk;
}

// Typed views of one segment, given its base address and a validated layout.
inline RingHeader* ThreadRingAt(void* base, const SegmentLayout& l, uint32_t index) {
  return reinterpret_cast<RingHeader*>(static_cast<char*>(base) + l.threads_offset +
                                       uint64_t{index} * l.thread_ring_stride);
}
inline HostRecord* ThreadRecords(RingHeader* ring) {
  return reinterpret_cast<HostRecord*>(reinterpret_cast<char*>(ring) + sizeof(RingHeader));
}
inline RingHeader* DeviceRingAt(void* base, const SegmentLayout& l) {
  return reinterpret_cast<RingHeader*>(static_cast<char*>(base) + l.device_offset);
}
inline DeviceRecord* DeviceRecords(RingHeader* ring) {
  return reinterpret_cast<DeviceRecord*>(reinterpret_cast<char*>(ring) + sizeof(RingHeader));
}
inline StackSlot* StackSlotsAt(void* base, const SegmentLayout& l) {
  return reinterpret_cast<StackSlot*>(static_cast<char*>(base) + l.stacks_offset);
}
inline NameSlot* NameSlotsAt(void* base, const SegmentLayout& l) {
  return reinterpret_cast<NameSlot*>(static_cast<char*>(base) + l.names_offset);
}
inline CodeSlot* CodeSlotsAt(void* base, const SegmentLayout& l) {
  return reinterpret_cast<CodeSlot*>(static_cast<char*>(base) + l.codes_offset);
}

}  // namespace brrr::ring

#endif  // BRRR_SHIM_SEGMENT_LAYOUT_H_
