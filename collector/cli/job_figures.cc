// LatestJobFigures (see job_figures.h).
#include "collector/cli/job_figures.h"

#include <dirent.h>

#include <cstring>
#include <fstream>
#include <map>

#include "absl/status/statusor.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"

namespace brrr::cli {
namespace {

constexpr size_t kMaxLiveBytes = 16u << 20;

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

absl::StatusOr<Report> ReadLiveFigures(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path);
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxLiveBytes) return absl::InvalidArgumentError(path + ": too large");
  }
  return ParseReportJson(text);
}

}  // namespace

std::vector<Report> LatestJobFigures(const std::string& dir, uint32_t own_pid) {
  std::map<uint32_t, Report> latest;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return {};
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;  // ".<pid>.live.tmp-<pid>": being written
    absl::StatusOr<Report> report = absl::NotFoundError(name);
    if (EndsWith(name, ".brrr")) {
      report = ReadBrrrFile(dir + "/" + name);
    } else if (EndsWith(name, ".live")) {
      report = ReadLiveFigures(dir + "/" + name);
    } else {
      continue;
    }
    if (!report.ok() || !report->process.has_value() || report->process->pid == own_pid) continue;
    const uint32_t pid = report->process->pid;
    auto it = latest.find(pid);
    if (it == latest.end() || it->second.wall_ns < report->wall_ns) {
      latest.insert_or_assign(pid, *std::move(report));
    }
  }
  closedir(d);
  std::vector<Report> out;
  for (auto& [pid, r] : latest) out.push_back(std::move(r));
  return out;
}

}  // namespace brrr::cli
