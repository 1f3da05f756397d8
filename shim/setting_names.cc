// Misspelled settings. See setting_names.h.
#include "shim/setting_names.h"

#include <cstring>

#include "shim/settings.h"

namespace brrr::settings {
namespace {

constexpr size_t kMaxName = 64;  // longer names are nobody's setting: compared by their start

// Optimal string alignment distance (adjacent transpositions count one), on at most kMaxName
// characters of each, in three rows on the stack (a transposition looks two rows back).
size_t EditDistance(const char* a, const char* b) {
  const size_t n = strnlen(a, kMaxName), m = strnlen(b, kMaxName);
  size_t rows[3][kMaxName + 1];
  size_t *two_back = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t best = prev[j - 1] + cost;
      if (prev[j] + 1 < best) best = prev[j] + 1;
      if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          two_back[j - 2] + 1 < best) {
        best = two_back[j - 2] + 1;
      }
      cur[j] = best;
    }
    size_t* oldest = two_back;
    two_back = prev;
    prev = cur;
    cur = oldest;
  }
  return prev[m];
}

}  // namespace

bool UnknownSettingEntry(const char* entry, char* name, size_t size) {
  if (entry == nullptr || name == nullptr || size == 0 || strncmp(entry, "BRRR_", 5) != 0) {
    return false;
  }
  const char* eq = strchr(entry, '=');
  const size_t length = eq != nullptr ? static_cast<size_t>(eq - entry) : strlen(entry);
  for (const char* prefix : kForeignPrefixes) {
    const size_t p = strlen(prefix);
    if (length >= p && strncmp(entry, prefix, p) == 0) return false;
  }
  for (const Spec& spec : kSpecs) {
    if (strlen(spec.name) == length && strncmp(spec.name, entry, length) == 0) return false;
  }
  const size_t kept = length < size - 1 ? length : size - 1;
  memcpy(name, entry, kept);
  name[kept] = '\0';
  return true;
}

const char* NearestSettingName(const char* name) {
  if (name == nullptr) return nullptr;
  const char* best = nullptr;
  size_t best_distance = 4;  // more than 3 edits: no suggestion
  for (const Spec& spec : kSpecs) {
    if (spec.audience == Audience::kTestOnly) continue;
    const size_t d = EditDistance(name, spec.name);
    if (d < best_distance) {
      best_distance = d;
      best = spec.name;
    }
  }
  return best;
}

}  // namespace brrr::settings
