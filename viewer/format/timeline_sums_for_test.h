// Test support: what "a timeline adds up to its breakdown" means, written once. A device
// timeline's buckets added up part by part, a device breakdown's parts as one bucket, and both
// described as one line so a test compares them with EXPECT_EQ and a failure shows every part.
//
// Must never: be used outside tests (it checks nothing itself and hides no overflow).
#ifndef BRRR_VIEWER_FORMAT_TIMELINE_SUMS_FOR_TEST_H_
#define BRRR_VIEWER_FORMAT_TIMELINE_SUMS_FOR_TEST_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "viewer/format/report.h"

namespace brrr {

inline TimelineBucket SumOfBuckets(const DeviceTimeline& t) {
  TimelineBucket s;
  for (const TimelineBucket& b : t.buckets) {
    s.busy_ns += b.busy_ns;
    s.launch_bound_ns += b.launch_bound_ns;
    s.sync_drain_ns += b.sync_drain_ns;
    s.host_outside_cuda_ns += b.host_outside_cuda_ns;
    s.startup_ns += b.startup_ns;
    s.teardown_ns += b.teardown_ns;
  }
  return s;
}

inline TimelineBucket PartsOf(const DeviceBreakdown& d) {
  TimelineBucket p;
  p.busy_ns = d.busy_ns;
  p.launch_bound_ns = d.idle.launch_bound_ns;
  p.sync_drain_ns = d.idle.sync_drain_ns;
  p.host_outside_cuda_ns = d.idle.host_outside_cuda_ns;
  p.startup_ns = d.startup_ns;
  p.teardown_ns = d.teardown_ns;
  return p;
}

inline std::string DescribeParts(const TimelineBucket& b) {
  return absl::StrCat("busy ", b.busy_ns, ", launch-bound ", b.launch_bound_ns, ", sync drain ",
                      b.sync_drain_ns, ", outside CUDA ", b.host_outside_cuda_ns, ", start-up ",
                      b.startup_ns, ", teardown ", b.teardown_ns);
}

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_TIMELINE_SUMS_FOR_TEST_H_
