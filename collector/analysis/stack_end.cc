// StackEndedEarly (see stack_end.h).
#include "collector/analysis/stack_end.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "collector/analysis/frame_text.h"

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

}  // namespace

std::string StackEndedEarly(const std::vector<std::string>& stack, size_t max_frames) {
  if (stack.empty()) return "";
  const absl::string_view last = stack.back();
  if (IsThreadRoot(FrameFunction(last))) return "";
  if (stack.size() >= max_frames) {
    return absl::StrCat("ends at the depth limit (", max_frames, " frames)");
  }
  if (absl::StartsWith(last, "0x")) {
    return absl::StrCat("ends in ", FrameWhere(last),
                        ", a module without symbols: the unwinder could not go past it");
  }
  return absl::StrCat("ends at ", FrameFunction(last),
                      ": no frame pointer or call-frame information led past it");
}

}  // namespace brrr
