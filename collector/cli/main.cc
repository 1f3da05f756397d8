// brrr: the collector's command-line entry point. Dispatches to run / attach / report / merge / ctl /
// settings / clean / preload-path / man / --version; a bad command line prints one line saying
// what is wrong and exits 2.
//
// Must never: do work itself (each subcommand lives in its own file).
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "collector/cli/command_line.h"
#include "collector/cli/man_page.h"
#include "collector/cli/run_setup.h"
#include "collector/cli/settings_listing.h"
#include "collector/cli/subcommands.h"
#include "collector/cli/version_text.h"

namespace {

// One line: what is wrong, and where the usage is (the whole usage would bury the line).
int UsageError(const std::string& message) {
  std::fprintf(stderr, "brrr: %s (brrr --help shows the usage)\n", message.c_str());
  return brrr::cli::kUsageExitCode;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return UsageError("no subcommand");
  const std::string sub = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (sub == "--help" || sub == "-h" || sub == "help") {
    std::fputs(brrr::cli::UsageText().c_str(), stdout);
    return 0;
  }
  if (sub == "--version" || sub == "version") {
    if (!args.empty()) return UsageError(sub + " takes no arguments");
    std::fputs(brrr::cli::VersionText().c_str(), stdout);
    return 0;
  }
  // `brrr SUB --help`: for run only as its first argument (after that, it may be the app's).
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      const std::string usage = brrr::cli::SubcommandUsage(sub);
      if (usage.empty()) break;  // an unknown subcommand: said below
      std::fputs(usage.c_str(), stdout);
      return 0;
    }
    if (sub == "run" || arg == "--") break;
  }
  if (sub == "run") {
    auto options = brrr::cli::ParseRunOptions(args);
    if (!options.ok()) return UsageError(std::string(options.status().message()));
    return brrr::cli::RunSubcommand(*options);
  }
  if (sub == "attach") {
    auto options = brrr::cli::ParseAttachOptions(args);
    if (!options.ok()) return UsageError(std::string(options.status().message()));
    return brrr::cli::AttachSubcommand(*options);
  }
  if (sub == "report") {
    auto options = brrr::cli::ParseReportOptions(args);
    if (!options.ok()) return UsageError(std::string(options.status().message()));
    return brrr::cli::ReportSubcommand(*options);
  }
  if (sub == "ctl") return brrr::cli::CtlSubcommand(args);
  if (sub == "clean") return brrr::cli::CleanSubcommand(args);
  if (sub == "settings") {
    if (!args.empty()) return UsageError("settings takes no arguments");
    std::fputs(brrr::cli::SettingsListing().c_str(), stdout);
    return 0;
  }
  if (sub == "preload-path") {
    if (!args.empty()) return UsageError("preload-path takes no arguments");
    // Next to the executable (/proc/self/exe: symlinks resolved), in a build tree as installed.
    const std::string shim = brrr::cli::SelfDirectory() + "/libbrrr.so";
    if (access(shim.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "brrr: no libbrrr.so next to brrr (looked for %s)\n", shim.c_str());
      return 1;
    }
    std::printf("%s\n", shim.c_str());
    return 0;
  }
  if (sub == "man") {
    if (!args.empty()) return UsageError("man takes no arguments");
    std::fputs(brrr::cli::ManPage().c_str(), stdout);
    return 0;
  }
  if (sub == "diff") {
    auto options = brrr::cli::ParseDiffOptions(args);
    if (!options.ok()) return UsageError(std::string(options.status().message()));
    return brrr::cli::DiffSubcommand(*options);
  }
  if (sub == "merge") {
    auto options = brrr::cli::ParseMergeOptions(args);
    if (!options.ok()) return UsageError(std::string(options.status().message()));
    return brrr::cli::MergeSubcommand(*options);
  }
  return UsageError("unknown subcommand '" + sub + "'");
}
