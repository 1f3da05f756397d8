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
// A sampled-tracing section and a cost section for the report's tests (SampleReport has neither):
// 10 % asked, 42 windows, 2.10 s traced, 9,876 launch calls traced, x9.75, device 1 busy 37.5 %
// +/- 1.25 points over 41 windows; ~0.75 % of wall, hooks 12,345,678 ns, device tracing unknown,
// collector CPU 250 ms.
DeviceSampling SampleDeviceSampling();
Overhead SampleOverhead();

bool operator==(const Report& a, const Report& b);
inline bool operator!=(const Report& a, const Report& b) { return !(a == b); }

// For GoogleTest failure messages.
void PrintTo(const Report& report, std::ostream* os);

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_SAMPLE_REPORT_H_
