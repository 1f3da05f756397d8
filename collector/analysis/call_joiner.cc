// CallJoiner: the matching of host calls, CUPTI API records and device work (see call_joiner.h).
//
// Must never: report a CUPTI-only call that a host call or runtime record contains, or block
// forever on an event that will never come (everything pending is decided by time or Finish).
#include "collector/analysis/call_joiner.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/api_catalog.h"

namespace brrr {
namespace {

constexpr int64_t kNever = -(int64_t{1} << 62);
constexpr uint8_t kMemoryKindPageable = 1;  // CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
constexpr uint8_t kMemcpyKindDtoH = 2;      // CUPTI_ACTIVITY_MEMCPY_KIND_DTOH

}  // namespace

CallJoiner::CallJoiner(Options options, Listener* listener)
    : options_(options),
      listener_(listener),
      newest_(kNever),
      next_maintenance_(kNever),
      next_expiry_(kNever) {
  options_.slack_ns = std::max<int64_t>(options_.slack_ns, 0);
  options_.max_pending = std::max<size_t>(options_.max_pending, 16);
}

CallJoiner::HostThread& CallJoiner::LookUpHostSlot(uint32_t tid, uint64_t pthread_id) {
  uint32_t index;
  bool created = false;
  if (auto it = thread_keys_.find(tid); it != thread_keys_.end()) {
    index = it->second;
  } else {
    index = static_cast<uint32_t>(threads_.size());
    threads_.emplace_back();
    threads_.back().newest_enter = kNever;
    threads_.back().gave_up_until = kNever;
    threads_.back().decided_start = kNever;
    threads_.back().newest_api_start = kNever;
    thread_keys_[tid] = index;
    created = true;
  }
  HostThread& thread = threads_[index];
  if (created || thread.pthread_id != pthread_id) {
    thread.pthread_id = pthread_id;
    thread_keys_.try_emplace(static_cast<uint32_t>(pthread_id), index);
    for (CuptiCacheEntry& entry : cupti_cache_) entry.slot = -1;
  }
  cached_tid_ = tid;
  cached_pthread_ = pthread_id;
  cached_host_slot_ = index;
  return thread;
}

CallJoiner::HostThread* CallJoiner::LookUpCuptiSlot(uint32_t cupti_thread_id) {
  CuptiCacheEntry& cached = cupti_cache_[cupti_thread_id % kCuptiCacheSize];
  auto it = thread_keys_.find(cupti_thread_id);
  if (it == thread_keys_.end()) return nullptr;
  cached = {cupti_thread_id, static_cast<int32_t>(it->second)};
  return &threads_[it->second];
}

int64_t CallJoiner::SearchContaining(const HostThread& thread, const ApiActivity& api,
                                     int64_t end_ns) const {
  const Fifo<HostSpan>& spans = thread.spans;
  // Whether the span may own the record at all (see the join rule in the header).
  const bool hookable = TraitsOf(api).hookable;
  auto contains = [&](size_t i) { return SpanOwns(spans[i], api, end_ns, hookable); };
  // The span the record started in: the last one entered at or before its start (a thread's spans
  // are disjoint); else, within the slack, the one entered just after it. Not the first span that
  // contains it give or take the slack: calls closer together than the slack would take each
  // other's records. CUPTI delivers a thread's records in order, so the span is usually the one
  // after the last match (the hint), or a few past it (launches that carried their id have no
  // record to move the hint): galloping from there touches spans near the hint only.
  const int64_t started = api.start_ns;
  const size_t hint = thread.next_hint;
  size_t lo = 0, hi = spans.size();  // lo: first span entered after `started`, once lo == hi
  if (hint < hi && spans[hint].enter <= started) {
    lo = hint + 1;
    for (size_t step = 1; lo + step - 1 < hi; step *= 2) {
      const size_t probe = lo + step - 1;
      if (spans[probe].enter > started) {
        hi = probe;
        break;
      }
      lo = probe + 1;
    }
  } else if (hint < hi) {
    hi = hint + 1;
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (spans[mid].enter <= started) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo > 0 && contains(lo - 1)) return static_cast<int64_t>(lo - 1);
  if (lo < spans.size() && contains(lo)) return static_cast<int64_t>(lo);
  return -1;
}

void CallJoiner::AddHostCall(const HostCall& call, LaunchTags tags) {
  const int64_t exit = std::max(call.exit_ns, call.enter_ns);
  Observe(exit);
  HostThread& thread = SlotForHost(call.tid, call.pthread_id);
  thread.newest_enter = std::max(thread.newest_enter, call.enter_ns);
  if (call.enter_ns <= thread.decided_start + options_.slack_ns &&
      exit + options_.slack_ns >= thread.decided_end) {
    ++counters_.api_records_late;  // it held a record already counted as a call of its own
    thread.decided_start = kNever;
  }
  if (cupti_expected_ || cupti_seen_) {
    if (span_total_ >= options_.max_pending && !thread.spans.empty()) {
      DropFrontSpan(thread);  // over the cap: the oldest span of this thread gives way
      ++counters_.dropped_over_cap;
    }
    const bool callback = call.source == CallSource::kCuptiCallback;
    const bool launch_known = !callback && call.correlation_id != 0 && call.result == 0 &&
                              CategoryOf(call.api) == ApiCategory::kLaunch;
    if (launch_known) {
      ++counters_.launches_by_id;
      WaitForKernels(call.correlation_id, call.enter_ns, MayLaunchMany(call.api), tags);
    }
    thread.spans.push_back({call.enter_ns, exit, false, callback && call.driver, launch_known,
                            callback ? call.correlation_id : 0, tags});
    ++span_total_;
  }
  if (pending_api_total_ > 0) {
    // API records of this thread that came first may now join or be decidable.
    for (uint32_t key : {call.tid, static_cast<uint32_t>(call.pthread_id)}) {
      auto it = cupti_threads_.find(key);
      if (it != cupti_threads_.end() && !it->second.pending.empty()) Resolve(key, it->second);
    }
  }
  MaybeMaintain();
}

void CallJoiner::AddApiActivity(const ApiActivity& api) {
  // Read field by field, not copied: the decoder has just written the record (see
  // CorrelationMap::Insert on why a copy would stall).
  const int64_t end = std::max(api.end_ns, api.start_ns);
  cupti_seen_ = true;
  ++counters_.api_records;
  Observe(end);
  max_api_correlation_ = std::max(max_api_correlation_, api.correlation_id);
  HostThread* thread = FindSlot(api.thread_id);
  if (thread != nullptr)
    thread->newest_api_start = std::max(thread->newest_api_start, api.start_ns);
  // Hooked runs join every record at once and keep nothing pending: no lookup then.
  auto pending = pending_api_total_ > 0 ? cupti_threads_.find(api.thread_id) : cupti_threads_.end();
  const bool has_pending = pending != cupti_threads_.end() && !pending->second.pending.empty();
  if (thread != nullptr) {
    const int64_t index = FindContaining(*thread, api, end);
    if (index >= 0) {
      const HostSpan& span = MarkMatched(*thread, static_cast<size_t>(index), api);
      thread->spans.Prefetch(static_cast<size_t>(index) + kPrefetchSpans);
      const int64_t enter = span.enter;
      const LaunchTags tags = span.tags;
      const bool launch_known = span.launch_known;
      // A span still waiting for its record is kept longer: CUPTI buffers may be delivered out
      // of order (a flush racing the delivery thread), and its record may still come.
      TrimSpans(*thread, api.start_ns - options_.trim_margin_ns,
                api.start_ns - std::max(options_.trim_margin_ns, options_.decide_lag_ns));
      ++counters_.joined_to_host;
      Joined(api, enter, tags, launch_known);
      if (has_pending) Resolve(api.thread_id, pending->second);
      MaybeMaintain();
      return;
    }
  }
  if (pending == cupti_threads_.end()) {
    pending = cupti_threads_.try_emplace(api.thread_id).first;
    pending->second.newest_runtime_start = kNever;
  }
  CuptiThread& queue = pending->second;
  if (!api.driver) {
    // Driver records this runtime call made ended before it, so they are already queued.
    for (size_t k = queue.pending.size(); k-- > 0;) {
      PendingApi& earlier = queue.pending[k];
      if (earlier.api.end_ns < api.start_ns) break;
      if (earlier.api.driver && earlier.api.start_ns >= api.start_ns && earlier.api.end_ns <= end) {
        earlier.nested = true;
        earlier.outer_start = api.start_ns;
      }
    }
    queue.newest_runtime_start = std::max(queue.newest_runtime_start, api.start_ns);
  }
  if (pending_api_total_ >= options_.max_pending) {
    // Over the cap: decide this record now rather than keep it.
    ++counters_.dropped_over_cap;
    ++counters_.cupti_only;
    RecordLauncher(api, api.start_ns);
    listener_->OnCuptiOnlyCall(api, CorrelationFlags{});
  } else {
    PendingApi item{api, false, 0};
    item.api.end_ns = end;  // kept with its end clamped, as Resolve expects
    queue.pending.push_back(item);
    ++pending_api_total_;
    Resolve(api.thread_id, queue);
  }
  MaybeMaintain();
}

void CallJoiner::Resolve(uint32_t cupti_thread_id, CuptiThread& queue) {
  while (!queue.pending.empty()) {
    PendingApi& item = queue.pending.front();
    const ApiActivity& api = item.api;
    HostThread* thread = FindSlot(cupti_thread_id);
    if (item.nested) {
      ++counters_.nested_driver;
      RecordLauncher(api, item.outer_start);
    } else if (int64_t index = thread ? FindContaining(*thread, api, api.end_ns) : -1; index >= 0) {
      const HostSpan& span = MarkMatched(*thread, static_cast<size_t>(index), api);
      ++counters_.joined_to_host;
      Joined(api, span.enter, span.tags, span.launch_known);
    } else {
      const bool by_time = newest_ - api.end_ns > options_.decide_lag_ns;
      bool decided = finishing_ || by_time;
      if (!decided && thread != nullptr &&
          thread->newest_enter > api.start_ns + options_.slack_ns) {
        // The thread's host calls moved past this record: its host call, if any, is here.
        decided = !api.driver || queue.newest_runtime_start > api.end_ns;
      }
      if (!decided) return;
      if (thread != nullptr && TraitsOf(api).hookable) {
        if (api.start_ns <= thread->gave_up_until + options_.slack_ns) ++counters_.api_records_late;
        if (by_time && !finishing_) {
          thread->decided_start = api.start_ns;
          thread->decided_end = api.end_ns;
        }
      }
      ++counters_.cupti_only;
      RecordLauncher(api, api.start_ns);
      CorrelationFlags flags;
      if (auto it = flags_.find(api.correlation_id); it != flags_.end()) {
        flags = it->second.flags;
        flags_.erase(it);
      }
      const ApiActivity copy = api;
      queue.pending.pop_front();
      --pending_api_total_;
      listener_->OnCuptiOnlyCall(copy, flags);
      continue;
    }
    queue.pending.pop_front();
    --pending_api_total_;
  }
}

void CallJoiner::Joined(const ApiActivity& api, int64_t launcher_enter, LaunchTags tags,
                        bool launch_known) {
  if (!flags_.empty()) flags_.erase(api.correlation_id);
  // A launch that carried its id waits for its kernels already (AddHostCall).
  if (!launch_known) RecordLauncher(api, launcher_enter, tags);
}

void CallJoiner::TaggedWork(LaunchTags tags, uint32_t name_id, uint32_t device_id,
                            int64_t device_ns, uint32_t kernels) {
  if (tags.phase != 0) listener_->OnPhaseWork(tags.phase, device_ns);
  if (tags.site != 0) listener_->OnSiteKernel(tags.site, name_id, device_id, device_ns, kernels);
}

void CallJoiner::LookUpTraits(const ApiActivity& api, uint64_t key) const {
  traits_key_ = key;
  traits_.hookable = api.driver || ApiFromRuntimeCbid(api.cbid) != Api::kUnknown;
  traits_.launch = CuptiCallCategory(api.driver, api.cbid) == ApiCategory::kLaunch;
  traits_.multi = traits_.launch && CuptiCallMayLaunchMany(api.driver, api.cbid);
}

void CallJoiner::RecordLauncher(const ApiActivity& api, int64_t enter, LaunchTags tags) {
  const CallTraits& traits = TraitsOf(api);
  // A launch that failed started no kernel: waiting for one would only hold memory until expiry.
  if (!traits.launch || api.result != 0) return;
  WaitForKernels(api.correlation_id, enter, traits.multi, tags);
}

void CallJoiner::WaitForKernels(uint32_t correlation_id, int64_t enter, bool multi,
                                LaunchTags tags) {
  if (!kernels_.empty()) {
    if (PendingKernel* kernel = kernels_.Find(correlation_id)) {  // the kernel came first
      ++counters_.latencies;
      listener_->OnLaunchLatency(kernel->start - enter);
      listener_->OnLaunchedKernel(enter, kernel->device_ns, /*first=*/true, kernel->start);
      if (tags.any()) {
        TaggedWork(tags, kernel->name_id, kernel->device_id, kernel->device_ns, kernel->kernels);
      }
      kernels_.Erase(correlation_id, kernel);
      if (!multi) return;
      SetLaunch(correlation_id, enter, /*multi=*/true, /*latency_done=*/true, tags);
      return;
    }
  }
  if (launches_.size() >= options_.max_pending) {
    ++counters_.dropped_over_cap;
    return;
  }
  SetLaunch(correlation_id, enter, multi, /*latency_done=*/false, tags);
}

void CallJoiner::SetLaunch(uint32_t correlation_id, int64_t enter, bool multi, bool latency_done,
                           LaunchTags tags) {
  LaunchEntry& entry = launches_.Insert(correlation_id);  // filled field by field (Insert says why)
  entry.enter = enter;
  entry.seen_at = newest_;
  entry.multi = multi;
  entry.latency_done = latency_done;
  entry.tags = tags;
}

CallJoiner::TimedFlags* CallJoiner::FlagsEntry(uint32_t correlation_id) {
  if (pending_api_total_ == 0 && correlation_id <= max_api_correlation_) return nullptr;
  if (flags_.size() >= options_.max_pending) {
    ++counters_.dropped_over_cap;
    return nullptr;
  }
  TimedFlags& entry = flags_[correlation_id];
  entry.seen_at = newest_;
  return &entry;
}

void CallJoiner::AddDeviceOp(const DeviceOp& op) {
  Observe(std::max(op.start_ns, op.end_ns));
  if (op.kind == DeviceOpKind::kMemcpy) {
    const bool pageable = op.src_kind == kMemoryKindPageable || op.dst_kind == kMemoryKindPageable;
    const bool d2h = op.copy_kind == kMemcpyKindDtoH;
    if (pageable || d2h) {
      if (TimedFlags* entry = FlagsEntry(op.correlation_id)) {
        entry->flags.pageable_copy |= pageable;
        entry->flags.d2h_copy |= d2h;
      }
    }
  }
  if (op.kind == DeviceOpKind::kKernel) {
    const int64_t device_ns = std::max<int64_t>(op.end_ns - op.start_ns, 0);
    if (LaunchEntry* launch = launches_.Find(op.correlation_id)) {
      const bool first = !launch->latency_done;
      if (first) {
        ++counters_.latencies;
        listener_->OnLaunchLatency(op.start_ns - launch->enter);
        launch->latency_done = true;
      }
      listener_->OnLaunchedKernel(launch->enter, device_ns, first, op.start_ns);
      if (launch->tags.any()) {
        TaggedWork(launch->tags, op.name_id, op.device_id, device_ns, 1);
      }
      if (!launch->multi) launches_.Erase(op.correlation_id, launch);
    } else if (PendingKernel* k = kernels_.Find(op.correlation_id)) {
      k->start = std::min(k->start, op.start_ns);
      k->device_ns += device_ns;
      if (k->name_id != op.name_id) k->name_id = kSeveralKernelNames;
      ++k->kernels;
    } else if (kernels_.size() < options_.max_pending) {
      kernels_.Set(op.correlation_id,
                   {op.start_ns, newest_, device_ns, op.name_id, op.device_id, 1});
    } else {
      ++counters_.dropped_over_cap;
      ++counters_.kernels_unjoined;
    }
  }
  MaybeMaintain();
}

void CallJoiner::AddSyncActivity(const SyncActivity& sync) {
  Observe(std::max(sync.start_ns, sync.end_ns));
  if (TimedFlags* entry = FlagsEntry(sync.correlation_id)) {
    entry->flags.sync_record = true;
    entry->flags.sync_ns += std::max<int64_t>(sync.end_ns - sync.start_ns, 0);
  }
  MaybeMaintain();
}

void CallJoiner::Maintain() {
  for (auto& [key, queue] : cupti_threads_) {
    if (!queue.pending.empty()) Resolve(key, queue);
  }
  if (counters_.launches_by_id != 0) {
    // The spans of launches that carried their id, on threads whose launches get no RUNTIME
    // record (BRRR_LAUNCH_RECORDS=0) and that had no API record for the decide lag: a thread that
    // only launches may have none at all to trim them. Where launch records do come, the spans
    // wait for them as any span waits for its record.
    const int64_t quiet_since = newest_ - options_.decide_lag_ns;
    for (HostThread& thread : threads_) {
      if (thread.launch_records || thread.newest_api_start >= quiet_since) continue;
      while (!thread.spans.empty() && thread.spans.front().launch_known &&
             thread.spans.front().exit < quiet_since - options_.trim_margin_ns) {
        DropFrontSpan(thread);
      }
    }
  }
  // Expiry walks every entry of the maps (a slot array as large as the ids in flight): once per
  // eighth of the window, not at each of the decisions' steps above.
  if (newest_ < next_expiry_) return;
  next_expiry_ = newest_ + std::max<int64_t>(options_.window_ns / 8, 1'000'000);
  const int64_t horizon = newest_ - options_.window_ns;
  for (HostThread& thread : threads_) TrimSpans(thread, horizon, horizon);
  launches_.EraseIf([&](uint32_t, const LaunchEntry& e) { return e.seen_at < horizon; });
  absl::erase_if(flags_, [&](const auto& kv) { return kv.second.seen_at < horizon; });
  kernels_.EraseIf([&](uint32_t, const PendingKernel& k) {
    if (k.seen_at >= horizon) return false;
    ++counters_.kernels_unjoined;
    return true;
  });
}

void CallJoiner::Finish() {
  finishing_ = true;
  for (auto& [key, queue] : cupti_threads_) Resolve(key, queue);
  counters_.kernels_unjoined += kernels_.size();
  kernels_.clear();
  launches_.clear();
  flags_.clear();
  for (HostThread& thread : threads_) TrimSpans(thread, int64_t{1} << 62, int64_t{1} << 62);
}

size_t CallJoiner::RetainedItemsForTest() const {
  return span_total_ + pending_api_total_ + launches_.size() + kernels_.size() + flags_.size();
}

}  // namespace brrr
