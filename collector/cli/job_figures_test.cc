// Tests of LatestJobFigures: per process the file covering more of its run (a ".live" newer than
// a ".brrr" snapshot, the final ".brrr" over an older ".live"), damaged or unnamed files skipped,
// files being written and our own process left out.
#include "collector/cli/job_figures.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"

namespace brrr::cli {
namespace {

Report Figures(uint32_t pid, int64_t wall_ns, uint64_t launch_calls) {
  Report r;
  r.wall_ns = wall_ns;
  r.kernels.launch_calls = launch_calls;
  r.process.emplace();
  r.process->pid = pid;
  return r;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(JobFiguresTest, TheFileCoveringMoreOfEachProcessWins) {
  const std::string dir = ::testing::TempDir() + "/job-figures-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // pid 11: a 10 s snapshot (.brrr) and a fresher .live: the .live.
  ASSERT_TRUE(WriteBrrrFile(dir + "/11.brrr", Figures(11, 1'000, 100)).ok());
  WriteText(dir + "/11.live", RenderJson(Figures(11, 3'000, 300)));
  // pid 12: a final report newer than its last .live: the report.
  ASSERT_TRUE(WriteBrrrFile(dir + "/12.brrr", Figures(12, 9'000, 900)).ok());
  WriteText(dir + "/12.live", RenderJson(Figures(12, 8'000, 800)));
  // pid 13: a damaged .live (half written) and nothing else: skipped.
  WriteText(dir + "/13.live", RenderJson(Figures(13, 5'000, 500)).substr(0, 40));
  // A file being written, another kind of file, and our own process: left out.
  WriteText(dir + "/.14.live.tmp-14", RenderJson(Figures(14, 5'000, 500)));
  WriteText(dir + "/14.lock", "");
  WriteText(dir + "/99.live", RenderJson(Figures(99, 5'000, 500)));
  const std::vector<Report> got = LatestJobFigures(dir, 99);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].process->pid, 11u);
  EXPECT_EQ(got[0].kernels.launch_calls, 300u);
  EXPECT_EQ(got[1].process->pid, 12u);
  EXPECT_EQ(got[1].kernels.launch_calls, 900u);
  EXPECT_TRUE(LatestJobFigures(dir + "/missing", 99).empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace brrr::cli
