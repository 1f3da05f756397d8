// The terminal report's job view: for a job report, the PROCESSES table (a row per process: rank,
// pid, host, exit, wall, kernel launches, device time, verdict, and a second line with the busy
// time, the idle split, dropped records and the top stall) and the STRAGGLER line; for one
// process's report with a known rank, a line saying which rank of which host it was.
//
// Must never: print report strings unsanitized, or lines wider than kTextReportColumns.
#ifndef BRRR_VIEWER_RENDER_JOB_TEXT_H_
#define BRRR_VIEWER_RENDER_JOB_TEXT_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr {

inline constexpr size_t kMaxProcessRows = 64;

void AppendJobText(std::string& out, const Report& r);

}  // namespace brrr

#endif  // BRRR_VIEWER_RENDER_JOB_TEXT_H_
