// Whether a symbolized stack reaches its thread's start, and if not, why it ends where it does:
// the report says so under the stack instead of letting a short stack pass for a whole one
// (issue 19: release builds, stripped modules, the 30-frame limit), and counts over the whole run
// how many stacks ended early, by why (StackEndTally).
//
// A stack is whole when its outermost frame is a thread's root (main, _start, __libc_start_main,
// start_thread, clone) or a Python program's top level (<module>).
//
// Must never: call a stack short because a frame merely contains a root's name ("mainloop").
#ifndef BRRR_COLLECTOR_ANALYSIS_STACK_END_H_
#define BRRR_COLLECTOR_ANALYSIS_STACK_END_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr {

enum class StackEndKind {
  kWhole,            // reaches its thread's start
  kNoStack,          // none was stored
  kDepthLimit,       // `max_frames` or more frames
  kNoSymbols,        // ends in a module without symbols
  kNoUnwindInfo,     // ends in a function past which no frame pointer or call-frame info led
  kCudaFramesOnly,   // holds only the CUDA driver's, CUPTI's or brrr's frames
  kCuptiRecordOnly,  // none: the call was seen only in CUPTI's activity records
};
inline constexpr int kStackEndKinds = static_cast<int>(StackEndKind::kCuptiRecordOnly) + 1;

// Why a call seen only in CUPTI's activity records has no stack (its Stall.ended_early).
inline constexpr char kCuptiRecordOnlyWhy[] =
    "was not taken: the call was seen only in CUPTI's activity records, which carry none (no hook "
    "or callback saw it: it went through a library's own runtime with callbacks off, or came "
    "while brrr was not recording host calls, e.g. in the process's teardown)";

// The JSON name of an early end: "no_stack", "depth_limit", "no_symbols", "no_unwind_info",
// "cuda_frames_only", "cupti_record_only" ("whole" for kWhole).
const char* StackEndName(StackEndKind kind);

struct StackEnd {
  StackEndKind kind = StackEndKind::kWhole;
  std::string why;  // "" for whole and no-stack; else the sentence shown under the stack
};

// `stack`: innermost first, "function (file:line)" / "function (module)" / "0x... (module)".
StackEnd ClassifyStackEnd(const std::vector<std::string>& stack, size_t max_frames);

// "" when `stack` is empty or whole; else why it ends early (ClassifyStackEnd(...).why).
std::string StackEndedEarly(const std::vector<std::string>& stack, size_t max_frames);

// Counts every stall row and launch site of a run (not only the report's top ones) by how its
// stack ends; calls are the row's calls (a launch site's: its sampled launches).
class StackEndTally {
 public:
  explicit StackEndTally(size_t max_frames) : max_frames_(max_frames) {}
  void Add(const std::vector<std::string>& stack, uint64_t calls);
  // A stall row of calls seen only in CUPTI's records (no stack to classify).
  void AddCuptiRecordOnly(uint64_t calls);
  // Absent when no row had a stack (stacks off, or nothing to count).
  std::optional<StackEnds> Summary() const;

 private:
  void Count(StackEndKind kind, uint64_t calls);

  size_t max_frames_;
  uint64_t rows_ = 0;
  uint64_t with_stack_ = 0;
  uint64_t whole_ = 0;
  uint64_t stacks_[kStackEndKinds] = {};  // by StackEndKind
  uint64_t calls_[kStackEndKinds] = {};
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_STACK_END_H_
