// `brrr man`: brrr(1) in roff, made from the tables `brrr --help` (UsageText) and `brrr settings`
// (SettingEntries) print, so that the installed man page cannot drift from them. The build writes
// it (gzipped) for `cmake --install` (collector/cli/CMakeLists.txt).
//
// Must never: state anything about an option or a setting that those tables do not.
#ifndef BRRR_COLLECTOR_CLI_MAN_PAGE_H_
#define BRRR_COLLECTOR_CLI_MAN_PAGE_H_

#include <string>

namespace brrr::cli {

// Text made safe for roff: backslashes doubled as \e, a line's leading '.' or '\'' guarded, '-'
// as \- (options and BRRR_* names are typed as they appear).
std::string RoffEscape(const std::string& text);

// The whole page.
std::string ManPage();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_MAN_PAGE_H_
