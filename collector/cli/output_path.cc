// Output path choice and %p/%r/%h expansion. See output_path.h.
//
// Must never: read past the pattern's end on a trailing '%'.
#include "collector/cli/output_path.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"

namespace brrr::cli {

std::string ChooseOutputPattern(const std::string& option, const char* env_value) {
  std::string chosen = !option.empty()                               ? option
                       : env_value != nullptr && env_value[0] != '\0' ? std::string(env_value)
                                                                      : kDefaultOutputPattern;
  // A directory: the default name inside it.
  struct stat st {};
  if (chosen.back() == '/' || (stat(chosen.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    return absl::StrCat(chosen, chosen.back() == '/' ? "" : "/", kDefaultOutputPattern);
  }
  return chosen;
}

std::string ExpandOutputPattern(const std::string& pattern, pid_t pid, int64_t rank,
                                const std::string& host) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      const char c = pattern[i + 1];
      if (c == 'p' || c == 'r' || c == 'h' || c == '%') {
        if (c == 'p') absl::StrAppend(&out, pid);
        if (c == 'r') absl::StrAppend(&out, rank >= 0 ? absl::StrCat(rank) : "norank");
        if (c == 'h') {
          std::string safe = host.empty() ? "unknownhost" : host;
          for (char& h : safe) {
            if (h == '/' || h == '\0') h = '_';
          }
          out += safe;
        }
        if (c == '%') out += '%';
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out.empty() ? ExpandOutputPattern(kDefaultOutputPattern, pid) : out;
}

}  // namespace brrr::cli
