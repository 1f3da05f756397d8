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
  const ring::SegmentLayout layout = ring::ComputeLayout(geometry);
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
    absl::Status status;
    if (ftruncate(fd, static_cast<off_t>(layout.segment_size)) != 0) {
      status = absl::ResourceExhaustedError(absl::StrCat(
          "ftruncate(", name, ", ", layout.segment_size, " bytes): ", strerror(errno)));
    }
    absl::StatusOr<std::unique_ptr<ShmMapping>> mapping =
        status.ok() ? ShmMapping::MapFd(fd, layout.segment_size, name)
                    : absl::StatusOr<std::unique_ptr<ShmMapping>>(status);
    close(fd);
    if (!mapping.ok()) {
      shm_unlink(name.c_str());
      return mapping.status();
    }
    InitializeSegmentHeader(geometry, static_cast<ring::SegmentHeader*>((*mapping)->base()));
    return std::unique_ptr<CreatedSegment>(new CreatedSegment(*std::move(mapping)));
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
