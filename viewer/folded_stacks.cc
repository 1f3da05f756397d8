// Folded stack lines from a report's stalls and launch sites. See folded_stacks.h.
//
// Must never: reorder frames other than root first, or drop a stack's weight.
#include "viewer/folded_stacks.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace brrr {
namespace {

constexpr char kNoStack[] = "[no stack]";

// "main (app.cu:40)" -> "main (app.cu)": a flame graph draws one box per distinct name, so a
// function that called from three lines would be three boxes side by side. Other frames
// ("f (libx.so)", "f (libx.so+0x1f)") are unchanged.
std::string WithoutLine(const std::string& frame) {
  const size_t open = frame.rfind(" (");
  if (open == std::string::npos || frame.back() != ')') return frame;
  const size_t colon = frame.rfind(':');
  if (colon == std::string::npos || colon < open || colon + 2 >= frame.size()) return frame;
  for (size_t i = colon + 1; i + 1 < frame.size(); ++i) {
    if (frame[i] < '0' || frame[i] > '9') return frame;
  }
  return frame.substr(0, colon) + ")";
}

// One frame as folded text: no ';' (the separator), no line breaks or control characters, no
// line number.
std::string Frame(const std::string& frame) {
  std::string out = frame.empty() ? std::string("?") : WithoutLine(frame);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

}  // namespace

std::string FoldedKey(const std::vector<std::string>& innermost_first, uint32_t plumbing,
                      const std::string& leaf) {
  std::string key;
  if (innermost_first.empty()) key = kNoStack;
  const size_t skip = plumbing < innermost_first.size() ? plumbing : 0;
  for (auto it = innermost_first.rbegin(); it != innermost_first.rend() - skip; ++it) {
    if (!key.empty()) key += ';';
    key += Frame(*it);
  }
  if (!leaf.empty()) absl::StrAppend(&key, ";", Frame(leaf));
  return key;
}

namespace {

class Folder {
 public:
  // The `plumbing` leading frames (CUDA's, as the report marks them) are left out: the leaf of a
  // flame is the user's frame.
  void Add(const std::vector<std::string>& innermost_first, uint32_t plumbing,
           const std::string& leaf, uint64_t value) {
    if (value == 0) return;
    std::string key = FoldedKey(innermost_first, plumbing, leaf);
    auto [at, inserted] = index_.try_emplace(key, lines_.size());
    if (inserted) {
      lines_.emplace_back(std::move(key), value);
    } else {
      lines_[at->second].second += value;
    }
  }
  std::string Text() const {
    std::string out;
    for (const auto& [stack, value] : lines_) absl::StrAppend(&out, stack, " ", value, "\n");
    return out;
  }

 private:
  std::vector<std::pair<std::string, uint64_t>> lines_;  // in first-seen order
  absl::flat_hash_map<std::string, size_t> index_;
};

}  // namespace

std::string FoldedStalls(const Report& report) {
  Folder f;
  for (const Stall& s : report.stalls) {
    if (s.total_ns <= 0) continue;
    f.Add(s.stack, s.plumbing_frames, absl::StrCat(s.api, " [", s.reason, "]"),
          static_cast<uint64_t>(s.total_ns));
  }
  return f.Text();
}

std::string FoldedLaunches(const Report& report) {
  Folder f;
  for (const LaunchSite& site : report.launch_sites) {
    f.Add(site.stack, site.plumbing_frames, "", site.launches);
  }
  return f.Text();
}

}  // namespace brrr
