// The two parts of a symbolized frame as the report writes it, "function (where)": where is
// "file:line" or the module. Plain text functions for the analyses that read frames
// (collector/analysis/cuda_plumbing.h, stack_end.h) and the exports that split a frame (pprof).
//
// Must never: read outside the frame's text.
#ifndef BRRR_VIEWER_FORMAT_FRAME_TEXT_H_
#define BRRR_VIEWER_FORMAT_FRAME_TEXT_H_

#include "absl/strings/string_view.h"

namespace brrr {

// The function part: the text before the last " ("; the whole frame when there is none.
inline absl::string_view FrameFunction(absl::string_view frame) {
  const size_t open = frame.rfind(" (");
  return open == absl::string_view::npos ? frame : frame.substr(0, open);
}

// The text inside the trailing " (...)": "file:line" or the module; "" when there is none.
inline absl::string_view FrameWhere(absl::string_view frame) {
  const size_t open = frame.rfind(" (");
  if (open == absl::string_view::npos || frame.empty() || frame.back() != ')') return "";
  return frame.substr(open + 2, frame.size() - open - 3);
}

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_FRAME_TEXT_H_
