// brrr's subcommands, each returning the process exit status. main.cc parses and dispatches.
//
// Must never: exit() from inside (the status is returned so destructors unlink segments).
#ifndef BRRR_COLLECTOR_CLI_SUBCOMMANDS_H_
#define BRRR_COLLECTOR_CLI_SUBCOMMANDS_H_

#include "collector/cli/command_line.h"

namespace brrr::cli {

// `brrr run`: CMD's exit status (128+signal when killed), 127/126 when it cannot be executed,
// kRunFailedExitCode when brrr itself could not set up.
int RunSubcommand(const RunOptions& options);

// `brrr attach`: 0 when the file was written, 1 otherwise.
int AttachSubcommand(const AttachOptions& options);

// `brrr report`: 0, or 1 when the file cannot be read.
int ReportSubcommand(const ReportOptions& options);

// `brrr ctl PID pause|resume|snapshot`: 0 when applied, 1 when refused or not found, 2 usage.
int CtlSubcommand(const std::vector<std::string>& args);

// `brrr diff`: 0, or 1 when a --fail-if condition holds, 2 when a file cannot be read or a
// condition is malformed or names an unknown metric.
int DiffSubcommand(const DiffOptions& options);

// `brrr merge`: 0 when the job file was written, 1 otherwise (nothing written).
int MergeSubcommand(const MergeOptions& options);

// `brrr clean [--dry-run]`: 0 when every leftover found was removed (or listed), 1 when one could
// not be, 2 usage.
int CleanSubcommand(const std::vector<std::string>& args);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_SUBCOMMANDS_H_
