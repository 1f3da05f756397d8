// PROCESSES table and STRAGGLER line of the terminal report. See render_job_text.h.
//
// Must never: print a raw string from the report (everything goes through TerminalSafe/FitWidth).
#include "viewer/render_job_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "viewer/render_text.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

std::string Safe(absl::string_view text, size_t width) {
  return FitWidth(TerminalSafe(text), width, Elide::kEnd);
}

void Wrap(std::string& out, absl::string_view text, absl::string_view indent) {
  AppendWrapped(out, TerminalSafe(text), indent, kTextReportColumns);
}

std::string RankText(int64_t rank) { return rank >= 0 ? absl::StrCat(rank) : std::string("-"); }

void AppendRow(std::string& out, const ProcessRow& p, const std::string& job_command) {
  const std::string exit = p.exit_code.has_value() && p.ended == "exited"
                               ? absl::StrCat(*p.exit_code)
                               : p.ended.rfind("killed by signal ", 0) == 0
                                   ? absl::StrCat("sig ", p.ended.substr(17))
                                   : std::string("gone");
  absl::StrAppend(&out, "  ", PadLeft(RankText(p.rank), 5), "  ", PadLeft(absl::StrCat(p.pid), 8),
                  "  ", PadRight(Safe(p.host, 14), 14), " ", PadLeft(Safe(exit, 8), 8), "  ",
                  PadLeft(FormatDuration(p.wall_ns), 9), "  ",
                  PadLeft(FitWidth(FormatCount(p.kernels.launches), 11, Elide::kEnd), 11), "  ",
                  PadLeft(FormatDuration(p.kernels.device_ns), 9), "  ",
                  Safe(p.verdict.regime.empty() ? "-" : p.verdict.regime, 15), "\n");
  std::vector<std::string> parts;
  int64_t busy = 0;
  IdleBreakdown idle;
  for (const DeviceBreakdown& d : p.devices) {
    busy += d.busy_ns;
    idle.launch_bound_ns += d.idle.launch_bound_ns;
    idle.sync_drain_ns += d.idle.sync_drain_ns;
    idle.host_outside_cuda_ns += d.idle.host_outside_cuda_ns;
  }
  if (!p.devices.empty()) {
    parts.push_back(absl::StrCat("busy ", FormatDuration(busy), ", idle: launch-bound ",
                                 FormatDuration(idle.launch_bound_ns), ", sync ",
                                 FormatDuration(idle.sync_drain_ns), ", host outside CUDA ",
                                 FormatDuration(idle.host_outside_cuda_ns)));
  }
  // Its busy time is not its own work: say what it was.
  if (p.verdict.regime == "collective-wait" && !p.verdict.why.empty()) {
    parts.push_back(p.verdict.why);
  }
  if (p.ended != "exited") parts.push_back(p.ended);
  if (p.events_dropped > 0) {
    parts.push_back(absl::StrCat(FormatCount(p.events_dropped), " records dropped (ring full)"));
  }
  if (!p.top_stall.empty()) parts.push_back(absl::StrCat("top stall ", p.top_stall));
  if (!p.command.empty() && p.command != job_command) parts.push_back(p.command);
  if (!parts.empty()) Wrap(out, absl::StrJoin(parts, "; "), "           ");
}

void AppendCollectives(std::string& out, const JobCollectives& c) {
  absl::StrAppend(&out, "COLLECTIVES  ", FormatCount(c.count), " matched across ", c.processes,
                  " processes; clocks: ", Safe(c.alignment, 60), "\n");
  absl::StrAppend(&out, "  ", PadLeft("RANK", 5), "  ", PadLeft("PID", 8), "  ",
                  PadLeft("WAITED", 9), "  ", PadLeft("LAST TO ARRIVE", 14), "  ",
                  PadLeft("OTHERS WAITED FOR IT", 20), "\n");
  for (size_t i = 0; i < c.waits.size() && i < kMaxProcessRows; ++i) {
    const CollectiveWait& w = c.waits[i];
    absl::StrAppend(&out, "  ", PadLeft(RankText(w.rank), 5), "  ", PadLeft(absl::StrCat(w.pid), 8),
                    "  ", PadLeft(FormatDuration(w.wait_ns), 9), "  ",
                    PadLeft(absl::StrCat(FormatCount(w.last_arrivals), " (",
                                         FormatPercent(static_cast<int64_t>(w.last_arrivals),
                                                       static_cast<int64_t>(c.count)),
                                         ")"),
                            14),
                    "  ", PadLeft(FormatDuration(w.caused_wait_ns), 20), "\n");
  }
  if (c.waits.size() > kMaxProcessRows) {
    absl::StrAppend(&out, "  ... ", c.waits.size() - kMaxProcessRows, " more in the JSON\n");
  }
  if (c.unmatched > 0) {
    Wrap(out,
         absl::StrCat(FormatCount(c.unmatched),
                      " collectives of some processes had no counterpart on every other one "
                      "(not matched)"),
         "  ");
  }
}

}  // namespace

void AppendJobText(std::string& out, const Report& r) {
  if (!r.job.has_value()) {
    if (r.process.has_value() && r.process->rank >= 0) {
      const ProcessIdentity& p = *r.process;
      absl::StrAppend(&out, "rank ", p.rank,
                      p.world_size > 0 ? absl::StrCat(" of ", p.world_size) : std::string(),
                      " (", Safe(p.rank_from, 30), ") on ", Safe(p.host, 40), ", pid ", p.pid,
                      "\n");
    }
    return;
  }
  const JobSummary& job = *r.job;
  absl::StrAppend(&out, "\nPROCESSES  ", job.processes, " processes, ", job.ranks, " ranks\n");
  absl::StrAppend(&out, "  ", PadLeft("RANK", 5), "  ", PadLeft("PID", 8), "  ",
                  PadRight("HOST", 14), " ", PadLeft("EXIT", 8), "  ", PadLeft("WALL", 9), "  ",
                  PadLeft("LAUNCHES", 11), "  ", PadLeft("DEVICE", 9), "  VERDICT\n");
  for (size_t i = 0; i < r.processes.size() && i < kMaxProcessRows; ++i) {
    AppendRow(out, r.processes[i], r.command);
  }
  if (r.processes.size() > kMaxProcessRows) {
    absl::StrAppend(&out, "  ... ", r.processes.size() - kMaxProcessRows,
                    " more processes in the JSON\n");
  }
  if (!job.timeline_note.empty()) Wrap(out, job.timeline_note, "  ");
  if (job.straggler.has_value()) {
    absl::StrAppend(&out, "STRAGGLER\n");
    Wrap(out, job.straggler->why, "  ");
  } else if (job.processes > 1) {
    absl::StrAppend(&out,
                    "STRAGGLER  none: the processes are even (none spent 25% and 10 ms more on "
                    "the host outside CUDA than the median)\n");
  }
  if (job.collectives.has_value()) AppendCollectives(out, *job.collectives);
}

}  // namespace brrr
