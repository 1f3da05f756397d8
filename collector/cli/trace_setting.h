// Whether a collection keeps a full event trace, and its cap: `brrr run --trace[=N]` wins; else
// BRRR_TRACE=N from the environment (`brrr run` and the `brrr attach` that a plain
// LD_PRELOAD=libbrrr.so run starts, which inherits the app's environment): unset, empty or 0 = no
// trace; 1..kMaxTraceCap = that cap; any other value is warned about once and replaced by the
// setting's default (no trace), as every refused setting is (shim/settings.def).
//
// Must never: fail a run because of a bad BRRR_TRACE value.
#ifndef BRRR_COLLECTOR_CLI_TRACE_SETTING_H_
#define BRRR_COLLECTOR_CLI_TRACE_SETTING_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace brrr::cli {

// The cap to record with, or nullopt for no trace. `warn` receives one line per bad value.
std::optional<uint64_t> ChooseTraceCap(const std::optional<uint64_t>& option,
                                       const std::function<const char*(const char*)>& getenv_fn,
                                       const std::function<void(const std::string&)>& warn);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_TRACE_SETTING_H_
