// Steps from NVTX ranges. See step_ledger.h.
//
// Must never: index a part outside [0, 4), or keep more than max_kept whole steps.
#include "collector/analysis/step_ledger.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace brrr {
namespace {

constexpr const char* kPartNames[4] = {"busy_ns", "launch_bound_ns", "sync_drain_ns",
                                       "host_outside_cuda_ns"};

int PartIndex(DeviceTimeBreakdown::PartListener::Part part) {
  using Part = DeviceTimeBreakdown::PartListener::Part;
  switch (part) {
    case Part::kBusy:
      return 0;
    case Part::kLaunchBound:
      return 1;
    case Part::kSyncDrain:
      return 2;
    case Part::kHostOutsideCuda:
      return 3;
    case Part::kStartup:
    case Part::kTeardown:
      return -1;
  }
  return -1;
}

template <typename T>
T Median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The p-th percentile (0..100) of sorted values, nearest rank.
int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t rank =
      static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

StepLedger::StepLedger(Options options) : options_(std::move(options)) {}

bool StepLedger::Matches(const NvtxEvent& e) const {
  if (options_.range_name.empty()) {
    return e.domain.empty() && e.message.rfind(kDefaultStepPrefix, 0) == 0;
  }
  if (e.domain.empty()) return e.message == options_.range_name;
  const std::string& n = options_.range_name;
  return n.size() == e.domain.size() + 1 + e.message.size() &&
         n.compare(0, e.domain.size(), e.domain) == 0 && n[e.domain.size()] == ':' &&
         n.compare(e.domain.size() + 1, std::string::npos, e.message) == 0;
}

void StepLedger::OnNvtx(const NvtxEvent& e) {
  switch (e.op) {
    case ring::NvtxOp::kPush: {
      std::vector<Frame>& stack = stacks_[e.tid];
      const bool match = Matches(e);
      const bool opens = match && !in_step_;
      if (stack.size() < options_.max_depth) stack.push_back({opens});
      if (opens) {
        Begin(e);
        step_tid_ = e.tid;
        step_range_ = 0;
      }
      return;
    }
    case ring::NvtxOp::kPop: {
      auto it = stacks_.find(e.tid);
      if (it == stacks_.end() || it->second.empty()) return;
      const bool closes = it->second.back().step;
      it->second.pop_back();
      if (closes && in_step_ && step_range_ == 0 && e.tid == step_tid_) End(e.time_ns);
      return;
    }
    case ring::NvtxOp::kStart:
      if (Matches(e) && !in_step_ && e.range_id != 0) {
        Begin(e);
        step_range_ = e.range_id;
      }
      return;
    case ring::NvtxOp::kEnd:
      if (in_step_ && step_range_ != 0 && e.range_id == step_range_) End(e.time_ns);
      return;
    default:
      return;
  }
}

void StepLedger::Begin(const NvtxEvent& e) {
  if (live_.size() >= options_.max_live) {  // the breakdown lags far behind: finalize early
    Finalize(live_.front());
    live_.pop_front();
  }
  Step step;
  step.index = started_++;
  step.name = e.domain.empty() ? e.message : absl::StrCat(e.domain, ":", e.message);
  step.start = e.time_ns;
  live_.push_back(std::move(step));
  in_step_ = true;
}

void StepLedger::End(int64_t t_ns) {
  in_step_ = false;
  if (!live_.empty() && live_.back().end < 0) live_.back().end = std::max(t_ns, live_.back().start);
}

StepLedger::Step* StepLedger::StepAt(int64_t t) {
  // The last step that began at or before t (steps do not overlap: one is open at a time).
  auto it = std::upper_bound(live_.begin(), live_.end(), t,
                             [](int64_t v, const Step& s) { return v < s.start; });
  if (it == live_.begin()) return nullptr;
  Step& s = *(it - 1);
  return s.end < 0 || t < s.end ? &s : nullptr;
}

void StepLedger::AddLaunch(int64_t t) {
  if (Step* s = StepAt(t)) ++s->launches;
}

void StepLedger::AddStall(int64_t t, int64_t ns, const std::function<std::string()>& what) {
  Step* s = StepAt(t);
  if (s == nullptr) return;
  ++s->stall_calls;
  s->stall_ns += std::max<int64_t>(ns, 0);
  if (ns > s->top_stall_ns) {
    s->top_stall_ns = ns;
    s->top_stall = what();
  }
}

void StepLedger::AddCopy(int64_t t, uint8_t copy_kind, uint64_t bytes) {
  Step* s = StepAt(t);
  if (s == nullptr) return;
  if (copy_kind == 1) s->h2d_bytes += bytes;  // CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
  if (copy_kind == 2) s->d2h_bytes += bytes;  // CUPTI_ACTIVITY_MEMCPY_KIND_DTOH
}

void StepLedger::AddSyncingCall(int64_t t) {
  if (Step* s = StepAt(t)) ++s->sync_calls;
}

void StepLedger::OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) {
  const int index = PartIndex(part);
  if (index < 0 || hi <= lo || live_.empty()) return;
  if (!have_device_) {
    have_device_ = true;
    device_ = device_id;
  }
  if (device_id != device_) return;
  // The steps overlapping [lo, hi): from the one holding lo (or the first after it).
  auto it = std::upper_bound(live_.begin(), live_.end(), lo,
                             [](int64_t v, const Step& s) { return v < s.start; });
  if (it != live_.begin()) --it;
  for (; it != live_.end() && it->start < hi; ++it) {
    const int64_t end = it->end < 0 ? hi : it->end;
    const int64_t a = std::max(lo, it->start), b = std::min(hi, end);
    if (b > a) it->parts[index] += b - a;
  }
}

void StepLedger::OnSwept(int64_t watermark) {
  while (!live_.empty() && live_.front().end >= 0 && live_.front().end <= watermark) {
    Finalize(live_.front());
    live_.pop_front();
  }
}

void StepLedger::Finalize(Step& step) {
  if (step.end < 0) {
    ++unfinished_;
    return;
  }
  ++count_;
  const int64_t wall = step.end - step.start;
  walls_.Add(wall);
  wall_sum_ += wall;
  const double values[kSums] = {
      static_cast<double>(step.parts[0]),   static_cast<double>(step.parts[1]),
      static_cast<double>(step.parts[2]),   static_cast<double>(step.parts[3]),
      static_cast<double>(step.launches),   static_cast<double>(step.stall_calls),
      static_cast<double>(step.stall_ns),   static_cast<double>(step.h2d_bytes),
      static_cast<double>(step.d2h_bytes),  static_cast<double>(step.sync_calls)};
  for (int i = 0; i < kSums; ++i) sums_[i] += values[i];
  if (kept_.size() < options_.max_kept) kept_.push_back(std::move(step));
}

std::optional<StepsSummary> StepLedger::Finish() {
  if (started_ == 0) return std::nullopt;
  while (!live_.empty()) {
    Finalize(live_.front());
    live_.pop_front();
  }
  StepsSummary s;
  s.source = options_.range_name.empty() ? std::string("nvtx:ProfilerStep#N")
                                         : absl::StrCat("nvtx:", options_.range_name);
  s.count = count_;
  s.kept = kept_.size();
  s.unfinished = unfinished_;
  s.outlier_rule = absl::StrFormat(
      "wall above the median by more than %.0f x the median absolute deviation (x 1.4826) and "
      "at least %.1fx the median",
      kOutlierMads, kOutlierRatio);
  if (count_ == 0) return s;
  std::vector<int64_t> walls;
  walls.reserve(kept_.size());
  for (const Step& step : kept_) walls.push_back(step.end - step.start);
  s.wall_samples_ns = walls;
  for (size_t i = 0; i < kept_.size() && i < kMaxStepBars; ++i) {
    s.part_samples.busy_ns.push_back(kept_[i].parts[0]);
    s.part_samples.launch_bound_ns.push_back(kept_[i].parts[1]);
    s.part_samples.sync_drain_ns.push_back(kept_[i].parts[2]);
    s.part_samples.host_outside_cuda_ns.push_back(kept_[i].parts[3]);
  }
  s.estimated = count_ > kept_.size();
  if (s.estimated) {
    s.wall_ns.p50 = walls_.Percentile(50);
    s.wall_ns.p90 = walls_.Percentile(90);
    s.wall_ns.p99 = walls_.Percentile(99);
  } else {
    std::vector<int64_t> sorted = walls;
    std::sort(sorted.begin(), sorted.end());
    s.wall_ns.p50 = Percentile(sorted, 50);
    s.wall_ns.p90 = Percentile(sorted, 90);
    s.wall_ns.p99 = Percentile(sorted, 99);
  }
  s.wall_ns.max = walls_.max();
  const double n = static_cast<double>(count_);
  s.wall_ns.mean = static_cast<double>(wall_sum_) / n;
  StepsSummary::PerStep& p = s.per_step;
  double sync_calls = 0;
  double* means[kSums] = {&p.busy_ns,   &p.launch_bound_ns, &p.sync_drain_ns, &p.host_outside_cuda_ns,
                          &p.launches,  &p.stall_calls,     &p.stall_ns,      &p.h2d_bytes,
                          &p.d2h_bytes, &sync_calls};
  for (int i = 0; i < kSums; ++i) *means[i] = sums_[i] / n;
  p.sync_calls = sync_calls;

  // Outliers among the kept steps.
  const int64_t median = Median(walls);
  std::vector<int64_t> deviations;
  deviations.reserve(walls.size());
  for (int64_t w : walls) deviations.push_back(w > median ? w - median : median - w);
  const double mad = 1.4826 * static_cast<double>(Median(deviations));
  int64_t part_median[4];
  for (int k = 0; k < 4; ++k) {
    std::vector<int64_t> values;
    values.reserve(kept_.size());
    for (const Step& step : kept_) values.push_back(step.parts[k]);
    part_median[k] = Median(values);
  }
  for (const Step& step : kept_) {
    const double wall = static_cast<double>(step.end - step.start);
    if (wall <= static_cast<double>(median) + kOutlierMads * mad ||
        wall < kOutlierRatio * static_cast<double>(median)) {
      continue;
    }
    ++s.outliers_total;
    int cause = 0;
    for (int k = 1; k < 4; ++k) {
      if (step.parts[k] - part_median[k] > step.parts[cause] - part_median[cause]) cause = k;
    }
    s.outliers.push_back(
        {step.index, step.name, step.end - step.start, kPartNames[cause], step.top_stall});
  }
  // The longest first (ties: earlier first), and only the longest max_outliers: a planted 50 ms
  // step must not hide behind noise of a few ms that came before it.
  std::stable_sort(s.outliers.begin(), s.outliers.end(),
                   [](const StepOutlier& a, const StepOutlier& b) { return a.wall_ns > b.wall_ns; });
  if (s.outliers.size() > options_.max_outliers) s.outliers.resize(options_.max_outliers);
  return s;
}

}  // namespace brrr
