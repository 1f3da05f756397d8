// brrr(1) from the usage and settings tables. See man_page.h.
#include "collector/cli/man_page.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "collector/cli/command_line.h"
#include "collector/cli/settings_listing.h"
#include "collector/cli/version_text.h"

namespace brrr::cli {

std::string RoffEscape(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ManPage() {
  std::string out = absl::StrCat(".TH BRRR 1 \"\" \"brrr ", ProjectVersion(),
                                 "\" \"User Commands\"\n");
  absl::StrAppend(&out, ".SH NAME\nbrrr \\- where a CUDA program's time goes: GPU busy, launch, "
                        "sync and input waits, hidden synchronizations\n");
  absl::StrAppend(&out, ".SH SYNOPSIS\n.B brrr run\n[options]\n.B \\-\\-\n.I CMD\n[ARGS...]\n.br\n",
                  ".B LD_PRELOAD=\\(dq$(brrr preload\\-path)\\(dq\n.I CMD\n[ARGS...]\n.br\n",
                  ".B brrr report\n.I FILE\n[options]\n");
  absl::StrAppend(
      &out, ".SH DESCRIPTION\n",
      RoffEscape("brrr profiles an unmodified CUDA program, one process or a whole job (torchrun, "
                 "mpirun), through a preloaded library (libbrrr.so) that records its CUDA calls "
                 "and, through CUPTI, its device activity, and a collector (brrr) that reads "
                 "them from shared memory while it runs. The report says how much of the time "
                 "the GPU was busy, how much it waited for the host to launch work, which host "
                 "calls stalled on hidden synchronizations and from which line, which regime "
                 "the job is in, and what to do about it. A .brrr file keeps the run for "
                 "brrr report, brrr diff and the exports."),
      "\n");
  // The usage as `brrr --help` prints it, kept in its columns.
  std::string usage = UsageText();
  if (absl::StartsWith(usage, "usage:\n")) usage = usage.substr(7);
  absl::StrAppend(&out, ".SH COMMANDS\n.nf\n", RoffEscape(usage), ".fi\n");
  absl::StrAppend(&out, ".SH ENVIRONMENT\n",
                  RoffEscape("Each setting is read from the environment of the profiled program "
                             "(libbrrr.so) or of brrr; brrr run passes its options on as these. A "
                             "misspelled BRRR_ name gets one warning naming the nearest one."),
                  "\n");
  for (const SettingEntry& e : SettingEntries()) {
    if (e.test_only) continue;
    absl::StrAppend(&out, ".TP\n.B ", RoffEscape(e.name), "\n", "default ",
                    RoffEscape(e.shown_default), ". ", RoffEscape(e.text), "\n");
  }
  absl::StrAppend(
      &out, ".SH FILES\n.TP\n.I brrr\\-PID.brrr\n",
      RoffEscape("the report of a run (BRRR_OUTPUT, --output), for brrr report, diff and merge"),
      "\n.TP\n.I /dev/shm/brrr\\-*\n",
      RoffEscape("a run's shared memory, its owner's only; removed once its report is written "
                 "(brrr clean removes those of runs that ended without one)"),
      "\n.TP\n.I LIBDIR/brrr/libbrrr.so\n",
      RoffEscape("the preloaded library, next to the brrr executable (brrr preload-path prints "
                 "it)"),
      "\n");
  absl::StrAppend(&out, ".SH EXIT STATUS\n",
                  RoffEscape("brrr run exits as the program it ran did (128 + the signal when it "
                             "was killed); 2 on a usage error; brrr diff exits 1 when a --fail-if "
                             "condition holds."),
                  "\n.SH SEE ALSO\n", RoffEscape("brrr settings; brrr SUBCOMMAND --help; "
                                                 "/usr/share/doc/brrr/README.md"),
                  "\n");
  return out;
}

}  // namespace brrr::cli
