// Small formatting helpers for the terminal report: human durations, counts with thousands
// separators, percentages, terminal-safe text and fitting text into a column width.
//
// Thread safety: pure functions.
// Must never: pass control characters (escape sequences) from report strings to the terminal;
// split a UTF-8 sequence when shortening text.
#ifndef BRRR_VIEWER_TEXT_FORMAT_H_
#define BRRR_VIEWER_TEXT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace brrr {

// Three significant digits in the largest unit that keeps the value >= 1:
// 850 -> "850 ns", 12'345 -> "12.3 us", 1'500'000 -> "1.50 ms", 2'000'000'000 -> "2.00 s".
// Values of 1000 s and more stay in seconds ("1234 s"). Negative values get a leading '-'.
std::string FormatDuration(int64_t ns);

// 1234567 -> "1,234,567".
std::string FormatCount(uint64_t n);

// part / whole as "34.0%"; "-" when whole <= 0.
std::string FormatPercent(int64_t part, int64_t whole);

// Replaces control characters (C0, DEL, C1) and invalid UTF-8 bytes with '?'; tabs and newlines
// become spaces. Everything else passes through.
std::string TerminalSafe(absl::string_view text);

// Appends `text` word-wrapped to `width` columns, each line prefixed by `indent` (a word longer
// than a line is elided in its middle). `text` should be TerminalSafe.
void AppendWrapped(std::string& out, absl::string_view text, absl::string_view indent,
                   size_t width);

// Columns `text` takes on a terminal, counted as one per code point (an approximation that is
// exact for ASCII). `text` should be TerminalSafe.
size_t DisplayWidth(absl::string_view text);

// `text` (TerminalSafe) shortened to at most `width` columns: the middle (kMiddle) or the end
// (kEnd) replaced by "...". kSymbol is for a C++ function's name (a kernel's): the function's own
// name is what a reader looks for, so its scope goes first ("...::name(args)"), then its arguments
// ("name(...)"), then the end of the name. Unchanged when it fits.
enum class Elide { kEnd, kMiddle, kSymbol };
std::string FitWidth(absl::string_view text, size_t width, Elide elide);

// Pads with spaces to `width` columns (never truncates).
std::string PadRight(absl::string_view text, size_t width);
std::string PadLeft(absl::string_view text, size_t width);

}  // namespace brrr

#endif  // BRRR_VIEWER_TEXT_FORMAT_H_
