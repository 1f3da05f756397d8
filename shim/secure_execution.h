// Whether this process runs under secure execution (AT_SECURE: setuid or setgid, or file
// capabilities, started by a less privileged user; the loader then ignores LD_LIBRARY_PATH and
// the like). A shim installed system-wide (/etc/ld.so.preload) is loaded into such programs too:
// there it must do nothing at all: read no BRRR_* (the user's environment), load nothing, create
// nothing, write nothing, and only forward every call.
//
// Must never: allocate or fail (getauxval only).
#ifndef BRRR_SHIM_SECURE_EXECUTION_H_
#define BRRR_SHIM_SECURE_EXECUTION_H_

#include <sys/auxv.h>

namespace brrr::shim {

inline bool SecureExecution() { return getauxval(AT_SECURE) != 0; }

}  // namespace brrr::shim

#endif  // BRRR_SHIM_SECURE_EXECUTION_H_
