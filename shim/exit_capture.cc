// Captures the app's exit status for the report in plain LD_PRELOAD mode (where the collector is
// not the app's parent and cannot waitpid for it): interposes exit() and wraps main() through
// __libc_start_main (a return from main reaches libc's exit internally, never our exit()).
// `brrr run` gets the real status from waitpid as well; a process killed by a signal has none.
//
// Must never: change the status, return from exit(), or fail when the real function is missing
// (then it falls back to _exit / returns an error as the loader would).
#include <stdlib.h>
#include <unistd.h>

#include "shim/real_functions.h"
#include "shim/shim_runtime.h"

#define BRRR_EXPORT __attribute__((visibility("default")))

namespace {

using MainFn = int (*)(int, char**, char**);
MainFn g_real_main = nullptr;

int MainWrapper(int argc, char** argv, char** envp) {
  const int status = g_real_main(argc, argv, envp);
  brrr::shim::NoteExitCode(status);
  brrr::shim::FlushBeforeTeardown();
  return status;
}

}  // namespace

extern "C" BRRR_EXPORT void exit(int status) noexcept {
  brrr::shim::NoteExitCode(status);
  brrr::shim::FlushBeforeTeardown();
  using ExitFn = void (*)(int);
  static ExitFn real = nullptr;
  if (real == nullptr) real = reinterpret_cast<ExitFn>(brrr::shim::ResolveNext("exit"));
  if (real != nullptr) real(status);
  _exit(status);
}

extern "C" BRRR_EXPORT int __libc_start_main(MainFn main, int argc, char** argv, void (*init)(void),
                                             void (*fini)(void), void (*rtld_fini)(void),
                                             void* stack_end) {
  using StartFn =
      int (*)(MainFn, int, char**, void (*)(void), void (*)(void), void (*)(void), void*);
  const auto real = reinterpret_cast<StartFn>(brrr::shim::ResolveNext("__libc_start_main"));
  if (real == nullptr) _exit(127);
  g_real_main = main;
  return real(&MainWrapper, argc, argv, init, fini, rtld_fini, stack_end);
}
