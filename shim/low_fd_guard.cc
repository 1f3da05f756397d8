// See low_fd_guard.h.
#include "shim/low_fd_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

namespace brrr::shim {

LowFdGuard::LowFdGuard() {
  for (int fd = 0; fd < 3; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;  // the app's: untouched
    // The lowest free descriptor is this one (those below are open, the app's or ours).
    const int opened = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (opened == fd) {
      held_[fd] = true;
    } else if (opened >= 0) {
      close(opened);  // another thread took the slot meanwhile: not ours to hold
    }
  }
}

LowFdGuard::~LowFdGuard() {
  for (int fd = 0; fd < 3; ++fd) {
    if (held_[fd]) close(fd);
  }
}

}  // namespace brrr::shim
