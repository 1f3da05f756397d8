// Validation of the API number in a host record: the enum in ring_format.h has gaps, so a value
// below kApiCount is not necessarily a real API.
//
// Must never: treat kUnknown (0) or any gap value as known.
#ifndef BRRR_COLLECTOR_INGEST_KNOWN_API_H_
#define BRRR_COLLECTOR_INGEST_KNOWN_API_H_

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::ingest {

// True when `value` is one of ring::Api's named enumerators other than kUnknown.
bool IsKnownApi(uint16_t value);

// How many values IsKnownApi accepts (for tests that compare against ring_format.h).
int KnownApiCount();

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_KNOWN_API_H_
