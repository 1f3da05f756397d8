// `brrr report FILE [--json]`: render a saved .brrr file on stdout. See subcommands.h.
//
// Must never: print a partial report for a file it could not read.
#include <cstdio>

#include "collector/cli/subcommands.h"
#include "viewer/brrr_file.h"
#include "viewer/render_json.h"
#include "viewer/render_text.h"

namespace brrr::cli {

int ReportSubcommand(const ReportOptions& options) {
  auto report = ReadBrrrFile(options.file);
  if (!report.ok()) {
    std::fprintf(stderr, "brrr report: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  const std::string text = options.json ? RenderJson(*report) : RenderText(*report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace brrr::cli
