// See unprofiled_note.h. Init only: no hot path, but no allocation either (it may run in a
// process that is short of memory, which is one reason it was not profiled).
#include "shim/unprofiled_note.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim/log.h"
#include "shim/text_append.h"

namespace brrr::shim {

void NoteUnprofiled(const char* job_dir) {
  if (job_dir == nullptr || job_dir[0] == '\0') return;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  char path[4096];
  size_t at = 0;
  text::Append(path, sizeof(path), &at, job_dir);
  text::Append(path, sizeof(path), &at, "/unprofiled-");
  text::AppendU64(path, sizeof(path), &at, static_cast<uint64_t>(getpid()));
  text::Append(path, sizeof(path), &at, "-");
  text::AppendU64(path, sizeof(path), &at,
                  static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u +
                      static_cast<uint64_t>(ts.tv_nsec));
  if (at + 1 >= sizeof(path)) return;  // cut: not the note's name
  char why[512];
  LastWarning(why, sizeof(why));
  if (why[0] == '\0') memcpy(why, "not profiled", sizeof("not profiled"));
  const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const size_t len = strlen(why);
  size_t done = 0;
  while (done < len) {
    const ssize_t w = write(fd, why + done, len - done);
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  close(fd);
}

}  // namespace brrr::shim
