// Whether a symbolized stack reaches its thread's start, and if not, why it ends where it does:
// the report says so under the stack instead of letting a short stack pass for a whole one
// (issue 19: release builds, stripped modules, the 30-frame limit).
//
// A stack is whole when its outermost frame is a thread's root (main, _start, __libc_start_main,
// start_thread, clone) or a Python program's top level (<module>).
//
// Must never: call a stack short because a frame merely contains a root's name ("mainloop").
#ifndef BRRR_COLLECTOR_ANALYSIS_STACK_END_H_
#define BRRR_COLLECTOR_ANALYSIS_STACK_END_H_

#include <cstddef>
#include <string>
#include <vector>

namespace brrr {

// "" when `stack` (innermost first, "function (file:line)" / "function (module)" / "0x... (module)")
// is empty or whole; else why it ends early: at the depth limit (`max_frames` or more frames), in
// a module without symbols, or where the unwinder found no call-frame information.
std::string StackEndedEarly(const std::vector<std::string>& stack, size_t max_frames);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_STACK_END_H_
