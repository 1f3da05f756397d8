// `brrr settings`: every BRRR_* setting of the table (shim/settings.def), one entry each, starting
// with its name at the line's start, then its default and its meaning, its accepted values, the
// `brrr run` option that sets the same thing, and who reads it; the text wrapped in its column,
// continuation lines indented, no line over 100 columns.
//
// Must never: list a setting that is not in the table, or decide anything the table does not say.
#ifndef BRRR_COLLECTOR_CLI_SETTINGS_LISTING_H_
#define BRRR_COLLECTOR_CLI_SETTINGS_LISTING_H_

#include <string>
#include <vector>

namespace brrr::cli {

// One setting as the listing and the man page (man_page.h) show it.
struct SettingEntry {
  std::string name;           // BRRR_...
  std::string shown_default;  // "(unset)" when it has none
  std::string text;           // meaning [values; or --option; read by ...]
  bool test_only = false;
};

// Every setting of the table, in its order.
std::vector<SettingEntry> SettingEntries();

// The listing `brrr settings` prints.
std::string SettingsListing();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_SETTINGS_LISTING_H_
