// `brrr report FILE [--json | --chrome-trace OUT | --html OUT | --folded OUT |
// --folded-launches OUT | --pprof OUT | --perfetto OUT]`: render a saved .brrr file on stdout, or
// write views of it to files (the HTML page, folded stacks, a pprof profile, its event trace as
// Chrome trace / Perfetto JSON). See subcommands.h.
//
// Must never: print a partial report for a file it could not read, or write a trace export for a
// file without a trace section.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "collector/analysis/analysis.h"
#include "collector/analysis/api_catalog.h"
#include "collector/analysis/stall_classifier.h"
#include "collector/cli/subcommands.h"
#include "viewer/chrome_trace.h"
#include "viewer/folded_stacks.h"
#include "viewer/format/atomic_file.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/perfetto/perfetto_trace.h"
#include "viewer/pprof/pprof_profile.h"
#include "viewer/render_html.h"
#include "viewer/render_text.h"

namespace brrr::cli {
namespace {

// What the trace exports draw, with the collector's names and stall rule.
TraceViewOptions TraceOptions(const BrrrContents& contents) {
  TraceViewOptions chrome;
  chrome.process_name = contents.report.command;
  chrome.host_api_name = [](uint16_t api) { return std::string(ApiName(static_cast<Api>(api))); };
  chrome.cupti_call_name = [](bool driver, uint32_t cbid) { return CuptiCallName(driver, cbid); };
  // The analysis's rule for one call: long enough on the host and of a kind that waits for the
  // device (query polling, a pattern over several calls, is not marked).
  chrome.stall_reason = [](const TraceHostCall& call) {
    const uint64_t took = static_cast<uint64_t>(call.exit_ns) - static_cast<uint64_t>(call.enter_ns);
    if (call.exit_ns < call.enter_ns ||
        took < static_cast<uint64_t>(AnalysisOptions{}.stall_threshold_ns)) {
      return std::string();
    }
    BlockingCallFacts facts;
    facts.api = static_cast<Api>(call.api);
    facts.copy_kind = static_cast<CopyKind>(call.copy_kind);
    // A call seen through a CUPTI callback, as the analysis classifies it: by its runtime function
    // when brrr knows it, else by its CUPTI name.
    std::string cupti_name;
    if (call.source != kTraceCallHook) {
      const bool driver = call.source == kTraceCallDriverCallback;
      facts.api = ApiFromCbid(driver, call.cbid);
      if (facts.api == Api::kUnknown) {
        cupti_name = CuptiCallName(driver, call.cbid);
        facts.cupti_name = cupti_name;
      }
    }
    const StallReason reason = ClassifyBlockingCall(facts);
    return reason == StallReason::kNone ? std::string() : std::string(StallReasonName(reason));
  };
  return chrome;
}

// --chrome-trace and --perfetto: the file's event trace, in each format asked for.
int ExportTraces(const ReportOptions& options) {
  auto contents = ReadBrrrContents(options.file);
  if (!contents.ok()) {
    std::fprintf(stderr, "brrr report: %s\n", std::string(contents.status().message()).c_str());
    return 1;
  }
  if (!contents->trace.has_value()) {
    std::fprintf(stderr,
                 "brrr report: %s: no event trace in this file (record one with `brrr run "
                 "--trace[=N]` or BRRR_TRACE=N)\n",
                 options.file.c_str());
    return 1;
  }
  const TraceView view = BuildTraceView(*contents->trace, TraceOptions(*contents));
  contents->trace.reset();  // the view has all the writers need: never hold both longer
  int status = 0;
  for (const auto& [path, chrome] :
       {std::pair{options.chrome_trace, true}, std::pair{options.perfetto, false}}) {
    if (path.empty()) continue;
    // Written as it is made: the output is never whole in memory.
    absl::StatusOr<std::unique_ptr<AtomicFileWriter>> writer = AtomicFileWriter::Create(path);
    absl::Status written = writer.status();
    uint64_t bytes = 0;
    if (writer.ok()) {
      if (chrome) {
        WriteChromeTrace(view, **writer);
      } else {
        WritePerfettoTrace(view, **writer);
      }
      bytes = (*writer)->bytes_written();
      written = (*writer)->Commit();
    }
    if (!written.ok()) {
      std::fprintf(stderr, "brrr report: cannot write %s: %s\n", path.c_str(),
                   std::string(written.message()).c_str());
      status = 1;
      continue;
    }
    std::fprintf(
        stderr, "brrr: wrote %s (%s, %llu bytes): %llu events, %llu left out by the cap of %llu\n",
        path.c_str(), chrome ? "Chrome trace JSON" : "Perfetto trace",
        static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(view.totals.kept),
        static_cast<unsigned long long>(view.totals.omitted),
        static_cast<unsigned long long>(view.totals.cap));
  }
  return status;
}

// Writes `text` to `path`, saying so on stderr; false (and a message) when it cannot.
bool WriteView(const std::string& path, const std::string& text, absl::string_view what) {
  const absl::Status written = WriteFileAtomically(path, text);
  if (!written.ok()) {
    std::fprintf(stderr, "brrr report: cannot write %s: %s\n", path.c_str(),
                 std::string(written.message()).c_str());
    return false;
  }
  std::fprintf(stderr, "brrr: wrote %s (%s)\n", path.c_str(), std::string(what).c_str());
  return true;
}

// --html, --folded, --folded-launches (and --chrome-trace with them): every view asked for.
int ExportViews(const ReportOptions& options) {
  auto report = ReadBrrrFile(options.file);
  if (!report.ok()) {
    std::fprintf(stderr, "brrr report: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  bool ok = true;
  if (!options.html.empty()) ok &= WriteView(options.html, RenderHtml(*report), "HTML report");
  if (!options.folded.empty()) {
    ok &= WriteView(options.folded, FoldedStalls(*report),
                    "folded stall stacks, by blocked nanoseconds");
  }
  if (!options.folded_launches.empty()) {
    ok &= WriteView(options.folded_launches, FoldedLaunches(*report),
                    "folded launch sites, by estimated launches");
  }
  if (!options.pprof.empty()) {
    const absl::StatusOr<std::string> profile = RenderPprof(*report);
    if (!profile.ok()) {
      std::fprintf(stderr, "brrr report: cannot write %s: %s\n", options.pprof.c_str(),
                   std::string(profile.status().message()).c_str());
      ok = false;
    } else {
      ok &= WriteView(options.pprof, *profile,
                      "pprof profile: host_stall, device_time, launches; go tool pprof reads it");
    }
  }
  if (!options.chrome_trace.empty() || !options.perfetto.empty()) {
    ok &= ExportTraces(options) == 0;
  }
  return ok ? 0 : 1;
}

}  // namespace

int ReportSubcommand(const ReportOptions& options) {
  if (!options.html.empty() || !options.folded.empty() || !options.folded_launches.empty() ||
      !options.pprof.empty()) {
    return ExportViews(options);
  }
  if (!options.chrome_trace.empty() || !options.perfetto.empty()) return ExportTraces(options);
  auto report = ReadBrrrFile(options.file);
  if (!report.ok()) {
    std::fprintf(stderr, "brrr report: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  const std::string text = options.json ? RenderJson(*report) : RenderText(*report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace brrr::cli
