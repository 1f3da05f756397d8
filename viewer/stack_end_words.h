// The words the text and HTML reports use for a kind of early stack end (Report.stack_ends,
// decided by collector/analysis/stack_end.h).
//
// Must never: decide anything about a stack; it only names the collector's kinds.
#ifndef BRRR_VIEWER_STACK_END_WORDS_H_
#define BRRR_VIEWER_STACK_END_WORDS_H_

#include <string>

namespace brrr {

// "at the depth limit", ...; a kind this viewer does not know (a newer report) as itself.
inline std::string StackEndWords(const std::string& kind) {
  if (kind == "no_stack") return "with no stack stored";
  if (kind == "depth_limit") return "at the depth limit";
  if (kind == "no_symbols") return "in a module without symbols";
  if (kind == "no_unwind_info") return "where no frame pointer or call-frame information led on";
  if (kind == "cuda_frames_only") return "with only frames of the CUDA driver or CUPTI";
  if (kind == "cupti_record_only") return "with none, seen only in CUPTI's records";
  return kind;
}

}  // namespace brrr

#endif  // BRRR_VIEWER_STACK_END_WORDS_H_
