// Naming the straggler of a job. See straggler.h.
//
// Must never: divide by zero or overflow on hostile figures read from a file.
#include "collector/job/straggler.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/text_format.h"

namespace brrr::job {
namespace {

std::string Name(const ProcessRow& row) {
  return row.rank >= 0 ? absl::StrCat("rank ", row.rank) : absl::StrCat("pid ", row.pid);
}

int64_t Median(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n % 2 == 1) return v[n / 2];
  return v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

}  // namespace

int64_t StragglerFigure(const ProcessRow& row, bool by_device) {
  if (!by_device) return std::max<int64_t>(row.wall_ns, 0);
  int64_t sum = 0;
  for (const DeviceBreakdown& d : row.devices) {
    const int64_t part = std::max<int64_t>(d.idle.host_outside_cuda_ns, 0);
    sum = part > INT64_MAX - sum ? INT64_MAX : sum + part;
  }
  return sum;
}

std::optional<Straggler> FindStraggler(const std::vector<ProcessRow>& rows) {
  if (rows.size() < 2) return std::nullopt;
  const bool by_device = std::any_of(rows.begin(), rows.end(), [](const ProcessRow& r) {
    return !r.devices.empty();
  });
  std::vector<int64_t> figures;
  figures.reserve(rows.size());
  for (const ProcessRow& row : rows) figures.push_back(StragglerFigure(row, by_device));
  const size_t top = static_cast<size_t>(
      std::max_element(figures.begin(), figures.end()) - figures.begin());
  if (std::count(figures.begin(), figures.end(), figures[top]) > 1) return std::nullopt;
  const int64_t median = Median(figures);
  const int64_t figure = figures[top];
  if (figure - median < kStragglerMinGapNs) return std::nullopt;
  if (static_cast<double>(figure) < kStragglerRatio * static_cast<double>(median)) {
    return std::nullopt;
  }
  const ProcessRow& row = rows[top];
  std::vector<int64_t> walls;
  for (const ProcessRow& r : rows) walls.push_back(std::max<int64_t>(r.wall_ns, 0));
  const double times = median > 0 ? static_cast<double>(figure) / static_cast<double>(median) : 0;
  const std::string ratio = median <= 0    ? std::string("far over")
                            : times < 10   ? absl::StrFormat("%.2fx", times)
                            : times < 100  ? absl::StrFormat("%.1fx", times)
                                           : absl::StrFormat("%.0fx", times);
  // Ranks only where the job has them: processes without one are "processes", and nothing is
  // said of collectives they may not have.
  const bool ranked = row.rank >= 0 && std::count_if(rows.begin(), rows.end(), [](const ProcessRow& r) {
                                         return r.rank >= 0;
                                       }) > 1;
  const char* peer = ranked ? " the median rank's " : " the median process's ";
  Straggler s;
  s.rank = row.rank;
  s.pid = row.pid;
  s.basis = by_device ? "host_outside_cuda" : "wall";
  if (by_device) {
    // Nothing is said of collectives here: with collectives the job names its straggler by them
    // (collective_waits.h), so these ranks had none that singled anyone out.
    s.why = absl::StrCat(Name(row), " spent ", FormatDuration(figure),
                         " on the host outside CUDA while its device idled, ", ratio, peer,
                         FormatDuration(median), " (wall ", FormatDuration(row.wall_ns),
                         " against the median's ", FormatDuration(Median(walls)), ")");
  } else {
    s.why = absl::StrCat(Name(row), " ran ", FormatDuration(figure), ", ", ratio, peer,
                         FormatDuration(median), " (no device time recorded: wall times compared)");
  }
  return s;
}

}  // namespace brrr::job
