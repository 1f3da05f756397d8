// Test support: a small Trace with every kind of record, awkward values (extreme and negative
// timestamps, a mangled and an escaping-hungry kernel name, an unnamed copy) and omitted counts.
//
// Must never: be linked into anything but tests.
#ifndef BRRR_VIEWER_FORMAT_SAMPLE_TRACE_H_
#define BRRR_VIEWER_FORMAT_SAMPLE_TRACE_H_

#include "viewer/format/trace.h"

namespace brrr {

Trace SampleTrace();

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_SAMPLE_TRACE_H_
