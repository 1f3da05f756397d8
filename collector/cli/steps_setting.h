// Which NVTX ranges are a loop's steps (collector/analysis/step_ledger.h): `brrr run
// --steps=nvtx:NAME` wins; else BRRR_STEPS=nvtx:NAME from the environment (`brrr run`, and the
// `brrr attach` that a plain LD_PRELOAD run or a job's process starts, which inherits it); else
// the default, ranges named ProfilerStep#N. A value that is not nvtx:NAME is warned about once and
// replaced by the default, as every refused setting is (shim/settings.def).
//
// Must never: fail a run because of a bad BRRR_STEPS value.
#ifndef BRRR_COLLECTOR_CLI_STEPS_SETTING_H_
#define BRRR_COLLECTOR_CLI_STEPS_SETTING_H_

#include <functional>
#include <optional>
#include <string>

namespace brrr::cli {

// NAME of "nvtx:NAME" (1 to ring::kMaxNameLength bytes), or nullopt.
std::optional<std::string> ParseStepsSelector(const std::string& text);

// The range name for AnalysisOptions::step_range_name: "" for the default.
std::string ChooseStepRangeName(const std::string& option,
                                const std::function<const char*(const char*)>& getenv_fn,
                                const std::function<void(const std::string&)>& warn);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_STEPS_SETTING_H_
