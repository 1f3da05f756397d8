// `brrr clean [--dry-run]`: removes the user's leftover shared-memory segments (leftover_segments.h)
// of runs whose processes are all gone, collected or not, and says each one it removes (or would,
// with --dry-run) with what it held of /dev/shm. An uncollected one is the only copy of its run:
// the line says so and gives the command that would have recovered it.
//
// Must never: remove what leftover_segments.h does not call a leftover (another user's, not
// brrr's, young, or of a live process).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collector/cli/leftover_segments.h"
#include "collector/cli/subcommands.h"

namespace brrr::cli {

int CleanSubcommand(const std::vector<std::string>& args) {
  bool dry_run = false;
  for (const std::string& arg : args) {
    if (arg == "--dry-run") {
      dry_run = true;
      continue;
    }
    std::fprintf(stderr, "brrr: clean: unknown option '%s' (brrr clean --help shows the usage)\n",
                 arg.c_str());
    return kUsageExitCode;
  }
  LeftoverScan scan = DefaultLeftoverScan();
  scan.uncollected_keep = std::chrono::seconds(0);  // all of them, kept or not
  const std::vector<LeftoverSegment> found = FindLeftoverSegments(scan);
  size_t done = 0, failed = 0;
  uint64_t bytes = 0;
  for (const LeftoverSegment& s : found) {
    const std::string what = absl::StrFormat(
        "%s (%.1f MiB; app pid %d; %s)", s.path, static_cast<double>(s.bytes) / (1024.0 * 1024.0),
        static_cast<int>(s.app),
        s.collected ? "its report was written"
                    : absl::StrCat("its report was never written: `brrr attach --shm ",
                                   s.path.substr(s.path.rfind('/')), " --pid ", s.app,
                                   "` recovers it"));
    if (dry_run) {
      std::printf("would remove %s\n", what.c_str());
    } else if (unlink(s.path.c_str()) == 0) {
      std::printf("removed %s\n", what.c_str());
    } else {
      std::fprintf(stderr, "brrr: clean: cannot remove %s: %s\n", s.path.c_str(), strerror(errno));
      ++failed;
      continue;
    }
    ++done;
    bytes += s.bytes;
  }
  std::printf("%s %zu leftover segment%s (%.1f MiB of /dev/shm)\n",
              dry_run ? "would remove" : "removed", done, done == 1 ? "" : "s",
              static_cast<double>(bytes) / (1024.0 * 1024.0));
  return failed == 0 ? 0 : 1;
}

}  // namespace brrr::cli
