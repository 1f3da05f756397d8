// The job view in JSON (written, read back field for field through a .brrr file, null ranks and
// exit codes, errors naming the path) and in the terminal report (PROCESSES rows, STRAGGLER).
#include <string>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/render_text.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Report JobReport() {
  Report r;
  r.command = "mpirun -np 2 ./solver";
  r.wall_ns = 2'000'000'000;
  ProcessRow a;
  a.pid = 101;
  a.rank = 0;
  a.host = "node-a";
  a.command = "./solver";
  a.exit_code = 0;
  a.ended = "exited";
  a.wall_ns = 1'500'000'000;
  a.kernels.launches = 1234;
  a.kernels.device_ns = 700'000'000;
  DeviceBreakdown d;
  d.id = 0;
  d.wall_ns = 1'500'000'000;
  d.busy_ns = 700'000'000;
  d.idle = {100'000'000, 200'000'000, 500'000'000};
  a.devices.push_back(d);
  a.top_stall = "cudaMemcpy d2h_copy 3 calls 1.00 ms";
  a.verdict = {"sync-bound", "waits"};
  ProcessRow b;
  b.pid = 102;
  b.host = "node-b";
  b.command = "./solver --other";
  b.ended = "vanished (killed or crashed)";
  b.events_dropped = 55;
  r.processes = {a, b};
  JobSummary job;
  job.processes = 2;
  job.ranks = 1;
  job.straggler = Straggler{0, 101, "rank 0 spent 500 ms on the host outside CUDA"};
  r.job = job;
  return r;
}

TEST(JobRenderTest, JsonRoundTripThroughTheFile) {
  const Report r = JobReport();
  const std::string json = RenderJson(r);
  EXPECT_THAT(json, HasSubstr("\"exit_code\": null"));
  EXPECT_THAT(json, HasSubstr("\"rank\": null"));
  auto back = ParseBrrrFile(SerializeBrrrFile(r), "job.brrr");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->processes.size(), 2u);
  const ProcessRow& a = back->processes[0];
  EXPECT_EQ(a.pid, 101u);
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(a.host, "node-a");
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.kernels.launches, 1234u);
  ASSERT_EQ(a.devices.size(), 1u);
  EXPECT_EQ(a.devices[0].idle.host_outside_cuda_ns, 500'000'000);
  EXPECT_EQ(a.top_stall, r.processes[0].top_stall);
  EXPECT_EQ(a.verdict.regime, "sync-bound");
  const ProcessRow& b = back->processes[1];
  EXPECT_EQ(b.rank, -1);
  EXPECT_FALSE(b.exit_code.has_value());
  EXPECT_EQ(b.ended, "vanished (killed or crashed)");
  EXPECT_EQ(b.events_dropped, 55u);
  ASSERT_TRUE(back->job.has_value());
  EXPECT_EQ(back->job->processes, 2u);
  EXPECT_EQ(back->job->ranks, 1u);
  ASSERT_TRUE(back->job->straggler.has_value());
  EXPECT_EQ(back->job->straggler->pid, 101u);
  EXPECT_EQ(back->job->straggler->why, r.job->straggler->why);
  EXPECT_EQ(RenderJson(*back), json);  // nothing lost or added
}

TEST(JobRenderTest, ProcessIdentityRoundTripAndAbsentInOldReports) {
  Report r;
  r.process.emplace();
  r.process->pid = 7;
  r.process->host = "h";
  r.process->rank = 3;
  r.process->world_size = 4;
  r.process->rank_from = "OMPI_COMM_WORLD_RANK";
  r.process->exit_seen = false;
  auto back = ParseReportJson(RenderJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->process.has_value());
  EXPECT_EQ(back->process->rank, 3);
  EXPECT_EQ(back->process->local_rank, -1);
  EXPECT_EQ(back->process->world_size, 4);
  EXPECT_FALSE(back->process->exit_seen);
  EXPECT_FALSE(back->job.has_value());
  const std::string json = RenderJson(Report{});
  EXPECT_THAT(json, Not(HasSubstr("\"process")));
  EXPECT_THAT(json, Not(HasSubstr("\"job\"")));
  auto plain = ParseReportJson(json);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->process.has_value());
  EXPECT_TRUE(plain->processes.empty());
}

TEST(JobRenderTest, DecodeErrorsNameThePath) {
  std::string json = RenderJson(JobReport());
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  auto bad = ParseReportJson(replace(json, "\"pid\": 102", "\"pid\": -3"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("$.processes[1].pid"));
  bad = ParseReportJson(replace(json, "\"rank\": 0,", "\"rank\": -2,"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("$.processes[0].rank"));
  bad = ParseReportJson(replace(json, "\"ranks\": 1", "\"ranks\": \"1\""));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("$.job.ranks"));
}

// Every job member given hostile values in turn: rejected with its path, or read as well-formed;
// never a crash. (report_json_fuzzer reaches the same decoder with arbitrary bytes.)
TEST(JobRenderTest, HostileValuesInEveryJobMember) {
  Report r = JobReport();
  r.process.emplace();
  r.process->rank = 1;
  const std::string json = RenderJsonCompact(r);
  const std::vector<std::string> keys = {
      "\"pid\":", "\"rank\":", "\"host\":", "\"command\":", "\"exit_code\":", "\"ended\":",
      "\"kernels\":", "\"devices\":", "\"events_dropped\":", "\"top_stall\":", "\"verdict\":",
      "\"processes\":", "\"job\":", "\"ranks\":", "\"straggler\":", "\"why\":", "\"process\":",
      "\"local_rank\":", "\"world_size\":", "\"exit_seen\":", "\"term_signal\":"};
  const std::vector<std::string> values = {"null", "-1", "1e99", "18446744073709551616", "\"x\"",
                                           "[]", "{}", "true", "[1,[2]]"};
  size_t rejected = 0, tried = 0;
  for (const std::string& key : keys) {
    for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at + 1)) {
      // The value runs from after the key to the next ',' or '}' at the same depth (or the
      // whole nested value); replacing only scalars and whole containers keeps the JSON valid.
      const size_t start = at + key.size();
      size_t end = start;
      int depth = 0;
      bool in_string = false;
      for (; end < json.size(); ++end) {
        const char c = json[end];
        if (in_string) {
          if (c == '\\') ++end;
          else if (c == '"') in_string = false;
          continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') ++depth;
        else if ((c == ']' || c == '}') && depth-- == 0) break;
        else if (c == ',' && depth == 0) break;
      }
      for (const std::string& v : values) {
        const std::string hostile = json.substr(0, start) + v + json.substr(end);
        auto parsed = ParseReportJson(hostile);
        ++tried;
        if (!parsed.ok()) {
          ++rejected;
          EXPECT_THAT(parsed.status().message(), HasSubstr("$")) << hostile;
        }
      }
    }
  }
  EXPECT_GT(tried, 100u);
  EXPECT_GT(rejected, tried / 2);
}

TEST(JobRenderTest, TextHasTheProcessesTableAndTheStraggler) {
  const std::string text = RenderText(JobReport());
  EXPECT_THAT(text, HasSubstr("PROCESSES  2 processes, 1 ranks"));
  EXPECT_THAT(text, HasSubstr("STRAGGLER\n  rank 0 spent 500 ms on the host outside CUDA"));
  std::string row_a, row_b;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(line.size(), static_cast<size_t>(kTextReportColumns)) << line;
    if (absl::StrContains(line, "node-a")) row_a = std::string(line);
    if (absl::StrContains(line, "node-b")) row_b = std::string(line);
  }
  EXPECT_THAT(row_a, HasSubstr("1,234"));
  EXPECT_THAT(row_a, HasSubstr("1.50 s"));
  EXPECT_THAT(row_a, HasSubstr("sync-bound"));
  EXPECT_THAT(row_b, HasSubstr("gone"));
  EXPECT_THAT(text, HasSubstr("vanished (killed or crashed); 55 records dropped (ring full)"));
  EXPECT_THAT(text, HasSubstr("host outside CUDA 500 ms"));
  Report even = JobReport();
  even.job->straggler.reset();
  EXPECT_THAT(RenderText(even), HasSubstr("STRAGGLER  none: the processes are even"));
}

}  // namespace
}  // namespace brrr
