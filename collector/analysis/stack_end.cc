// ClassifyStackEnd, StackEndTally (see stack_end.h).
#include "collector/analysis/stack_end.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "viewer/format/frame_text.h"

namespace brrr {
namespace {

bool IsThreadRoot(absl::string_view function) {
  for (absl::string_view root : {"main", "_start", "start_thread", "clone", "clone3", "__clone",
                                 "__clone3", "__clone_internal", "__libc_start_call_main",
                                 "<module>"}) {
    if (function == root) return true;
  }
  return absl::StartsWith(function, "__libc_start_main");  // also __libc_start_main@@GLIBC_2.34
}

// The modules that deliver CUPTI callbacks and run CUDA calls (the symbolizer drops their frames
// unless nothing else was captured, symbolize/symbolizer.h).
bool IsCudaDeliveryModule(absl::string_view where) {
  for (absl::string_view module : {"libcuda.so", "libcupti.so", "libbrrr.so"}) {
    if (absl::StartsWith(where, module)) return true;
  }
  return false;
}

constexpr StackEndKind kEarlyKinds[] = {
    StackEndKind::kNoStack,      StackEndKind::kDepthLimit,     StackEndKind::kNoSymbols,
    StackEndKind::kNoUnwindInfo, StackEndKind::kCudaFramesOnly, StackEndKind::kCuptiRecordOnly};

}  // namespace

const char* StackEndName(StackEndKind kind) {
  switch (kind) {
    case StackEndKind::kWhole:
      return "whole";
    case StackEndKind::kNoStack:
      return "no_stack";
    case StackEndKind::kDepthLimit:
      return "depth_limit";
    case StackEndKind::kNoSymbols:
      return "no_symbols";
    case StackEndKind::kNoUnwindInfo:
      return "no_unwind_info";
    case StackEndKind::kCudaFramesOnly:
      return "cuda_frames_only";
    case StackEndKind::kCuptiRecordOnly:
      return "cupti_record_only";
  }
  return "whole";
}

StackEnd ClassifyStackEnd(const std::vector<std::string>& stack, size_t max_frames) {
  if (stack.empty()) return {StackEndKind::kNoStack, ""};
  const absl::string_view last = stack.back();
  if (IsThreadRoot(FrameFunction(last))) return {};
  if (stack.size() >= max_frames) {
    return {StackEndKind::kDepthLimit,
            absl::StrCat("ends at the depth limit (", max_frames, " frames)")};
  }
  if (std::all_of(stack.begin(), stack.end(),
                  [](const std::string& f) { return IsCudaDeliveryModule(FrameWhere(f)); })) {
    return {StackEndKind::kCudaFramesOnly,
            absl::StrCat("holds only frames of ", FrameWhere(last),
                         ": the unwinder did not reach the code that made the call")};
  }
  if (absl::StartsWith(last, "0x")) {
    return {StackEndKind::kNoSymbols,
            absl::StrCat("ends in ", FrameWhere(last),
                         ", a module without symbols: the unwinder could not go past it")};
  }
  return {StackEndKind::kNoUnwindInfo,
          absl::StrCat("ends at ", FrameFunction(last),
                       ": no frame pointer or call-frame information led past it")};
}

std::string StackEndedEarly(const std::vector<std::string>& stack, size_t max_frames) {
  return ClassifyStackEnd(stack, max_frames).why;
}

void StackEndTally::Add(const std::vector<std::string>& stack, uint64_t calls) {
  Count(ClassifyStackEnd(stack, max_frames_).kind, calls);
}

void StackEndTally::AddCuptiRecordOnly(uint64_t calls) {
  Count(StackEndKind::kCuptiRecordOnly, calls);
}

void StackEndTally::Count(StackEndKind kind, uint64_t calls) {
  ++rows_;
  // Rows without a stack (none stored, or a call seen only in CUPTI's records) say nothing of how
  // stacks end: a run of only those has no summary.
  if (kind != StackEndKind::kNoStack && kind != StackEndKind::kCuptiRecordOnly) ++with_stack_;
  if (kind == StackEndKind::kWhole) {
    ++whole_;
    return;
  }
  stacks_[static_cast<int>(kind)] += 1;
  calls_[static_cast<int>(kind)] += calls;
}

std::optional<StackEnds> StackEndTally::Summary() const {
  if (with_stack_ == 0) return std::nullopt;
  StackEnds s;
  s.stacks = rows_;
  s.whole = whole_;
  for (StackEndKind kind : kEarlyKinds) {
    const int i = static_cast<int>(kind);
    if (stacks_[i] != 0) s.ended_early.push_back({StackEndName(kind), stacks_[i], calls_[i]});
  }
  std::stable_sort(s.ended_early.begin(), s.ended_early.end(),
                   [](const StackEnds::Ended& a, const StackEnds::Ended& b) {
                     return a.stacks > b.stacks;
                   });
  return s;
}

}  // namespace brrr
