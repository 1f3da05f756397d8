// Keeps brrr's initialization off fds 0, 1 and 2 when the app has closed them: while a guard
// lives, each closed one holds /dev/null, so that every descriptor brrr or what it loads opens then
// (CUPTI, libunwind's memory-validation pipe, transient files) lands at 3 or above; the guard
// closes them again. Without it, libunwind's pipe took fds 1 and 2 of an app that had closed its
// stdout and stderr, for good: what the app later wrote to "stdout" would have gone into it.
//
// Init only (it opens files). Must never: touch an fd the app has open, or leave one of its own.
#ifndef BRRR_SHIM_LOW_FD_GUARD_H_
#define BRRR_SHIM_LOW_FD_GUARD_H_

namespace brrr::shim {

class LowFdGuard {
 public:
  LowFdGuard();
  ~LowFdGuard();
  LowFdGuard(const LowFdGuard&) = delete;
  LowFdGuard& operator=(const LowFdGuard&) = delete;

 private:
  bool held_[3] = {false, false, false};
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_LOW_FD_GUARD_H_
