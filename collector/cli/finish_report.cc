// Finishing a collection: analysis, symbolization, file, printed report. See finish_report.h.
//
// Must never: abort on a write error (it is reported and returned).
#include "collector/cli/finish_report.h"

#include <sys/resource.h>

#include <time.h>

#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "collector/cli/output_path.h"
#include "collector/counters/counter_table.h"
#include "collector/counters/pm_sampling_probe.h"
#include "collector/symbolize/mixed_stack_symbolizer.h"
#include "collector/symbolize/symbolizer.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/render_text.h"

namespace brrr::cli {
namespace {

int64_t ReadClock(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// CLOCK_REALTIME minus CLOCK_MONOTONIC now: of a few readings of the wall clock between two of the
// monotonic one, the one whose bracket was narrowest, against the bracket's midpoint.
int64_t RealtimeMinusMonotonic() {
  int64_t best_gap = INT64_MAX, offset = 0;
  for (int i = 0; i < 5; ++i) {
    const int64_t before = ReadClock(CLOCK_MONOTONIC);
    const int64_t wall = ReadClock(CLOCK_REALTIME);
    const int64_t after = ReadClock(CLOCK_MONOTONIC);
    if (after - before < best_gap) {
      best_gap = after - before;
      offset = wall - (before + (after - before) / 2);
    }
  }
  return offset;
}

}  // namespace

RunInfo MergeRunInfo(const RunInfo& from_reader, const RunInfo& from_caller) {
  RunInfo info = from_reader;
  if (!from_caller.command.empty()) info.command = from_caller.command;
  if (from_caller.pid != 0) info.pid = from_caller.pid;
  if (info.start_ns == 0) info.start_ns = from_caller.start_ns;
  if (from_caller.end_ns != 0) info.end_ns = from_caller.end_ns;
  if (from_caller.exited_normally || from_caller.term_signal != 0) {
    info.exited_normally = from_caller.exited_normally;
    info.exit_code = from_caller.exit_code;
    info.term_signal = from_caller.term_signal;
  }
  return info;
}

void SetTimelineOrigin(std::optional<int64_t> origin_ns, Report& report) {
  // The timeline's start on the wall clock, so that a job's processes (other hosts too, as far
  // as their clocks agree) can be put on one clock (collector/job/job_timeline.h).
  if (report.timeline.has_value() && origin_ns.has_value()) {
    report.timeline->origin_unix_ns = *origin_ns + RealtimeMinusMonotonic();
  }
  // Likewise the collective kernels' times (collector/job/collective_waits.h).
  if (report.collectives.has_value()) {
    report.collectives->unix_minus_monotonic_ns = RealtimeMinusMonotonic();
  }
}

std::string ReportFile(const ReportOutput& output, pid_t pid, int64_t rank,
                       const std::string& host) {
  return output.destination != nullptr
             ? output.destination->path()
             : ExpandOutputPattern(output.output_pattern, pid, rank, host);
}

ReportOutput ChooseReportOutput(const EnvSettings& env, const std::string& output_option,
                                bool quiet_option, bool json, bool counters_option) {
  ReportOutput output;
  output.output_pattern =
      ChooseOutputPattern(output_option, env.Text(Setting::kOutput).value_or("").c_str());
  output.json = json;
  output.quiet = quiet_option || env.Bool(Setting::kQuiet).value_or(false);
  output.counters_requested = counters_option || env.Bool(Setting::kCounters).value_or(false);
  return output;
}

Report FinishReport(const ingest::SegmentReader& reader, Analysis& analysis,
                    const symbolize::ProcessMaps& maps, const RunInfo& info, bool counters_requested) {
  analysis.SetRunInfo(info);
  // Hardware counters: what the shim's PM sampler published (ring_format.h R9), or, when the
  // shim did not take part although they were asked for, whether they could have been used.
  const counters::CounterOutcome sampled =
      counters::OutcomeOf(counters::ReadCounterTable(reader.SharedHeader()));
  if (sampled.shim_sampled) {
    analysis.SetCounterOutcome(sampled.measured, sampled.unavailable, sampled.metrics);
  } else if (counters_requested) {
    const counters::CounterAvailability a =
        counters::ProbePmSampling(counters::LoadPmSamplingEntryPoints());
    analysis.SetCounterOutcome(
        std::nullopt, a.available ? "PM sampling is available on this GPU, but the app's shim did "
                                    "not sample it (it made no CUDA call, or predates counters)"
                                  : a.reason);
  }
  symbolize::Symbolizer symbolizer(&maps);
  // Native frames, with the Python frames of each stack where the interpreter's frames were.
  symbolize::SymbolizerFrames native(&symbolizer, &maps);
  symbolize::MixedStackSymbolizer frames(&native, &reader.codes(), info.python_version);
  Report report = analysis.Finish([&](uint32_t stack_id) -> std::vector<std::string> {
    const std::vector<uint64_t>* pcs = reader.stacks().Pcs(stack_id);
    if (pcs == nullptr) return {};
    return frames.Frames(*pcs);
  });
  SetTimelineOrigin(analysis.timeline_origin_ns(), report);
  if (report.overhead.has_value()) {  // the collector's own CPU: this process's, so far
    rusage self{};
    if (getrusage(RUSAGE_SELF, &self) == 0) {
      report.overhead->collector_cpu_ns =
          (int64_t{self.ru_utime.tv_sec} + self.ru_stime.tv_sec) * 1'000'000'000 +
          (int64_t{self.ru_utime.tv_usec} + self.ru_stime.tv_usec) * 1'000;
    }
  }
  const std::string damage = reader.stats().ToString();
  if (reader.stats().Damage() > 0) {
    std::fprintf(stderr, "brrr: warning: the shared memory was damaged; clamped or skipped: %s\n",
                 damage.c_str());
  }
  return report;
}

absl::Status WriteAndPrint(const Report& given, const std::string& path,
                           const ReportOutput& output, const Trace* trace) {
  Report with_trace;
  if (trace != nullptr) {  // the report says what the saved trace kept, and whether it was cut
    with_trace = given;
    with_trace.trace = TraceSummary{trace->cap, trace->kept(), trace->omitted(),
                                    trace->KeptSpanNs()};
  }
  const Report& report = trace != nullptr ? with_trace : given;
  std::string moved;  // the chosen name was taken meanwhile: said even when quiet
  const bool own = output.destination != nullptr && path == output.destination->path();
  const absl::Status written =
      own ? output.destination->Write(report, trace, &moved) : WriteBrrrFile(path, report, trace);
  const std::string where = own ? output.destination->path() : path;
  if (!moved.empty()) std::fprintf(stderr, "brrr: %s\n", moved.c_str());
  if (!written.ok()) {
    std::fprintf(stderr, "brrr: cannot write %s: %s\n", where.c_str(),
                 std::string(written.message()).c_str());
  } else if (!output.quiet) {
    std::fprintf(stderr, "brrr: wrote %s\n", where.c_str());
    if (trace != nullptr) {
      std::fprintf(stderr,
                   "brrr: event trace: %llu events kept, %llu left out by the cap of %llu "
                   "(export: brrr report %s --chrome-trace OUT.json)\n",
                   static_cast<unsigned long long>(trace->kept()),
                   static_cast<unsigned long long>(trace->omitted()),
                   static_cast<unsigned long long>(trace->cap), where.c_str());
    }
  }
  if (!output.quiet) {
    const std::string text = output.json ? RenderJson(report) : RenderText(report);
    std::fwrite(text.data(), 1, text.size(), stderr);
    if (!text.empty() && text.back() != '\n') std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  return written;
}

absl::Status FinishAndReport(const ingest::SegmentReader& reader, Analysis& analysis,
                             const symbolize::ProcessMaps& maps, const RunInfo& info, pid_t app_pid,
                             const ReportOutput& output, const Trace* trace,
                             const ProcessIdentity* identity) {
  Report report = FinishReport(reader, analysis, maps, info, output.counters_requested);
  if (identity != nullptr) report.process = *identity;
  const std::string path = identity != nullptr
                               ? ReportFile(output, app_pid, identity->rank, identity->host)
                               : ReportFile(output, app_pid);
  return WriteAndPrint(report, path, output, trace);
}

}  // namespace brrr::cli
