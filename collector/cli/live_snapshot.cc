// Live snapshots of a running app's report (see live_snapshot.h).
#include "collector/cli/live_snapshot.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "collector/cli/finish_report.h"
#include "collector/cli/job_figures.h"
#include "collector/cli/prometheus_text.h"
#include "collector/ingest/clock_pair.h"
#include "collector/symbolize/mixed_stack_symbolizer.h"
#include "collector/symbolize/symbolizer.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"

namespace brrr::cli {

namespace {

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::chrono::milliseconds> ParseSnapshotEvery(const std::string& text) {
  if (text == "0" || text == "off") return std::chrono::milliseconds(0);
  struct Unit {
    const char* suffix;
    int64_t ms;
  };
  static constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  std::string number = text;
  int64_t scale = 1000;  // a plain number is seconds
  for (const Unit& u : kUnits) {
    const std::string suffix = u.suffix;
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      // "ms" before "s" and "m": the first suffix that fits and leaves digits wins.
      const std::string head = text.substr(0, text.size() - suffix.size());
      if (AllDigits(head)) {
        number = head;
        scale = u.ms;
        break;
      }
    }
  }
  uint64_t v = 0;
  if (!AllDigits(number) || !absl::SimpleAtoi(number, &v) || v > 1'000'000'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a duration (10s, 500ms, 2m, 1h, or 0 for off)"));
  }
  const int64_t ms = static_cast<int64_t>(v) * scale;
  if (ms != 0 && ms < 100) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' is under 100ms"));
  }
  return std::chrono::milliseconds(ms);
}

std::chrono::milliseconds ChooseSnapshotEvery(const std::optional<std::string>& option,
                                              const std::function<const char*(const char*)>& env,
                                              const std::function<void(const std::string&)>& warn) {
  std::optional<std::string> text = option;
  std::string from = "--snapshot-every";
  if (!text.has_value()) {
    if (const char* v = env(kSnapshotEveryVariable); v != nullptr && v[0] != '\0') {
      text = v;
      from = kSnapshotEveryVariable;
    }
  }
  if (!text.has_value()) return kDefaultSnapshotEvery;
  auto every = ParseSnapshotEvery(*text);
  if (!every.ok()) {
    warn(absl::StrCat(from, ": ", every.status().message(), "; using the default (10s)"));
    return kDefaultSnapshotEvery;
  }
  return *every;
}

void LiveSnapshots::PublishMetrics(const Report& own, bool own_used_cuda) {
  std::vector<Report> others;
  if (!job_dir_.empty()) others = LatestJobFigures(job_dir_, pid_);
  std::vector<MetricsSource> sources;
  // A job's launcher (the process brrr run started) that never touched CUDA is no series of the
  // job's: its processes appear from their first CUDA call, as in the job's report.
  if (job_dir_.empty() || own_used_cuda) sources.push_back({&own, rank_, pid_});
  for (const Report& r : others) sources.push_back({&r, r.process->rank, r.process->pid});
  metrics_->Publish(PrometheusText(sources, &counter_floors_));
}

void LiveSnapshots::WriteLiveFigures(const Report& figures) {
  const std::string path = absl::StrCat(live_dir_, "/", live_pid_, ".live");
  // ".<pid>.live.tmp-<pid>": the job directory's name for a file being written.
  const std::string temporary =
      absl::StrCat(live_dir_, "/.", live_pid_, ".live.tmp-", live_pid_);
  const std::string text = RenderJson(figures);
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (done == text.size()) {
    (void)rename(temporary.c_str(), path.c_str());
  } else {
    (void)unlink(temporary.c_str());
  }
}

void LiveSnapshots::RemoveLiveFigures() const {
  if (live_dir_.empty()) return;
  (void)unlink(absl::StrCat(live_dir_, "/", live_pid_, ".live").c_str());
}

void LiveSnapshots::MaybeWrite(const ingest::SegmentReader& reader, const Analysis& analysis,
                               const symbolize::ProcessMaps& maps, const RunInfo& known) {
  const auto now = std::chrono::steady_clock::now();
  const uint32_t requests = reader.SnapshotRequests();
  const bool asked = requests != requests_seen_;
  const bool due = every_.count() > 0 && now - last_ >= every_;
  const bool metrics_due = metrics_ != nullptr && now - last_metrics_ >= std::chrono::seconds(1);
  const bool live_due = !live_dir_.empty() && now - last_live_ >= std::chrono::seconds(1);
  const RunInfo published = reader.ReadRunInfo();
  const bool used_cuda = !published.command.empty();  // the shim started (it writes the command)
  RunInfo info = MergeRunInfo(published, known);
  info.end_ns = ingest::MonotonicNowNs();
  if (live_due) {  // figures only, for the job's endpoint
    last_live_ = now;
    Report figures = analysis.Snapshot(info, nullptr);
    if (identity_ != nullptr) figures.process = *identity_;
    WriteLiveFigures(figures);
  }
  if (metrics_due && !asked && !due) {  // figures only: no symbolization
    last_metrics_ = now;
    PublishMetrics(analysis.Snapshot(info, nullptr), used_cuda);
    return;
  }
  if (!asked && !due) return;
  requests_seen_ = requests;
  last_ = now;
  if (symbolizer_ == nullptr) symbolizer_ = std::make_unique<symbolize::Symbolizer>(&maps);
  symbolize::SymbolizerFrames native(symbolizer_.get(), &maps);
  symbolize::MixedStackSymbolizer frames(&native, &reader.codes(), info.python_version);
  std::optional<int64_t> origin;
  Report report = analysis.Snapshot(
      info,
      [&](uint32_t stack_id) -> std::vector<std::string> {
        const std::vector<uint64_t>* pcs = reader.stacks().Pcs(stack_id);
        if (pcs == nullptr) return {};
        return frames.Frames(*pcs);
      },
      &origin);
  SetTimelineOrigin(origin, report);  // as the final report's, so a job merge can place it
  if (identity_ != nullptr) report.process = *identity_;
  if (metrics_ != nullptr) {
    last_metrics_ = now;
    PublishMetrics(report, used_cuda);
  }
  const absl::Status status = destination_ != nullptr ? destination_->Write(report, nullptr)
                                                     : WriteBrrrFile(path_, report);
  if (status.ok()) ++written_;
  report = Report{};
  malloc_trim(0);  // the copy's memory goes back to the system, not kept as a free-list peak
  last_cost_ = std::chrono::steady_clock::now() - now;
}

}  // namespace brrr::cli
