// Record layout of activity buffers, as real CUPTI writes them: records of the kinds this
// simulation produces, packed back to back from the buffer's first byte, each record's size that
// of its CUPTI struct (all multiples of 8). RecordSize names the struct per kind; NextRecord is
// the iterator behind cuptiActivityGetNextRecord. Must never write to the buffer it reads.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_RECORD_LAYOUT_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_RECORD_LAYOUT_H_

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>

namespace simcuda::cupti {

// Size in bytes of the record struct for `kind`, or 0 for a kind this simulation never
// produces (its records would not be understood here).
size_t RecordSize(CUpti_ActivityKind kind);

// The smallest record this simulation produces; a buffer with less room left is full.
inline constexpr size_t kSmallestRecordSize = sizeof(CUpti_ActivityExternalCorrelation);

// Advances *record to the next record in buffer[0, valid_size) (to the first one when *record
// is null), like real cuptiActivityGetNextRecord:
//   CUPTI_ERROR_INVALID_PARAMETER   buffer or record null, or *record outside the buffer;
//   CUPTI_ERROR_MAX_LIMIT_REACHED   no further complete record (end, or truncated record);
//   CUPTI_ERROR_INVALID_KIND        the next record's kind is invalid or unknown (corrupt).
CUptiResult NextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record);

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_RECORD_LAYOUT_H_
