// `brrr merge FILE... --output JOB.brrr`: joins per-process .brrr files (gathered from any number of
// hosts) into one job report, writes it and prints it on stdout. See subcommands.h.
//
// Must never: write a job file when any input could not be read (the error names the file), or
// merge one file twice.
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <utility>

#include "collector/cli/process_reports.h"
#include "collector/cli/subcommands.h"
#include "collector/job/job_merge.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/render_text.h"

namespace brrr::cli {

int MergeSubcommand(const MergeOptions& options) {
  // One process's report given twice would count it twice: refused, by name or by file.
  std::map<std::pair<dev_t, ino_t>, std::string> seen;
  for (const std::string& file : options.files) {
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) continue;  // reading it names the problem below
    const auto [it, fresh] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), file);
    if (!fresh) {
      std::fprintf(stderr,
                   "brrr merge: %s and %s are the same file: give each process's report once "
                   "(brrr --help shows the usage)\n",
                   it->second.c_str(), file.c_str());
      return kUsageExitCode;
    }
  }
  auto reports = ReadProcessReports(options.files);
  if (!reports.ok()) {
    std::fprintf(stderr, "brrr merge: %s; nothing written\n",
                 std::string(reports.status().message()).c_str());
    return 1;
  }
  const Report job = job::MergeJob(*reports, {});
  const absl::Status written = WriteBrrrFile(options.output, job);
  if (!written.ok()) {
    std::fprintf(stderr, "brrr merge: cannot write %s: %s\n", options.output.c_str(),
                 std::string(written.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "brrr: wrote %s (%zu processes)\n", options.output.c_str(),
               reports->size());
  if (options.quiet) return 0;
  const std::string text = options.json ? RenderJson(job) : RenderText(job);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace brrr::cli
