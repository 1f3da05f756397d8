// Where `brrr run` / `brrr attach` write the .brrr file: --output, else $BRRR_OUTPUT, else
// "brrr-%p.brrr"; "%p" becomes the app's pid, "%r" its rank (from the launcher's environment;
// "norank" when none), "%h" the host's name and "%%" a single '%'.
//
// Must never: produce an empty path, or a '/' from a host name.
#ifndef BRRR_COLLECTOR_CLI_OUTPUT_PATH_H_
#define BRRR_COLLECTOR_CLI_OUTPUT_PATH_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace brrr::cli {

inline constexpr char kDefaultOutputPattern[] = "brrr-%p.brrr";

// The pattern to use: `option` if set, else `env_value` (BRRR_OUTPUT; may be null), else default.
// One that names a directory (it exists as one, or ends with '/') gets the default name inside.
std::string ChooseOutputPattern(const std::string& option, const char* env_value);

// Expands %p, %r (rank < 0: "norank"), %h and %%; other % sequences are kept as written.
std::string ExpandOutputPattern(const std::string& pattern, pid_t pid, int64_t rank = -1,
                                const std::string& host = "");

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_OUTPUT_PATH_H_
