// BRRR_DCHECK: debug-build checks of rules that hold unless brrr itself is wrong (the rings'
// R1/R2 invariants, heapprofd's PERFETTO_DCHECK(pos.write_pos >= pos.read_pos) style). On in
// builds without NDEBUG (the ASan+UBSan preset, which CI runs), compiled out in release builds,
// where the code must handle the case instead. A failed check traps at once: a test build stops
// on a broken rule rather than write a wrong report.
//
// Must never: guard input from outside (shared memory written by another process, files, the
// environment: those are checked and handled, never asserted), or have a side effect.
#ifndef BRRR_SHIM_DCHECK_H_
#define BRRR_SHIM_DCHECK_H_

#if !defined(NDEBUG)
#define BRRR_DCHECK_IS_ON 1
#define BRRR_DCHECK(condition)                        \
  do {                                                \
    if (__builtin_expect(!(condition), 0)) __builtin_trap(); \
  } while (0)
#else
#define BRRR_DCHECK_IS_ON 0
#define BRRR_DCHECK(condition) \
  do {                         \
    (void)sizeof(condition);   \
  } while (0)
#endif

#endif  // BRRR_SHIM_DCHECK_H_
