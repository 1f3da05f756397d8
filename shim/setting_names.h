// Misspelled settings: an environment entry named BRRR_* that is no setting of settings.def (and
// not one of the test bed's own variables) is said once, with the known name nearest to it
// (`BRRR_SAMPEL_DEVICE` -> BRRR_SAMPLE_DEVICE), instead of being ignored in silence. Shared by the
// shim (plain LD_PRELOAD) and `brrr run`, which checks for the processes it starts.
//
// Must never: allocate, or read past an entry (environment entries are outside data).
#ifndef BRRR_SHIM_SETTING_NAMES_H_
#define BRRR_SHIM_SETTING_NAMES_H_

#include <cstddef>

namespace brrr::settings {

// Prefixes of BRRR_* variables that are not brrr's settings: the simulated device's
// (BRRR_SIM_*), the test bed's and the demo's. Never called unknown.
inline constexpr const char* kForeignPrefixes[] = {"BRRR_SIM_",   "BRRR_TEST_",       "BRRR_FAKE_",
                                                   "BRRR_BENCH_", "BRRR_ACCEPTANCE_", "BRRR_RUN_OPTS"};

// Whether the environment entry `entry` ("NAME=value", or a bare name) names a BRRR_* variable that
// brrr does not know. Its name is written to `name` (terminated, cut to `size` - 1) when it does.
bool UnknownSettingEntry(const char* entry, char* name, size_t size);

// The setting whose name is nearest to `name` (fewest single-character edits: a letter left out,
// added, changed, or two swapped), when at most 3 edits away; nullptr otherwise.
const char* NearestSettingName(const char* name);

}  // namespace brrr::settings

#endif  // BRRR_SHIM_SETTING_NAMES_H_
