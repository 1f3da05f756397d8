// Folded stacks ("root;caller;...;leaf VALUE" per line, the input of flamegraph.pl, speedscope and
// inferno) from a report: `brrr report FILE --folded OUT` weighs each stall's stack by its blocked
// nanoseconds, with the blocked call and its reason as the leaf frame ("cudaMemcpy [d2h_copy]");
// `--folded-launches OUT` weighs each sampled launch site by its estimated launches. Frames are the
// report's, root first (the report keeps them innermost first), without their line numbers
// ("main (app.cu)": one box per function in a flame graph, whichever line called). Identical
// stacks are one line.
//
// Thread safety: pure functions.
// Must never: emit a frame containing ';' or a line break (they become ':' and ' '), a line
// without a value, or a zero-valued line.
#ifndef BRRR_VIEWER_FOLDED_STACKS_H_
#define BRRR_VIEWER_FOLDED_STACKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr {

std::string FoldedStalls(const Report& report);

// One stack as a folded key, root first: `innermost_first` without its `plumbing` leading frames
// (CUDA's), then `leaf` when given; "[no stack]" for an empty stack.
std::string FoldedKey(const std::vector<std::string>& innermost_first, uint32_t plumbing,
                      const std::string& leaf);
std::string FoldedLaunches(const Report& report);

}  // namespace brrr

#endif  // BRRR_VIEWER_FOLDED_STACKS_H_
