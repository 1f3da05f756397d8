// Runs the real brrr binary: usage errors exit 2; `brrr run` exits with the command's status (as a
// shell reports it) and writes the file that `brrr report` renders; `brrr attach` finishes once
// the app says it has, signals collector_done and removes the segment.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "collector/ingest/segment_creator.h"
#include "collector/ingest/shm_mapping.h"
#include "shim/settings.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/brrr_file_format.h"
#include "viewer/format/strict_json.h"

extern char** environ;

namespace brrr::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A small segment whose app (this process) says it has finished, as `brrr attach` finds one.
absl::StatusOr<std::unique_ptr<ingest::CreatedSegment>> FinishedSegment() {
  ring::SegmentGeometry g;
  g.max_threads = 2;
  g.ring_capacity = 64;
  g.device_capacity = 64;
  g.stack_slots = 8;
  g.name_slots = 8;
  auto segment = ingest::CreatedSegment::Create(g);
  if (segment.ok()) {
    auto* header = static_cast<ring::SegmentHeader*>((*segment)->mapping().base());
    header->pid = static_cast<uint32_t>(getpid());
    header->finished.store(1);
  }
  return segment;
}

class BrrrBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("brrr_binary_test_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Outcome Brrr(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BRRR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      if (!absl::StartsWith(*e, "LD_PRELOAD=")) env.emplace_back(*e);
    }
    if (std::string(BRRR_ASAN_RUNTIME).size() > 0) {
      env.push_back(absl::StrCat("LD_PRELOAD=", BRRR_ASAN_RUNTIME));
    }
    std::vector<char*> cenv;
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    pid_t pid = 0;
    Outcome o;
    if (posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data()) != 0) return o;
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    waitpid(pid, &status, 0);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = ReadAll(out);
    o.err = ReadAll(err);
    return o;
  }

  std::vector<std::filesystem::path> BrrrFiles() {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      if (e.path().extension() == ".brrr") files.push_back(e.path());
    }
    return files;
  }

  std::filesystem::path dir_;
};

TEST_F(BrrrBinaryTest, VersionNamesTheProjectTheFormatsAndTheCuda) {
  const Outcome o = Brrr({"--version"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr(absl::StrCat("brrr ", BRRR_PROJECT_VERSION, "\n")));
  EXPECT_THAT(o.out, HasSubstr(absl::StrCat(".brrr format ", kBrrrFormatVersion)));
  EXPECT_THAT(o.out, HasSubstr("brrr.report/1"));
  EXPECT_THAT(o.out, HasSubstr(absl::StrCat("built against CUDA ", BRRR_CUDA_TOOLKIT_VERSION)));
  EXPECT_EQ(Brrr({"--version", "x"}).exit_code, 2);
}

TEST_F(BrrrBinaryTest, PreloadPathIsTheShimNextToTheBinary) {
  const Outcome o = Brrr({"preload-path"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const std::string want =
      (std::filesystem::canonical(BRRR_BINARY).parent_path() / "libbrrr.so").string() + "\n";
  EXPECT_EQ(o.out, want);
}

// The man page is made from the usage and settings tables: every subcommand of the usage and
// every setting of shim/settings.def a user may set is in it.
TEST_F(BrrrBinaryTest, TheManPageHasEverySubcommandAndSetting) {
  const Outcome o = Brrr({"man"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(absl::StartsWith(o.out, ".TH BRRR 1 "));
  for (const char* sub : {"run", "attach", "report", "diff", "merge", "ctl", "settings", "clean",
                          "preload\\-path", "man"}) {
    EXPECT_THAT(o.out, HasSubstr(absl::StrCat("brrr ", sub, " "))) << sub;
  }
  for (const settings::Spec& spec : settings::kSpecs) {
    if (spec.audience == settings::Audience::kTestOnly) continue;
    std::string name = spec.name;
    EXPECT_THAT(o.out, HasSubstr(absl::StrCat(".B ", absl::StrReplaceAll(name, {{"-", "\\-"}}),
                                              "\n")))
        << name;
  }
  EXPECT_THAT(o.out, Not(HasSubstr("BRRR_PM_SAMPLING_LIBRARY")));  // test builds only
}

// A file written by brrr 0.1.0 (format 1: tests/data, e2e_launch_bound 100 on the simulated
// device) stays readable by every later brrr, with what that run did: 100 launches, exit 0.
TEST_F(BrrrBinaryTest, AFormat1FileFromBrrr010StaysReadable) {
  const Outcome o =
      Brrr({"report", "--json", std::string(BRRR_SOURCE_DIR) + "/tests/data/format1-0.1.0-launch100.brrr"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  absl::StatusOr<nlohmann::json> doc = ParseStrictJson(o.out);
  ASSERT_TRUE(doc.ok()) << doc.status();
  uint64_t launches = 0;
  for (const auto& api : (*doc)["api"]) {
    if (api["name"] == "__cudaLaunchKernel") launches = api["calls"].get<uint64_t>();
  }
  EXPECT_EQ(launches, 100u);
  EXPECT_EQ((*doc)["exit_code"], 0);
}

TEST_F(BrrrBinaryTest, BadCommandLinesPrintUsageAndExit2) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"frobnicate"},
                                               {"run"},
                                               {"run", "--bogus", "--", "true"},
                                               {"run", "--ring-records", "3", "--", "true"},
                                               {"report"},
                                               {"attach", "--pid", "1"},
                                               {"run", "--trace=abc", "--", "true"},
                                               {"report", "x.brrr", "--chrome-trace"}}) {
    const Outcome o = Brrr(args);
    EXPECT_EQ(o.exit_code, 2) << ::testing::PrintToString(args);
    // One line saying what is wrong and where the usage is, not the whole usage.
    EXPECT_THAT(o.err, HasSubstr("(brrr --help shows the usage)\n"))
        << ::testing::PrintToString(args);
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  const Outcome banana = Brrr({"run", "--snapshot-every", "banana", "--", "true"});
  EXPECT_EQ(banana.exit_code, 2);
  EXPECT_EQ(banana.err,
            "brrr: --snapshot-every: 'banana' is not a duration (10s, 500ms, 2m, 1h, or 0 for off) "
            "(brrr --help shows the usage)\n");
  const Outcome help = Brrr({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("brrr run"));
}

TEST_F(BrrrBinaryTest, RunExitsWithTheCommandsStatusAndWritesTheFile) {
  const std::string pattern = (dir_ / "out-%p.brrr").string();
  const Outcome o = Brrr({"run", "--output", pattern, "--", "sh", "-c", "exit 3"});
  ASSERT_EQ(o.exit_code, 3) << o.err;
  EXPECT_THAT(o.err, HasSubstr("brrr: wrote "));
  const auto files = BrrrFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0].filename().string(), ::testing::MatchesRegex("out-[0-9]+\\.brrr"));
  struct stat st {};
  ASSERT_EQ(stat(files[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const Outcome text = Brrr({"report", files[0].string()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_FALSE(text.out.empty());
  const Outcome json = Brrr({"report", files[0].string(), "--json"});
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_THAT(json.out, HasSubstr("brrr.report/1"));
  EXPECT_THAT(json.out, HasSubstr("exit 3"));
}

TEST_F(BrrrBinaryTest, RunReportsDeathBySignalAsAShellDoes) {
  const Outcome o = Brrr(
      {"run", "--quiet", "--output", (dir_ / "k.brrr").string(), "--", "sh", "-c", "kill -9 $$"});
  EXPECT_EQ(o.exit_code, 128 + 9);
  EXPECT_EQ(BrrrFiles().size(), 1u);
  EXPECT_THAT(o.err, Not(HasSubstr("brrr: wrote"))) << "--quiet";
}

TEST_F(BrrrBinaryTest, RunOfAMissingCommandExits127) {
  const Outcome o =
      Brrr({"run", "--output", (dir_ / "x.brrr").string(), "--", "brrr-no-such-command-xyz"});
  EXPECT_EQ(o.exit_code, 127);
  EXPECT_THAT(o.err, HasSubstr("command not found"));
  EXPECT_TRUE(BrrrFiles().empty());
}

TEST_F(BrrrBinaryTest, RunJsonPrintsTheJsonReport) {
  const Outcome o = Brrr({"run", "--json", "--output", (dir_ / "j.brrr").string(), "--", "true"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_THAT(o.err, HasSubstr("\"schema\""));
}

TEST_F(BrrrBinaryTest, ReportOfAMissingOrCorruptFileFailsWithAMessage) {
  Outcome o = Brrr({"report", (dir_ / "missing.brrr").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("brrr report:"));
  std::ofstream(dir_ / "junk.brrr") << "this is not a brrr file";
  o = Brrr({"report", (dir_ / "junk.brrr").string()});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("brrr report:"));
}

TEST_F(BrrrBinaryTest, AttachFinishesSignalsDoneAndRemovesTheSegment) {
  auto segment = FinishedSegment();
  ASSERT_TRUE(segment.ok());
  auto* header = static_cast<ring::SegmentHeader*>((*segment)->mapping().base());
  setenv("BRRR_OUTPUT", (dir_ / "attach-%p.brrr").c_str(), 1);
  const Outcome o = Brrr({"attach", "--shm", (*segment)->name(), "--pid", absl::StrCat(getpid())});
  unsetenv("BRRR_OUTPUT");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(header->collector_done.load(), 1u);
  EXPECT_FALSE(ingest::ShmMapping::OpenExisting((*segment)->name()).ok()) << "unlinked";
  ASSERT_EQ(BrrrFiles().size(), 1u);
  EXPECT_EQ(BrrrFiles()[0].filename().string(), absl::StrCat("attach-", getpid(), ".brrr"));
}

TEST_F(BrrrBinaryTest, RunTraceSavesATraceThatReportExportsAsChromeJson) {
  const std::string file = (dir_ / "t.brrr").string(), json = (dir_ / "t.json").string();
  const Outcome o = Brrr({"run", "--trace=5", "--output", file, "--", "true"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("event trace: 0 events kept, 0 left out by the cap of 5"));
  auto contents = ReadBrrrContents(file);
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_TRUE(contents->trace.has_value());
  EXPECT_EQ(contents->trace->cap, 5u);
  const Outcome e = Brrr({"report", file, "--chrome-trace", json});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_THAT(e.err, HasSubstr("wrote " + json));
  absl::StatusOr<nlohmann::json> doc = ParseStrictJson(ReadAll(json));
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_TRUE(doc->contains("traceEvents"));
  EXPECT_EQ(doc->at("otherData").at("trace_cap").dump(), "5");
}

TEST_F(BrrrBinaryTest, ARunThatNeverUsedCudaIsSaidSoNotInputBound) {
  const std::string file = (dir_ / "nocuda.brrr").string();
  const Outcome o = Brrr({"run", "--output", file, "--", "sh", "-c", "exit 0"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_THAT(o.err, HasSubstr("VERDICT: no-cuda-work"));
  EXPECT_THAT(o.err, HasSubstr("the program did not use CUDA"));
  EXPECT_THAT(o.err, Not(HasSubstr("DataLoader")));
  auto report = ReadBrrrFile(file);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict.regime, "no-cuda-work");
  EXPECT_TRUE(report->verdict.advice.empty());
}

TEST_F(BrrrBinaryTest, AnExistingReportIsNeverReplacedEvenQuietly) {
  const std::string file = (dir_ / "same.brrr").string();
  const Outcome first = Brrr({"run", "--quiet", "--output", file, "--", "true"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");
  const std::string kept = ReadAll(file);
  ASSERT_FALSE(kept.empty());
  const Outcome second = Brrr({"run", "--quiet", "--output", file, "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(second.exit_code, 3);
  const std::string sibling = (dir_ / "same-1.brrr").string();
  EXPECT_EQ(second.err, "brrr: " + file + " exists already (kept); this report goes to " +
                            sibling + "\n");
  EXPECT_EQ(ReadAll(file), kept);
  auto report = ReadBrrrFile(sibling);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->exit_code, 3);
}

TEST_F(BrrrBinaryTest, ABadOutputPathIsSaidAtTheStartInOneLineAndTheAppRuns) {
  // The command prints its first line only after brrr has spoken: the line comes at the start.
  const std::string bad = (dir_ / "missing-dir" / "x.brrr").string();
  const std::string marker = (dir_ / "marker").string();
  const Outcome o = Brrr({"run", "--quiet", "--output", bad, "--", "sh", "-c",
                          "echo started > " + marker + "; exit 0"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(marker));
  EXPECT_THAT(o.err, HasSubstr("brrr: cannot write " + bad +
                               " (No such file or directory); the report goes to "));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  // Where it went: the default name in the working directory, or $TMPDIR (/tmp).
  const std::string where = o.err.substr(o.err.find("goes to ") + 8);
  const std::string path = where.substr(0, where.size() - 1);
  auto report = ReadBrrrFile(path[0] == '/' ? path : (std::filesystem::current_path() / path).string());
  EXPECT_TRUE(report.ok()) << report.status();
  std::filesystem::remove(path);
}

TEST_F(BrrrBinaryTest, ChromeTraceOfAFileWithoutTraceFails) {
  const std::string file = (dir_ / "n.brrr").string(), json = (dir_ / "n.json").string();
  ASSERT_EQ(Brrr({"run", "--quiet", "--output", file, "--", "true"}).exit_code, 0);
  const Outcome e = Brrr({"report", file, "--chrome-trace", json});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_THAT(e.err, HasSubstr("no event trace in this file"));
  EXPECT_FALSE(std::filesystem::exists(json));
}

TEST_F(BrrrBinaryTest, AttachReadsBrrrTraceFromItsEnvironmentAndWarnsAboutBadValues) {
  // value -> the trace cap it gives (0 = no trace) and the warning it gets ("" = none).
  const struct {
    const char* value;
    uint64_t cap;
    const char* warning;
  } cases[] = {{"2500", 2500, ""},
               {"lots", 0, "BRRR_TRACE=lots: not a whole number from 0 to 100000000; using the "
                           "default (0)"}};
  for (const auto& c : cases) {
    auto segment = FinishedSegment();
    ASSERT_TRUE(segment.ok());
    const std::string file = (dir_ / absl::StrCat(c.value, ".brrr")).string();
    setenv("BRRR_OUTPUT", file.c_str(), 1);
    setenv("BRRR_TRACE", c.value, 1);
    const Outcome o =
        Brrr({"attach", "--shm", (*segment)->name(), "--pid", absl::StrCat(getpid())});
    unsetenv("BRRR_OUTPUT");
    unsetenv("BRRR_TRACE");
    EXPECT_EQ(o.exit_code, 0) << o.err;
    if (c.warning[0] != '\0') {
      EXPECT_THAT(o.err, HasSubstr(c.warning));
    } else {
      EXPECT_THAT(o.err, Not(HasSubstr("BRRR_TRACE")));
    }
    auto contents = ReadBrrrContents(file);
    ASSERT_TRUE(contents.ok()) << contents.status();
    EXPECT_EQ(contents->trace.has_value(), c.cap != 0) << c.value;
    if (contents->trace.has_value()) {
      EXPECT_EQ(contents->trace->cap, c.cap);
    }
  }
}

TEST_F(BrrrBinaryTest, MergeCommandLinesAndUnreadableInputs) {
  Outcome o = Brrr({"merge"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("merge needs at least one FILE"));
  o = Brrr({"merge", "a.brrr"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("merge needs --output"));
  const std::string missing = (dir_ / "missing.brrr").string();
  const std::string job = (dir_ / "job.brrr").string();
  o = Brrr({"merge", missing, "--output", job});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr(missing));
  EXPECT_THAT(o.err, HasSubstr("nothing written"));
  EXPECT_FALSE(std::filesystem::exists(job));
  // The same file twice (by name, or by another path to it) is refused: it would count twice.
  const std::string one = (dir_ / "one.brrr").string();
  ASSERT_EQ(Brrr({"run", "--quiet", "--output", one, "--", "true"}).exit_code, 0);
  for (const std::string& again : {one, (dir_ / "." / "one.brrr").string()}) {
    o = Brrr({"merge", one, again, "--output", job});
    EXPECT_EQ(o.exit_code, 2) << again;
    EXPECT_THAT(o.err, HasSubstr("are the same file")) << again;
    EXPECT_FALSE(std::filesystem::exists(job));
  }
}

// In a `brrr run` job the collector of a further process writes <BRRR_JOB_DIR>/<pid>.brrr, prints
// nothing, and records the rank it inherited; without the directory it writes by BRRR_OUTPUT.
TEST_F(BrrrBinaryTest, AttachInAJobWritesIntoTheJobDirectoryQuietly) {
  const std::string job_dir = (dir_ / "job").string();
  std::filesystem::create_directories(job_dir);
  const std::string elsewhere = (dir_ / "r%r.brrr").string();
  for (const bool dir_exists : {true, false}) {
    ring::SegmentGeometry g;
    g.max_threads = 1;
    g.ring_capacity = 8;
    g.stack_slots = 8;
    g.name_slots = 8;
    auto segment = ingest::CreatedSegment::Create(g);
    ASSERT_TRUE(segment.ok());
    auto* header = static_cast<ring::SegmentHeader*>((*segment)->mapping().base());
    header->pid = static_cast<uint32_t>(getpid());
    header->finished.store(1);
    setenv("BRRR_JOB_DIR", dir_exists ? job_dir.c_str() : "/nonexistent/brrr-job-x", 1);
    setenv("BRRR_OUTPUT", elsewhere.c_str(), 1);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    const Outcome o =
        Brrr({"attach", "--shm", (*segment)->name(), "--pid", absl::StrCat(getpid())});
    unsetenv("BRRR_JOB_DIR");
    unsetenv("BRRR_OUTPUT");
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    EXPECT_EQ(o.exit_code, 0) << o.err;
    const std::string file = dir_exists ? absl::StrCat(job_dir, "/", getpid(), ".brrr")
                                        : (dir_ / "r3.brrr").string();
    auto report = ReadBrrrFile(file);
    ASSERT_TRUE(report.ok()) << report.status() << "\n" << o.err;
    ASSERT_TRUE(report->process.has_value());
    EXPECT_EQ(report->process->pid, static_cast<uint32_t>(getpid()));
    EXPECT_EQ(report->process->rank, 3);
    EXPECT_EQ(report->process->world_size, 4);
    EXPECT_EQ(report->process->rank_from, "OMPI_COMM_WORLD_RANK");
    EXPECT_FALSE(report->process->host.empty());
    if (dir_exists) {
      EXPECT_THAT(o.err, Not(HasSubstr("brrr: wrote"))) << "quiet in a job";
    } else {
      EXPECT_THAT(o.err, HasSubstr("brrr: wrote " + file));
    }
  }
}

// Issue 48: an object of /dev/shm that is not brrr's (no brrr header) was removed by the attach
// that failed to read it. brrr may remove only what it proves its own.
TEST_F(BrrrBinaryTest, AttachLeavesSharedMemoryThatIsNotBrrrsAlone) {
  for (const std::string name : {absl::StrCat("/other-", getpid()),
                                 absl::StrCat("/brrr-", getpid(), "-deadbeef")}) {
    const std::string path = "/dev/shm" + name;
    {
      std::ofstream zeros(path, std::ios::binary);
      zeros << std::string(1 << 20, '\0');
    }
    const Outcome o = Brrr({"attach", "--shm", name, "--pid", "1"});
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_THAT(o.err, HasSubstr("brrr attach: " + name + ": "));
    EXPECT_TRUE(std::filesystem::exists(path)) << name << " was removed";
    std::filesystem::remove(path);
  }
}

// `brrr clean` (what it removes is leftover_segments_test's): a summary line always, usage errors
// exit 2, and --help says what it keeps.
TEST_F(BrrrBinaryTest, CleanSaysWhatItRemovedAndRefusesUnknownOptions) {
  const Outcome listed = Brrr({"clean", "--dry-run"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, ::testing::ContainsRegex("would remove [0-9]+ leftover segments? \\("));
  const Outcome bad = Brrr({"clean", "--everything"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown option '--everything'"));
  const Outcome help = Brrr({"clean", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("kept for recovery"));
}

TEST_F(BrrrBinaryTest, AttachToAMissingSegmentFails) {
  const Outcome o = Brrr({"attach", "--shm", "/brrr-test-missing-xyz", "--pid", "1"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("shm_open"));
}

}  // namespace
}  // namespace brrr::cli
