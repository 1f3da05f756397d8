// The straggler of a job by host time, when its collectives do not name one (collective_waits.h):
// the rank the others would wait for at every synchronization. Its figure is
// the host time outside CUDA while its devices idled (the rank's own host work; the ranks that
// wait for it spend that time inside CUDA: a sync or a collective kernel), or the wall time when
// no process recorded device time. The rank with the largest figure is the straggler when it
// exceeds the median rank's by at least kStragglerRatio and kStragglerMinGapNs; otherwise the
// ranks are even and there is none. Needs no common clock: every figure is one process's own.
//
// Basis "host_outside_cuda", or "wall" when no process recorded device time.
//
// Must never: name a straggler among fewer than two processes, or when the largest figure is tied.
#ifndef BRRR_COLLECTOR_JOB_STRAGGLER_H_
#define BRRR_COLLECTOR_JOB_STRAGGLER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::job {

inline constexpr double kStragglerRatio = 1.25;          // 25% over the median
inline constexpr int64_t kStragglerMinGapNs = 10'000'000;  // and at least 10 ms more

// The figure compared across processes (see above); `by_device` picks which of the two.
int64_t StragglerFigure(const ProcessRow& row, bool by_device);

std::optional<Straggler> FindStraggler(const std::vector<ProcessRow>& rows);

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_STRAGGLER_H_
