// Matching collectives across a job's processes. See collective_waits.h.
//
// Must never: index a stream or collective that some participant lacks (every loop runs to the
// fewest any participant has), or overflow a sum (they saturate).
#include "collector/job/collective_waits.h"

#include <algorithm>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "collector/job/saturating.h"
#include "collector/job/straggler.h"
#include "viewer/text_format.h"

namespace brrr::job {
namespace {

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string Name(int64_t rank, uint32_t pid) {
  return rank >= 0 ? absl::StrCat("rank ", rank) : absl::StrCat("pid ", pid);
}

// Per participant, the shift (ns) that puts its times on the common clock; nullopt when the hosts
// differ and some participant's clock cannot be put on the wall clock.
std::optional<std::vector<int64_t>> Shifts(const std::vector<const CollectiveParticipant*>& p,
                                           std::string* alignment) {
  std::vector<int64_t> shift(p.size(), 0);
  const bool one_host = std::all_of(
      p.begin(), p.end(), [&](const CollectiveParticipant* x) { return x->host == p[0]->host; });
  if (one_host) {
    *alignment = "one host";
    return shift;
  }
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i]->log->unix_minus_monotonic_ns == 0) return std::nullopt;
    shift[i] = p[i]->log->unix_minus_monotonic_ns;
  }
  // Each other host: the median over its processes' collectives (first stream) of how much later
  // the reference process left them.
  const CollectiveStream& ref = p[0]->log->streams[0];
  std::map<std::string, std::vector<int64_t>> gaps;
  for (size_t i = 1; i < p.size(); ++i) {
    if (p[i]->host == p[0]->host) continue;
    const CollectiveStream& s = p[i]->log->streams[0];
    const size_t n = std::min(ref.end_ns.size(), s.end_ns.size());
    std::vector<int64_t>& g = gaps[p[i]->host];
    for (size_t k = 0; k < n; ++k) {
      g.push_back((ref.end_ns[k] + shift[0]) - (s.end_ns[k] + shift[i]));
    }
  }
  int64_t largest = 0;
  std::map<std::string, int64_t> by_host;
  for (auto& [host, g] : gaps) {
    by_host[host] = Median(g);
    largest = std::max(largest, by_host[host] < 0 ? -by_host[host] : by_host[host]);
  }
  for (size_t i = 0; i < p.size(); ++i) {
    if (auto it = by_host.find(p[i]->host); it != by_host.end()) shift[i] += it->second;
  }
  *alignment =
      absl::StrCat("collective exits (", by_host.size() + 1,
                   " hosts; the largest shift from the wall clock ", FormatDuration(largest), ")");
  return shift;
}

}  // namespace

std::optional<JobCollectives> MatchCollectives(const std::vector<CollectiveParticipant>& in) {
  std::vector<const CollectiveParticipant*> p;
  for (const CollectiveParticipant& x : in) {
    if (x.log != nullptr && !x.log->streams.empty() && !x.sampled) p.push_back(&x);
  }
  if (p.size() < 2) return std::nullopt;
  JobCollectives out;
  out.processes = static_cast<uint32_t>(p.size());
  const std::optional<std::vector<int64_t>> shift = Shifts(p, &out.alignment);
  if (!shift.has_value()) return std::nullopt;

  size_t streams = p[0]->log->streams.size();
  for (const CollectiveParticipant* x : p) streams = std::min(streams, x->log->streams.size());
  std::vector<CollectiveWait> waits(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    waits[i].rank = p[i]->rank;
    waits[i].pid = p[i]->pid;
  }
  for (const CollectiveParticipant* x : p) {  // what cannot be matched
    for (size_t s = 0; s < x->log->streams.size(); ++s) {
      size_t fewest = std::numeric_limits<size_t>::max();
      if (s < streams) {
        for (const CollectiveParticipant* y : p) {
          fewest = std::min(fewest, y->log->streams[s].start_ns.size());
        }
      } else {
        fewest = 0;
      }
      out.unmatched += x->log->streams[s].start_ns.size() - fewest;
    }
  }
  for (size_t s = 0; s < streams; ++s) {
    size_t n = std::numeric_limits<size_t>::max();
    for (const CollectiveParticipant* x : p) {
      const CollectiveStream& cs = x->log->streams[s];
      n = std::min({n, cs.start_ns.size(), cs.end_ns.size()});
    }
    for (size_t k = 0; k < n; ++k) {
      size_t last = 0;
      int64_t last_start = std::numeric_limits<int64_t>::min();
      for (size_t i = 0; i < p.size(); ++i) {
        const int64_t start = p[i]->log->streams[s].start_ns[k] + (*shift)[i];
        if (start > last_start) {
          last_start = start;
          last = i;
        }
      }
      int64_t caused = 0;
      for (size_t i = 0; i < p.size(); ++i) {
        const int64_t wait = last_start - (p[i]->log->streams[s].start_ns[k] + (*shift)[i]);
        waits[i].wait_ns = AddI(waits[i].wait_ns, wait);
        caused = AddI(caused, wait);
      }
      ++waits[last].last_arrivals;
      waits[last].caused_wait_ns = AddI(waits[last].caused_wait_ns, caused);
      ++out.count;
    }
  }
  if (out.count == 0) return std::nullopt;
  // The last arriver: the one that arrived last most often, when no other did as often.
  size_t top = 0;
  for (size_t i = 1; i < waits.size(); ++i) {
    if (waits[i].last_arrivals > waits[top].last_arrivals) top = i;
  }
  const auto ties = std::count_if(waits.begin(), waits.end(), [&](const CollectiveWait& w) {
    return w.last_arrivals == waits[top].last_arrivals;
  });
  if (ties == 1) {
    out.last_arriver =
        LastArriver{waits[top].rank, waits[top].pid,
                    static_cast<double>(waits[top].last_arrivals) / static_cast<double>(out.count)};
  }
  out.waits = std::move(waits);
  return out;
}

std::optional<Straggler> StragglerFromCollectives(const JobCollectives& c) {
  if (!c.last_arriver.has_value() || c.count < kMinCollectivesForStraggler) return std::nullopt;
  const LastArriver& last = *c.last_arriver;
  const auto it = std::find_if(c.waits.begin(), c.waits.end(), [&](const CollectiveWait& w) {
    return w.rank == last.rank && w.pid == last.pid;
  });
  if (it == c.waits.end() || it->last_arrivals * 2 <= c.count) return std::nullopt;
  if (it->caused_wait_ns < kStragglerMinGapNs) return std::nullopt;
  Straggler s;
  s.rank = last.rank;
  s.pid = last.pid;
  s.basis = "collectives";
  const bool ranked = last.rank >= 0;
  s.why = absl::StrCat(
      Name(last.rank, last.pid), " arrived last at ", it->last_arrivals, " of ", c.count,
      " collectives (",
      FormatPercent(static_cast<int64_t>(it->last_arrivals), static_cast<int64_t>(c.count)),
      "); the other ", ranked ? "ranks" : "processes", " waited ",
      FormatDuration(it->caused_wait_ns), " for it in them");
  return s;
}

}  // namespace brrr::job
