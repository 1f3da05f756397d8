// Test support: a fully populated Report (every field set, awkward strings, extreme integers) and
// field-by-field equality, for the viewer's tests.
//
// Must never: be linked into anything but tests.
#ifndef BRRR_VIEWER_FORMAT_SAMPLE_REPORT_H_
#define BRRR_VIEWER_FORMAT_SAMPLE_REPORT_H_

#include <ostream>

#include "viewer/format/report.h"

namespace brrr {

// A launch-bound run on two devices with API stats, kernels, stalls with stacks, and strings that
// need escaping (quotes, backslashes, control characters, non-ASCII UTF-8).
Report SampleReport();

bool operator==(const Report& a, const Report& b);
inline bool operator!=(const Report& a, const Report& b) { return !(a == b); }

// For GoogleTest failure messages.
void PrintTo(const Report& report, std::ostream* os);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_SAMPLE_REPORT_H_
