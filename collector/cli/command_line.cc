// brrr's command-line parsing. See command_line.h.
//
// Must never: read the environment or touch files (callers do).
#include "collector/cli/command_line.h"

#include <limits>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "collector/cli/env_settings.h"
#include "collector/cli/live_snapshot.h"
#include "collector/cli/metrics_server.h"
#include "collector/cli/steps_setting.h"
#include "shim/capture_range.h"
#include "shim/segment_layout.h"
#include "viewer/format/trace.h"

namespace brrr::cli {
namespace {

// Splits "--name=value" into name and value; true when an '=' was present.
bool SplitInlineValue(const std::string& arg, std::string* name, std::string* value) {
  const size_t eq = arg.find('=');
  if (!absl::StartsWith(arg, "--") || eq == std::string::npos) {
    *name = arg;
    return false;
  }
  *name = arg.substr(0, eq);
  *value = arg.substr(eq + 1);
  return true;
}

// Fetches the value of option `name` at args[*i] (inline or the next argument).
absl::StatusOr<std::string> TakeValue(const std::vector<std::string>& args, size_t* i,
                                      const std::string& name, bool has_inline,
                                      const std::string& inline_value) {
  if (has_inline) {
    if (inline_value.empty())
      return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
    return inline_value;
  }
  if (*i + 1 >= args.size())
    return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
  ++*i;
  if (args[*i].empty()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
  return args[*i];
}

}  // namespace

std::string UsageText() {
  return R"(usage:
  brrr run [options] -- CMD [ARGS...]   profile CMD; print the report and write a .brrr file
      --output FILE      where to write the file (%p = the app's pid, %r its rank, %h the host;
                         default: $BRRR_OUTPUT, else brrr-%p.brrr)
      --json             print the report as JSON ("brrr.report/1") instead of text
      --quiet            print no report (the file is still written)
      --no-stacks        do not capture call stacks
      --no-cupti         host-only: do not enable CUPTI
      --counters         hardware counters (CUPTI PM sampling) for compute vs bandwidth where the
                         GPU and driver allow them; else kernel classes, with the reason (also
                         BRRR_COUNTERS=1)
      --ring-records N   records per thread ring (a power of two, 8 .. 4194304)
      --trace[=N]        also save the first N events (default 4000000, at most 100000000) as a
                         full event trace in the file (also BRRR_TRACE=N; 0 = off); each event
                         costs ~65 bytes of the collector's memory and 52 of the file
      --capture-range=cudaProfilerApi   record only between cudaProfilerStart and cudaProfilerStop
      --capture-range=nvtx:NAME         record only inside NVTX ranges named NAME
      --sample-device=PCT  trace device activity (CUPTI) for PCT of the run's time, in 50 ms
                         windows at random phases (10%, 2.5%; default 100%; also
                         BRRR_SAMPLE_DEVICE): cuts tracing's cost by about as much; host calls
                         and stalls are all still recorded; device figures become estimates
      --overhead-budget=PCT  keep brrr's measured cost on the app under PCT of wall (2%, 0.5%):
                         device tracing is sampled (from 2%, or --sample-device) and its share
                         steered once a second from the cost measured in the run (also
                         BRRR_OVERHEAD_BUDGET)
      --steps=nvtx:NAME  the NVTX ranges that are the loop's steps, each top-level one (default:
                         ranges named ProfilerStep#N, as torch.profiler's schedule names them;
                         also BRRR_STEPS): the report's STEPS, with the outlier steps
      --snapshot-every DURATION  rewrite the .brrr file this often while CMD runs (10s, 500ms,
                         2m; default 10s; 0 = off; also BRRR_SNAPSHOT_EVERY): brrr report FILE
                         works on a running job
      --metrics-addr HOST:PORT  serve Prometheus metrics at http://HOST:PORT/metrics while CMD
                         runs (HOST defaults to 127.0.0.1; PORT 0: a free port, said
                         on stderr; also BRRR_METRICS_ADDR)
    exits with CMD's status (128+N when a signal N killed it; 127: not found; 125: brrr failed)
    every process of CMD's tree that uses CUDA is profiled; several give one job report
  brrr merge FILE... --output JOB.brrr [--json] [--quiet]
                                        join per-process .brrr files (e.g. one per rank, from
                                        plain LD_PRELOAD runs on many hosts) into one job report
  brrr diff A.brrr B.brrr [--json] [--html OUT] [--folded-diff OUT] [--fail-if EXPR]...
                                        compare two runs (before, after): metrics per step with
                                        their significance, syncing calls and stalls that
                                        appeared, went or changed, kernels; --fail-if
                                        'METRIC > +N%' (also > +N, < -N%, >=, <=) exits 1 when
                                        it holds (a timing only if significant, a count on any
                                        change), 2 on usage errors. Gate on the exact counts:
                                        'new_sync_sites > 0', 'sync_calls_per_step > +0',
                                        'sync_calls_per_step[cudaFree] > +0' (any API),
                                        'launches_per_step > +10%'; timings: step_wall_p50_ns,
                                        step_wall_p99_ns, stall_ns_per_step, ... (the diff
                                        lists every metric it has)
  brrr report FILE [--json]             render a saved .brrr file on stdout
  brrr report FILE --chrome-trace OUT   export the file's event trace as Chrome trace / Perfetto
                                        JSON (open in ui.perfetto.dev or chrome://tracing)
  brrr report FILE --perfetto OUT.pftrace  the same trace as a native Perfetto trace (protobuf,
                                        4x smaller or more; for ui.perfetto.dev)
  brrr report FILE --html OUT.html      write the report as one self-contained HTML page
  brrr report FILE --folded OUT         folded stacks of the stalls (by blocked ns) for
                                        flamegraph.pl, speedscope or inferno
  brrr report FILE --folded-launches OUT  folded stacks of the sampled launch sites (by launches)
  brrr report FILE --pprof OUT.pb.gz    a pprof profile: host_stall (ns on stall stacks),
                                        device_time (each kernel on its launch stack) and
                                        launches, for go tool pprof, Pyroscope, Parca, Grafana
  brrr attach --shm NAME --pid PID      (started by libbrrr.so) collect from a running app
  brrr ctl PID pause|resume|snapshot    control a running app (its pid, or brrr run's): pause
                                        recording (hooks only forward, CUPTI off), resume, or
                                        write a snapshot of its report now; owner only
  brrr settings                         list every BRRR_* setting: default, meaning, values
  brrr clean [--dry-run]                remove your leftover shared-memory segments of runs whose
                                        processes are gone, including those kept for recovery
                                        (brrr removes a dead run's segment by itself once its
                                        report is written, else after 7 days)
  brrr preload-path                     print the path of libbrrr.so, for LD_PRELOAD=$(brrr
                                        preload-path) ./app
  brrr man                              print this page as a man page (roff)
  brrr --version                        brrr's version, its file formats, the CUDA it was built
                                        against
  brrr --help
)";
}

std::string SubcommandUsage(const std::string& sub) {
  const std::string usage = UsageText();
  const std::string head = absl::StrCat("  brrr ", sub, " ");
  std::string out = "usage:\n";
  bool in = false;
  for (absl::string_view line : absl::StrSplit(usage, '\n')) {
    if (absl::StartsWith(line, "  brrr ")) in = absl::StartsWith(line, head);
    if (in) absl::StrAppend(&out, line, "\n");
  }
  return out == "usage:\n" ? std::string() : out;
}

absl::StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args) {
  RunOptions options;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!absl::StartsWith(arg, "-") || arg == "-") break;  // the command starts here
    std::string name, value;
    const bool has_inline = SplitInlineValue(arg, &name, &value);
    const bool flag =
        name == "--json" || name == "--quiet" || name == "--no-stacks" || name == "--no-cupti" ||
        name == "--counters";
    if (flag && has_inline) {
      return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
    }
    if (name == "--json") {
      options.json = true;
    } else if (name == "--quiet") {
      options.quiet = true;
    } else if (name == "--no-stacks") {
      options.no_stacks = true;
    } else if (name == "--no-cupti") {
      options.no_cupti = true;
    } else if (name == "--counters") {
      options.counters = true;
    } else if (name == "--output" || name == "-o") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      options.output = *v;
    } else if (name == "--trace") {
      // The value is optional, so only the inline form takes one: `--trace CMD` runs CMD.
      if (!has_inline) {
        options.trace_cap = kDefaultTraceCap;
      } else {
        auto cap = ParseNumberOption(Setting::kTrace, "--trace", value);
        if (!cap.ok()) return cap.status();
        options.trace_cap = *cap;  // 0: no trace, as BRRR_TRACE=0
      }
    } else if (name == "--capture-range") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      shim::CaptureRange range;
      if (!shim::ParseCaptureRange(v->c_str(), &range)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--capture-range: '", *v, "' is not cudaProfilerApi or nvtx:NAME (NAME 1 to ",
            ring::kMaxNameLength, " bytes)"));
      }
      options.capture_range = *v;
    } else if (name == "--sample-device" || name == "--overhead-budget") {
      // Percents passed to the shim as their settings, checked here by the same rule.
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      const bool sample = name == "--sample-device";
      if (auto pct = ParseNumberOption(sample ? Setting::kSampleDevice : Setting::kOverheadBudget,
                                       name, *v);
          !pct.ok()) {
        return pct.status();
      }
      (sample ? options.sample_device : options.overhead_budget) = *v;
    } else if (name == "--steps") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      if (!ParseStepsSelector(*v).has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--steps: '", *v, "' is not nvtx:NAME (NAME 1 to ", ring::kMaxNameLength, " bytes)"));
      }
      options.steps = *v;
    } else if (name == "--metrics-addr") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      if (auto parsed = ParseMetricsAddress(*v); !parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--metrics-addr: ", parsed.status().message()));
      }
      options.metrics_addr = *v;
    } else if (name == "--snapshot-every") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      if (auto every = ParseSnapshotEvery(*v); !every.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--snapshot-every: ", every.status().message()));
      }
      options.snapshot_every = *v;
    } else if (name == "--ring-records") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      auto records = ParseNumberOption(Setting::kRingRecords, name, *v);
      if (!records.ok()) return records.status();
      options.ring_records = static_cast<uint32_t>(*records);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    }
  }
  options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (options.command.empty() || options.command[0].empty()) {
    return absl::InvalidArgumentError("no command to run (brrr run [options] -- CMD ARGS...)");
  }
  return options;
}

absl::StatusOr<AttachOptions> ParseAttachOptions(const std::vector<std::string>& args) {
  AttachOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name, value;
    const bool has_inline = SplitInlineValue(args[i], &name, &value);
    if (name == "--shm") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      if ((*v)[0] != '/' || v->find('/', 1) != std::string::npos || v->size() > 250) {
        return absl::InvalidArgumentError(absl::StrCat("--shm: '", *v, "' is not /NAME"));
      }
      options.shm = *v;
    } else if (name == "--pid") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      int64_t pid = 0;
      if (!absl::SimpleAtoi(*v, &pid) || pid <= 0 || pid > std::numeric_limits<pid_t>::max()) {
        return absl::InvalidArgumentError(absl::StrCat("--pid: '", *v, "' is not a process id"));
      }
      options.pid = static_cast<pid_t>(pid);
    } else if (name == "--stderr") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      auto identity = ParseStderrIdentity(*v);
      if (!identity.ok()) return identity.status();
      options.app_stderr = *identity;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument '", args[i], "'"));
    }
  }
  if (options.shm.empty()) return absl::InvalidArgumentError("attach needs --shm NAME");
  if (options.pid == 0) return absl::InvalidArgumentError("attach needs --pid PID");
  return options;
}

absl::StatusOr<MergeOptions> ParseMergeOptions(const std::vector<std::string>& args) {
  MergeOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string name, value;
    const bool has_inline = SplitInlineValue(arg, &name, &value);
    if (name == "--json" && !has_inline) {
      options.json = true;
    } else if (name == "--quiet" && !has_inline) {
      options.quiet = true;
    } else if (name == "--output" || name == "-o") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      options.output = *v;
    } else if (absl::StartsWith(arg, "-") && arg != "-") {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    } else {
      options.files.push_back(arg);
    }
  }
  if (options.files.empty()) return absl::InvalidArgumentError("merge needs at least one FILE");
  if (options.output.empty()) return absl::InvalidArgumentError("merge needs --output JOB.brrr");
  return options;
}

absl::StatusOr<DiffOptions> ParseDiffOptions(const std::vector<std::string>& args) {
  DiffOptions options;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string name, value;
    const bool has_inline = SplitInlineValue(arg, &name, &value);
    if (name == "--json" && !has_inline) {
      options.json = true;
    } else if (name == "--html" || name == "--folded-diff" || name == "--fail-if") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      if (name == "--html") {
        options.html = *v;
      } else if (name == "--folded-diff") {
        options.folded_diff = *v;
      } else {
        options.fail_if.push_back(*v);
      }
    } else if (absl::StartsWith(arg, "-") && arg != "-") {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2) {
    return absl::InvalidArgumentError("diff needs two files: brrr diff A.brrr B.brrr");
  }
  options.a = files[0];
  options.b = files[1];
  return options;
}

absl::StatusOr<ReportOptions> ParseReportOptions(const std::vector<std::string>& args) {
  ReportOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string name, value;
    const bool has_inline = SplitInlineValue(arg, &name, &value);
    if (name == "--json" && !has_inline) {
      options.json = true;
    } else if (name == "--chrome-trace" || name == "--perfetto") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      (name == "--perfetto" ? options.perfetto : options.chrome_trace) = *v;
    } else if (name == "--html" || name == "--folded" || name == "--folded-launches" ||
               name == "--pprof") {
      auto v = TakeValue(args, &i, name, has_inline, value);
      if (!v.ok()) return v.status();
      (name == "--html"              ? options.html
       : name == "--folded"          ? options.folded
       : name == "--folded-launches" ? options.folded_launches
                                     : options.pprof) = *v;
    } else if (absl::StartsWith(arg, "-") && arg != "-") {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    } else if (options.file.empty()) {
      options.file = arg;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
    }
  }
  if (options.file.empty()) return absl::InvalidArgumentError("report needs a FILE");
  if (options.json && !(options.chrome_trace.empty() && options.perfetto.empty())) {
    return absl::InvalidArgumentError(
        "--json cannot be combined with --chrome-trace or --perfetto");
  }
  if (options.json && !(options.html.empty() && options.folded.empty() &&
                        options.folded_launches.empty() && options.pprof.empty())) {
    return absl::InvalidArgumentError(
        "--json prints the report; it cannot be combined with "
        "--html, --folded, --folded-launches or --pprof");
  }
  return options;
}

}  // namespace brrr::cli
