// A library for the symbolizer's test of inlined calls, built with -O2 -g: an out-of-line
// function (brrr_inlined_call_fixture) whose body is two forced-inline calls deep, the innermost
// calling an out-of-line function that hands back its own return address. The test finds the
// lines by the "MARK:" comments, so edit those lines with their marks.
//
// Must never: let the compiler out-of-line the always_inline functions or turn the capturing call
// into a tail call (the return address would then be the test's).
#include <cstdint>

namespace brrr_inline_fixture {

__attribute__((noinline)) uint64_t ReturnAddressOfMyCall() {
  uint64_t pc = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" : "+r"(pc));
  return pc;
}

struct Recorder {
  __attribute__((always_inline)) static inline uint64_t Capture(int salt) {
    uint64_t pc = ReturnAddressOfMyCall();  // MARK: capture
    asm volatile("" : "+r"(pc));            // keeps the call above from being a tail call
    return pc + static_cast<uint64_t>(salt) * 0;
  }
};

namespace {

__attribute__((always_inline)) inline uint64_t Step(int salt) {
  const uint64_t pc = Recorder::Capture(salt + 1);  // MARK: step-calls-capture
  asm volatile("" ::: "memory");
  return pc;
}

}  // namespace
}  // namespace brrr_inline_fixture

extern "C" __attribute__((noinline, visibility("default"))) uint64_t brrr_inlined_call_fixture(
    int salt) {
  const uint64_t pc = brrr_inline_fixture::Step(salt);  // MARK: outer-calls-step
  asm volatile("" ::: "memory");
  return pc;
}
