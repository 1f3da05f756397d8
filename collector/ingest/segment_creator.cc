// Creation of a `brrr run` segment. See segment_creator.h.
//
// Must never: open an existing name (O_EXCL), or leave a created name behind on failure.
#include "collector/ingest/segment_creator.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collector/ingest/clock_pair.h"
#include "shim/segment_reserve.h"

namespace brrr::ingest {

void InitializeSegmentHeader(const ring::SegmentGeometry& geometry, ring::SegmentHeader* header) {
  ring::WriteGeometry(geometry, header);
  const bool tsc = HasInvariantTsc();
  header->clock_kind = tsc ? ring::ClockKind::kTsc : ring::ClockKind::kMonotonicNs;
  const ClockPair pair = SampleClockPair();
  header->clock_tsc = tsc ? pair.tsc : static_cast<uint64_t>(pair.mono_ns);
  header->clock_mono_ns = static_cast<uint64_t>(pair.mono_ns);
  header->start_mono_ns = static_cast<uint64_t>(pair.mono_ns);
}

absl::StatusOr<std::unique_ptr<CreatedSegment>> CreatedSegment::Create(
    const ring::SegmentGeometry& geometry) {
  if (!ring::IsValidGeometry(geometry)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "invalid segment geometry: %u threads x %u records, device ring %u, %u stacks, %u names",
        geometry.max_threads, geometry.ring_capacity, geometry.device_capacity,
        geometry.stack_slots, geometry.name_slots));
  }
  std::random_device random;
  constexpr int kAttempts = 16;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const uint64_t salt = (uint64_t{random()} << 32) ^ random();
    const std::string name = absl::StrFormat("/brrr-%d-%016x", getpid(), salt);
    const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      return absl::InternalError(absl::StrCat("shm_open(", name, "): ", strerror(errno)));
    }
    const ring::SegmentReservation reserved = ring::ReserveSegment(fd, geometry);
    char why[512];
    const std::string note = ring::DescribeReservation(reserved, why, sizeof(why));
    absl::StatusOr<std::unique_ptr<ShmMapping>> mapping =
        reserved.ok ? ShmMapping::MapFd(fd, reserved.bytes, name)
                    : absl::StatusOr<std::unique_ptr<ShmMapping>>(
                          absl::ResourceExhaustedError(note));
    close(fd);
    if (!mapping.ok()) {
      shm_unlink(name.c_str());
      return mapping.status();
    }
    InitializeSegmentHeader(reserved.geometry,
                            static_cast<ring::SegmentHeader*>((*mapping)->base()));
    auto segment = std::unique_ptr<CreatedSegment>(new CreatedSegment(*std::move(mapping)));
    segment->note_ = note;
    return segment;
  }
  return absl::AlreadyExistsError("could not find a free shared-memory name");
}

void CreatedSegment::Unlink() {
  if (unlinked_) return;
  shm_unlink(mapping_->name().c_str());
  unlinked_ = true;
}

CreatedSegment::~CreatedSegment() { Unlink(); }

}  // namespace brrr::ingest
