// The notes of processes that ran unprofiled: read bounded and cleaned from a job directory (links
// and other files ignored), and said in the report: a gap each, the coverage not complete, and the
// verdict "unprofiled" where nothing profiled used CUDA.
#include "collector/cli/unprofiled_notes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace brrr::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(UnprofiledNotesTest, NotesAreReadBoundedAndCleaned) {
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("unprofiled_", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "unprofiled-1-5") << "the app is PID 1 of its namespace\n";
  std::ofstream(dir / "unprofiled-7-9") << "odd\x01text" << std::string(2000, 'x');
  std::ofstream(dir / "12.brrr") << "not a note";
  std::ofstream(dir / "target") << "secret";
  fs::create_symlink(dir / "target", dir / "unprofiled-8-1");
  const std::vector<std::string> notes = ReadUnprofiledNotes(dir.string());
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], "the app is PID 1 of its namespace");
  EXPECT_EQ(notes[1].substr(0, 8), "odd text");
  EXPECT_EQ(notes[1].size(), kMaxUnprofiledNoteBytes);
  EXPECT_EQ(notes[2], "not profiled (no reason given)") << "a link is not read";
  EXPECT_TRUE(ReadUnprofiledNotes((dir / "none").string()).empty());
  fs::remove_all(dir);
}

TEST(UnprofiledNotesTest, NoCudaWorkBecomesUnprofiledAndTheCoverageSaysWhy) {
  Report r;
  r.verdict.regime = "no-cuda-work";
  r.verdict.why = "no CUDA call was recorded";
  NoteUnprofiledProcesses({}, r);
  EXPECT_EQ(r.verdict.regime, "no-cuda-work");
  EXPECT_FALSE(r.coverage.has_value());
  NoteUnprofiledProcesses({"the app is PID 1 of its namespace"}, r);
  EXPECT_EQ(r.verdict.regime, "unprofiled");
  EXPECT_THAT(r.verdict.why, HasSubstr("a process ran unprofiled (the app is PID 1"));
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_FALSE(r.coverage->complete);
  EXPECT_THAT(r.coverage->gaps,
              ElementsAre("a process ran unprofiled, in no figure: the app is PID 1 of its "
                          "namespace"));
  // A job whose other processes were profiled keeps its verdict, with the gap.
  Report job;
  job.verdict.regime = "launch-bound";
  NoteUnprofiledProcesses({"a", "b"}, job);
  EXPECT_EQ(job.verdict.regime, "launch-bound");
  EXPECT_EQ(job.coverage->gaps.size(), 2u);
}

}  // namespace
}  // namespace brrr::cli
