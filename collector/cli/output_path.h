// Where `brrr run` / `brrr attach` write the .brrr file: --output, else $BRRR_OUTPUT, else
// "brrr-%p.brrr"; "%p" becomes the app's pid and "%%" a single '%'.
//
// Must never: produce an empty path.
#ifndef BRRR_COLLECTOR_CLI_OUTPUT_PATH_H_
#define BRRR_COLLECTOR_CLI_OUTPUT_PATH_H_

#include <sys/types.h>

#include <string>

namespace brrr::cli {

inline constexpr char kDefaultOutputPattern[] = "brrr-%p.brrr";

// The pattern to use: `option` if set, else `env_value` (BRRR_OUTPUT; may be null), else default.
std::string ChooseOutputPattern(const std::string& option, const char* env_value);

// Expands %p and %%; other % sequences are kept as written.
std::string ExpandOutputPattern(const std::string& pattern, pid_t pid);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_OUTPUT_PATH_H_
