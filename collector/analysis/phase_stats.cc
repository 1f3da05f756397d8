// NVTX ranges -> phases (see phase_stats.h): per-thread range stacks, start/end ranges, credits
// by tag, and the intersection of the phases' open time with the breakdown's finalized idle time.
//
// Must never: credit one path twice for one event, or keep a closed interval the breakdown has
// finalized past.
#include "collector/analysis/phase_stats.h"

#include <algorithm>
#include <climits>
#include <functional>

namespace brrr {
namespace {

constexpr uint32_t kPathBits = 16;
constexpr uint32_t kPathMask = (1u << kPathBits) - 1;
constexpr size_t kMaxTagPart = kPathMask;  // paths and contexts each fit 16 bits of a tag
constexpr size_t kThreadSweepAt = 1024;    // idle thread entries are dropped past this many
constexpr size_t kMaxThreads = 65536;      // threads with open ranges at once (leaked ranges)

}  // namespace

PhaseStats::PhaseStats(Options options) : options_(options), swept_to_(INT64_MIN) {
  options_.max_paths = std::clamp<size_t>(options_.max_paths, 1, kMaxTagPart);
  options_.max_contexts = std::clamp<size_t>(options_.max_contexts, 1, kMaxTagPart);
  options_.max_depth = std::max<size_t>(options_.max_depth, 1);
  paths_.emplace_back();
  contexts_.emplace_back();
}

uint32_t PhaseStats::PathFor(const std::string& name, uint32_t parent) {
  if (auto it = path_ids_.find(name); it != path_ids_.end()) return it->second;
  if (paths_.size() > options_.max_paths) return 0;
  const auto id = static_cast<uint32_t>(paths_.size());
  Path& path = paths_.emplace_back();
  path.name = name;
  path.parent = parent;
  path.figures.name = name;
  path_ids_.emplace(name, id);
  return id;
}

void PhaseStats::Label(const NvtxEvent& e) {
  label_.clear();
  if (!e.domain.empty()) {
    label_.append(e.domain);
    label_.push_back(':');
  }
  label_.append(e.message.empty() ? "(unnamed)" : e.message);
  // torch.profiler's steps, ProfilerStep#0, #1, ...: one phase, or each step would be a phase
  // (with all its children) of its own.
  constexpr std::string_view kStep = "ProfilerStep#";
  if (e.domain.empty() && label_.size() > kStep.size() && label_.starts_with(kStep) &&
      std::all_of(label_.begin() + kStep.size(), label_.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    label_.resize(kStep.size());
    label_.push_back('N');
  }
}

void PhaseStats::OnNvtx(const NvtxEvent& e) {
  if (finished_) return;
  active_ = true;
  if (e.time_ns < swept_to_) ++counters_.late_events;
  switch (e.op) {
    case ring::NvtxOp::kPush:
      Push(e);
      return;
    case ring::NvtxOp::kPop:
      Pop(e);
      return;
    case ring::NvtxOp::kStart:
      Start(e);
      return;
    case ring::NvtxOp::kEnd:
      End(e);
      return;
    case ring::NvtxOp::kMark:
      ++counters_.marks;
      return;
  }
}

void PhaseStats::Push(const NvtxEvent& e) {
  if (cached_thread_ == nullptr || cached_tid_ != e.tid) {
    if (threads_.size() >= kThreadSweepAt && !threads_.contains(e.tid)) {
      absl::erase_if(threads_, [](const auto& kv) {
        return kv.second.stack.empty() && kv.second.over_depth == 0;
      });
      if (threads_.size() >= kMaxThreads) {
        cached_thread_ = nullptr;
        ++counters_.threads_over_cap;
        return;
      }
    }
    cached_thread_ = &threads_[e.tid];
    cached_tid_ = e.tid;
  }
  Thread& thread = *cached_thread_;
  ++counters_.ranges;
  if (thread.stack.size() >= options_.max_depth || thread.over_depth > 0) {
    ++thread.over_depth;
    ++counters_.depth_over_cap;
    return;
  }
  const Frame* top = thread.stack.empty() ? nullptr : &thread.stack.back();
  Label(e);
  uint32_t path = 0;
  if (top == nullptr || top->path != 0) {
    name_.clear();
    if (top != nullptr) {
      name_.append(paths_[top->path].name);
      name_.push_back('/');
    }
    name_.append(label_);
    path = PathFor(name_, top != nullptr ? top->path : 0);
  }
  if (path == 0) {
    ++over_cap_;
  } else {
    ++paths_[path].figures.calls;
  }
  const uint32_t parent_effective = top != nullptr ? top->effective : 0;
  thread.stack.push_back(
      {path, path != 0 ? path : parent_effective, std::hash<std::string>{}(e.domain), e.time_ns});
  if (e.tid == main_tid_) NoteMainTop(e.time_ns, thread);
}

void PhaseStats::NoteMainTop(int64_t time, const Thread& thread) {
  const uint32_t path = thread.stack.empty() ? 0 : thread.stack.back().effective;
  // Events of one thread come in time order; a damaged one must not unsort the history.
  if (!main_history_.empty() && time < main_history_.back().time) time = main_history_.back().time;
  main_history_.push_back({time, path});
  if (main_history_.size() > kMainHistory) main_history_.pop_front();
}

uint32_t PhaseStats::MainPathAt(int64_t time) const {
  auto it = std::upper_bound(main_history_.begin(), main_history_.end(), time,
                             [](int64_t t, const MainTop& top) { return t < top.time; });
  return it == main_history_.begin() ? 0 : std::prev(it)->path;
}

void PhaseStats::Pop(const NvtxEvent& e) {
  if (cached_thread_ == nullptr || cached_tid_ != e.tid) {
    auto it = threads_.find(e.tid);
    if (it == threads_.end()) {
      ++counters_.unbalanced_pops;
      return;
    }
    cached_thread_ = &it->second;
    cached_tid_ = e.tid;
  }
  Thread& thread = *cached_thread_;
  if (thread.over_depth > 0) {
    --thread.over_depth;
    return;
  }
  if (thread.stack.empty()) {
    ++counters_.unbalanced_pops;
    return;
  }
  const Frame frame = thread.stack.back();
  thread.stack.pop_back();
  if (e.tid == main_tid_) NoteMainTop(e.time_ns, thread);
  if (frame.domain != std::hash<std::string>{}(e.domain)) ++counters_.pop_domain_mismatch;
  if (frame.path != 0) Close(frame.path, frame.start, e.time_ns);
}

void PhaseStats::Start(const NvtxEvent& e) {
  ++counters_.ranges;
  if (auto it = open_ranges_.find(e.range_id); it != open_ranges_.end()) {
    // The id is reused while open (a damaged or odd writer): the old range ends here.
    if (it->second.path != 0) Close(it->second.path, it->second.start, e.time_ns);
    open_ranges_.erase(it);
  } else if (open_ranges_.size() >= options_.max_open_ranges) {
    ++counters_.open_over_cap;
    return;
  }
  Label(e);
  const uint32_t path = PathFor(label_, 0);
  if (path == 0) {
    ++over_cap_;
  } else {
    ++paths_[path].figures.calls;
  }
  open_ranges_[e.range_id] = {path, e.time_ns};
  RefreshContext();
}

void PhaseStats::End(const NvtxEvent& e) {
  auto it = open_ranges_.find(e.range_id);
  if (it == open_ranges_.end()) {
    ++counters_.unknown_ends;
    return;
  }
  const OpenRange range = it->second;
  open_ranges_.erase(it);
  if (range.path != 0) Close(range.path, range.start, e.time_ns);
  RefreshContext();
}

void PhaseStats::Close(uint32_t path, int64_t start, int64_t end) {
  paths_[path].figures.wall_ns += std::max<int64_t>(end - start, 0);
  // Idle time before swept_to_ was attributed while the range was open; what remains is kept
  // until the breakdown finalizes it.
  if (end <= start || end <= swept_to_) return;
  if (pending_total_ >= options_.max_intervals) {
    ++counters_.intervals_dropped;
    return;
  }
  AddPending(path, start, end);
}

void PhaseStats::AddPending(uint32_t path, int64_t lo, int64_t hi) {
  Path& p = paths_[path];
  p.pending.push_back({lo, hi});
  ++pending_total_;
  if (!p.dirty) {
    p.dirty = true;
    dirty_.push_back(path);
  }
}

void PhaseStats::RefreshContext() {
  std::vector<uint32_t>& ids = context_scratch_;  // scratch: no allocation once warm
  ids.clear();
  for (const auto& [id, range] : open_ranges_) {
    if (range.path != 0) ids.push_back(range.path);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) {
    current_context_ = 0;
    return;
  }
  context_key_.assign(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(uint32_t));
  if (auto it = context_ids_.find(context_key_); it != context_ids_.end()) {
    current_context_ = it->second;
    return;
  }
  if (contexts_.size() > options_.max_contexts) {
    current_context_ = 0;  // calls made while this set is open credit no start/end range
    ++counters_.contexts_over_cap;
    return;
  }
  current_context_ = static_cast<uint32_t>(contexts_.size());
  contexts_.push_back(ids);
  context_ids_.emplace(context_key_, current_context_);
}

uint32_t PhaseStats::TagFor(uint32_t tid, int64_t time_ns) {
  uint32_t path = 0;
  bool own = false;
  if (cached_thread_ != nullptr && cached_tid_ == tid) {
    own = true;
  } else if (auto it = threads_.find(tid); it != threads_.end()) {
    cached_thread_ = &it->second;
    cached_tid_ = tid;
    own = true;
  }
  if (own && !cached_thread_->stack.empty()) {
    path = cached_thread_->stack.back().effective;
  } else if (main_tid_ != 0 && tid != main_tid_ && !main_history_.empty()) {
    path = MainPathAt(time_ns);
  }
  return (current_context_ << kPathBits) | path;
}

template <typename F>
void PhaseStats::Credit(uint32_t tag, F&& f) {
  if (tag == 0) return;
  ++stamp_;
  for (uint32_t p = tag & kPathMask; p != 0 && p < paths_.size(); p = paths_[p].parent) {
    paths_[p].stamp = stamp_;
    f(paths_[p].figures);
  }
  const uint32_t context = tag >> kPathBits;
  if (context == 0 || context >= contexts_.size()) return;
  for (uint32_t p : contexts_[context]) {
    if (paths_[p].stamp == stamp_) continue;  // also a push range of this thread
    paths_[p].stamp = stamp_;
    f(paths_[p].figures);
  }
}

void PhaseStats::AddLaunch(uint32_t tag) {
  Credit(tag, [](Phase& p) { ++p.launches; });
}

void PhaseStats::AddStall(uint32_t tag, int64_t ns) {
  if (ns <= 0) return;
  Credit(tag, [ns](Phase& p) { p.stall_ns += ns; });
}

void PhaseStats::AddDeviceWork(uint32_t tag, int64_t ns) {
  if (ns <= 0) return;
  Credit(tag, [ns](Phase& p) { p.device_ns += ns; });
}

void PhaseStats::OnIdle(uint32_t device_id, IdleKind kind, int64_t lo, int64_t hi) {
  if (finished_ || hi <= lo) return;
  if (last_device_ >= idle_.size() || idle_[last_device_].first != device_id) {
    last_device_ = idle_.size();
    for (size_t d = 0; d < idle_.size(); ++d) {
      if (idle_[d].first == device_id) last_device_ = d;
    }
    if (last_device_ == idle_.size()) idle_.emplace_back(device_id, std::vector<IdlePiece>());
  }
  std::vector<IdlePiece>& pieces = idle_[last_device_].second;
  if (!pieces.empty()) {
    IdlePiece& last = pieces.back();
    if (last.kind == kind && last.hi == lo) {  // contiguous: one piece
      last.hi = hi;
      return;
    }
    if (lo < last.hi) return;  // out of order: not what the breakdown promises; ignored
  }
  IdlePiece piece{lo, hi, {0, 0, 0}, kind};
  if (!pieces.empty()) {
    const IdlePiece& last = pieces.back();
    std::copy(std::begin(last.before), std::end(last.before), std::begin(piece.before));
    piece.before[static_cast<size_t>(last.kind)] += last.hi - last.lo;
  }
  pieces.push_back(piece);
}

void PhaseStats::IdleInside(const std::vector<Span>& spans, int64_t sums[3]) const {
  for (const auto& [device, pieces] : idle_) {
    if (pieces.empty()) continue;
    const size_t n = pieces.size();
    size_t hint = 0;  // the times asked are increasing: search forward from the last answer
    // Idle of each kind before time t in this device's pieces.
    const auto before = [&](int64_t t, int64_t out[3]) {
      if (hint < n && pieces[hint].hi <= t) {  // gallop, then bisect (lo, hi]
        size_t lo = hint, step = 1;
        while (lo + step < n && pieces[lo + step].hi <= t) {
          lo += step;
          step *= 2;
        }
        size_t hi = std::min(lo + step, n);
        while (lo + 1 < hi) {
          const size_t mid = lo + (hi - lo) / 2;
          (pieces[mid].hi <= t ? lo : hi) = mid;
        }
        hint = hi;  // the first piece ending after t, or n
      }
      if (hint == n) {
        const IdlePiece& last = pieces.back();
        for (int k = 0; k < 3; ++k) out[k] = last.before[k];
        out[static_cast<size_t>(last.kind)] += last.hi - last.lo;
        return;
      }
      const IdlePiece& p = pieces[hint];
      for (int k = 0; k < 3; ++k) out[k] = p.before[k];
      if (t > p.lo) out[static_cast<size_t>(p.kind)] += t - p.lo;
    };
    for (const Span& span : spans) {
      int64_t a[3], b[3];
      before(span.lo, a);
      before(span.hi, b);
      for (int k = 0; k < 3; ++k) sums[k] += b[k] - a[k];
    }
  }
}

void PhaseStats::OnSwept(int64_t watermark) {
  if (finished_) return;
  bool any_idle = false;
  for (const auto& [device, pieces] : idle_) any_idle |= !pieces.empty();
  if (any_idle) {
    // Open ranges are inside up to the watermark (their intervals end there, so they go with
    // the closed ones below).
    for (const auto& [tid, thread] : threads_) {
      for (const Frame& f : thread.stack) {
        if (f.path != 0 && f.start < watermark) AddPending(f.path, f.start, watermark);
      }
    }
    for (const auto& [id, range] : open_ranges_) {
      if (range.path != 0 && range.start < watermark)
        AddPending(range.path, range.start, watermark);
    }
  }
  const auto by_start = [](const Span& x, const Span& y) { return x.lo < y.lo; };
  size_t keep = 0;
  for (const uint32_t path : dirty_) {
    Path& p = paths_[path];
    std::vector<Span>& spans = p.pending;
    if (any_idle) {
      // Union (threads inside at once count each instant once), then the idle inside.
      if (!std::is_sorted(spans.begin(), spans.end(), by_start)) {
        std::sort(spans.begin(), spans.end(), by_start);
      }
      merged_.clear();
      for (const Span& span : spans) {
        if (!merged_.empty() && span.lo <= merged_.back().hi) {
          merged_.back().hi = std::max(merged_.back().hi, span.hi);
        } else {
          merged_.push_back(span);
        }
      }
      int64_t sums[3] = {0, 0, 0};
      IdleInside(merged_, sums);
      IdleBreakdown& idle = p.figures.idle;
      idle.launch_bound_ns += sums[static_cast<size_t>(IdleKind::kLaunchBound)];
      idle.sync_drain_ns += sums[static_cast<size_t>(IdleKind::kSyncDrain)];
      idle.host_outside_cuda_ns += sums[static_cast<size_t>(IdleKind::kHostOutsideCuda)];
    }
    const size_t before = spans.size();
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [watermark](const Span& span) { return span.hi <= watermark; }),
                spans.end());
    pending_total_ -= before - spans.size();
    if (spans.empty()) {
      p.dirty = false;
      if (spans.capacity() > 1024) std::vector<Span>().swap(spans);
    } else {
      dirty_[keep++] = path;
    }
  }
  dirty_.resize(keep);
  for (auto& [device, pieces] : idle_) pieces.clear();
  swept_to_ = std::max(swept_to_, watermark);
}

std::vector<Phase> PhaseStats::Finish(int64_t end_ns, size_t top) {
  std::vector<Phase> out;
  if (finished_) return out;
  for (auto& [tid, thread] : threads_) {
    for (const Frame& f : thread.stack) {
      ++counters_.closed_at_end;
      if (f.path != 0) Close(f.path, f.start, end_ns);
    }
    counters_.closed_at_end += thread.over_depth;
  }
  for (const auto& [id, range] : open_ranges_) {
    ++counters_.closed_at_end;
    if (range.path != 0) Close(range.path, range.start, end_ns);
  }
  finished_ = true;
  threads_.clear();
  cached_thread_ = nullptr;
  open_ranges_.clear();
  for (const uint32_t path : dirty_) std::vector<Span>().swap(paths_[path].pending);
  dirty_.clear();
  pending_total_ = 0;
  idle_.clear();
  out.reserve(paths_.size() - 1);
  for (size_t p = 1; p < paths_.size(); ++p) out.push_back(paths_[p].figures);
  std::sort(out.begin(), out.end(), [](const Phase& a, const Phase& b) {
    return a.wall_ns != b.wall_ns ? a.wall_ns > b.wall_ns : a.name < b.name;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

size_t PhaseStats::RetainedItemsForTest() const {
  size_t n = pending_total_ + open_ranges_.size();
  for (const auto& [tid, thread] : threads_) n += thread.stack.size();
  for (const auto& [device, pieces] : idle_) n += pieces.size();
  return n;
}

}  // namespace brrr
