// The per-device breakdown bar: wall time split into busy, the three idle parts, start-up and
// teardown, drawn as a
// fixed number of character cells in proportion to the times.
//
// Thread safety: pure functions.
// Must never: return a bar of another width than asked; crash or overflow on inconsistent input
// (negative parts are drawn as zero; parts that do not add up to the wall get an "unaccounted"
// or a rescaled bar, never a wrong width).
#ifndef BRRR_VIEWER_BREAKDOWN_BAR_H_
#define BRRR_VIEWER_BREAKDOWN_BAR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr {

inline constexpr char kBusyGlyph = '#';
inline constexpr char kLaunchBoundGlyph = '~';
inline constexpr char kSyncDrainGlyph = '=';
inline constexpr char kHostOutsideCudaGlyph = '.';
inline constexpr char kStartupGlyph = '>';   // before the first CUDA work
inline constexpr char kTeardownGlyph = '<';  // after the last CUDA work
inline constexpr char kUnaccountedGlyph = '?';

struct BarPart {
  char glyph;         // the text bar's
  const char* label;  // the one name of the part, in text and HTML alike
  const char* color;  // the HTML charts'
  int64_t ns;         // clamped to >= 0
};

// The one list of the breakdown's parts, for every renderer: busy, launch-bound idle, sync drain
// idle, host outside CUDA, start-up, teardown, and "unaccounted" (wall minus the others when they
// add up to less than the wall; 0 otherwise), in that order (the first six are also the
// timeline's buckets).
std::vector<BarPart> BreakdownParts(const DeviceBreakdown& device);
inline constexpr size_t kTimelineParts = 6;

// Splits `width` cells among `parts` in proportion to their values by the largest-remainder
// method: every part gets floor or ceil of its exact share and the cells add up to `width`
// (all zeros when every part is 0).
std::vector<int> AllocateCells(const std::vector<int64_t>& parts, int width);

// `width` characters: each part's glyph repeated for its cells; spaces when there is no time.
std::string BreakdownBar(const DeviceBreakdown& device, int width);

// Why the devices' breakdown is unknown, as the first words of the device section: a sampled run
// that traced no launch call (DeviceSampling.busy_pct absent), under a cost budget or not; ""
// when it is known (or there is no sampling).
std::string DeviceViewUnknown(const Report& report);

// Whose device it is, after its id in a job's view: " on node3", " on node3, shared by 3
// processes"; "" in a process's own view. Raw (the caller makes it terminal- or HTML-safe).
std::string DeviceOwners(const DeviceBreakdown& device);

}  // namespace brrr

#endif  // BRRR_VIEWER_BREAKDOWN_BAR_H_
