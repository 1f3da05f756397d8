// Rank and host of a profiled process. See process_identity.h.
//
// Must never: read past the environment block, or accept signs, spaces or overflow in a rank.
#include "collector/job/process_identity.h"

#include <unistd.h>

#include <climits>
#include <cstring>
#include <map>

namespace brrr::job {
namespace {

struct Source {
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

// In order of preference: the launcher's own variables before the batch system's (torchrun under
// srun sets RANK per process while SLURM_PROCID names the srun task).
constexpr Source kSources[] = {
    {"RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
};

}  // namespace

int64_t ParseRankValue(const char* text) {
  if (text == nullptr || text[0] == '\0') return -1;
  int64_t value = 0;
  size_t n = 0;
  for (; text[n] != '\0'; ++n) {
    if (text[n] < '0' || text[n] > '9' || n >= 10) return -1;
    value = value * 10 + (text[n] - '0');
  }
  return value <= INT32_MAX ? value : -1;
}

void ReadRankFromEnvironment(const GetEnv& getenv_fn, ProcessIdentity& identity) {
  for (const Source& s : kSources) {
    const int64_t rank = ParseRankValue(getenv_fn(s.rank));
    if (rank < 0) continue;
    identity.rank = rank;
    identity.rank_from = s.rank;
    identity.local_rank = ParseRankValue(getenv_fn(s.local_rank));
    identity.world_size = ParseRankValue(getenv_fn(s.world_size));
    return;
  }
  // No global rank: a local rank alone (e.g. only LOCAL_RANK) is still worth showing.
  for (const Source& s : kSources) {
    const int64_t local = ParseRankValue(getenv_fn(s.local_rank));
    if (local >= 0) {
      identity.local_rank = local;
      return;
    }
  }
}

void ReadRankFromEnvironBlock(absl::string_view block, ProcessIdentity& identity) {
  std::map<std::string, std::string, std::less<>> values;
  size_t pos = 0;
  while (pos < block.size()) {
    size_t end = block.find('\0', pos);
    if (end == absl::string_view::npos) end = block.size();
    const absl::string_view entry = block.substr(pos, end - pos);
    const size_t eq = entry.find('=');
    if (eq != absl::string_view::npos && eq > 0 && entry.size() - eq - 1 <= 32) {
      values.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    pos = end + 1;
  }
  ReadRankFromEnvironment(
      [&](const char* name) -> const char* {
        const auto it = values.find(name);
        return it == values.end() ? nullptr : it->second.c_str();
      },
      identity);
}

std::string LocalHostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  std::string host(buf, strnlen(buf, sizeof(buf)));
  for (char& c : host) {
    if (c <= 0x20 || c >= 0x7f) c = '?';
  }
  return host;
}

}  // namespace brrr::job
