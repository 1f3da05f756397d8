// Who the collectives waited for. A job's processes that ran collective kernels (their reports'
// `collectives`) are matched by order: the k-th kernel of each process's n-th collective stream
// (streams in the order of their first collective) is one collective. A process arrives at it
// when its kernel starts; the collective's work begins when the last process arrives, so each
// process's wait is the last arrival minus its own, and the rest of its kernel is the transfer
// (DESIGN.md fact 16).
//
// Clocks: processes of one host share CLOCK_MONOTONIC and are compared as they are. With several
// hosts, times go on the wall clock (each log's unix_minus_monotonic_ns) and then each host is
// shifted so that its processes leave the collectives when the first host's do (every rank leaves
// a collective at nearly the same moment): the median, over the matched collectives, of the
// first host's first process's end minus the host's process's end.
//
// Must never: match processes whose logs cannot be compared (sampled device tracing keeps only
// some kernels; a host's clock offset unknown), or read past a log's vectors.
#ifndef BRRR_COLLECTOR_JOB_COLLECTIVE_WAITS_H_
#define BRRR_COLLECTOR_JOB_COLLECTIVE_WAITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::job {

struct CollectiveParticipant {
  int64_t rank = -1;
  uint32_t pid = 0;
  std::string host;
  const CollectiveLog* log = nullptr;  // nullptr or empty: takes no part
  bool sampled = false;                // device tracing was sampled: takes no part
};

// The matched collectives of the participants that have a log; absent with fewer than two.
// `waits` keep the participants' order.
std::optional<JobCollectives> MatchCollectives(const std::vector<CollectiveParticipant>& in);

// The straggler the collectives name: the last arriver, when it arrived last at more than half
// of at least kMinCollectivesForStraggler collectives and the others waited at least
// kStragglerMinGapNs (straggler.h) for it in all. Basis "collectives".
inline constexpr uint64_t kMinCollectivesForStraggler = 3;
std::optional<Straggler> StragglerFromCollectives(const JobCollectives& c);

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_COLLECTIVE_WAITS_H_
