// Parsing and accumulation of /proc/<pid>/maps. See process_maps.h.
//
// Must never: trust a line's shape (every field is checked), or read an unbounded file.
#include "collector/symbolize/process_maps.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace brrr::symbolize {
namespace {

bool ParseHex(absl::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value, 16);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// "start-end perms offset dev inode [path]" -> region; false when malformed or not executable.
bool ParseLine(absl::string_view line, MappedRegion* region) {
  absl::string_view fields[5];
  for (auto& field : fields) {
    line = absl::StripLeadingAsciiWhitespace(line);
    const size_t space = line.find(' ');
    if (space == absl::string_view::npos && &field != &fields[4]) return false;
    field = line.substr(0, space);
    line = space == absl::string_view::npos ? absl::string_view() : line.substr(space);
  }
  const size_t dash = fields[0].find('-');
  if (dash == absl::string_view::npos) return false;
  if (!ParseHex(fields[0].substr(0, dash), &region->start) ||
      !ParseHex(fields[0].substr(dash + 1), &region->end) || region->end <= region->start) {
    return false;
  }
  if (fields[1].size() < 4 || fields[1][2] != 'x') return false;
  if (!ParseHex(fields[2], &region->offset)) return false;
  region->path = std::string(absl::StripAsciiWhitespace(line));
  return true;
}

}  // namespace

void ProcessMaps::Merge(absl::string_view maps_text) {
  ++captures_;
  for (absl::string_view line : absl::StrSplit(maps_text, '\n')) {
    MappedRegion region;
    if (!ParseLine(line, &region)) continue;
    // Drop older regions overlapping the new one.
    auto it = regions_.lower_bound(region.start);
    if (it != regions_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > region.start) it = prev;
    }
    while (it != regions_.end() && it->second.start < region.end) it = regions_.erase(it);
    regions_.emplace(region.start, std::move(region));
  }
}

absl::Status ProcessMaps::Capture(pid_t pid) {
  const std::string path = absl::StrCat("/proc/", pid, "/maps");
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": ", strerror(errno)));
  constexpr size_t kMaxBytes = 64 << 20;
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxBytes) break;
  }
  Merge(text);
  return absl::OkStatus();
}

const MappedRegion* ProcessMaps::Find(uint64_t address) const {
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return nullptr;
  --it;
  return address < it->second.end ? &it->second : nullptr;
}

}  // namespace brrr::symbolize
