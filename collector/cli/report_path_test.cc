// Choosing and writing a report's file: an existing report is never replaced (a numbered sibling
// is chosen and said, also when the name is taken between the choice and the first write), a
// file name without an extension gets its number at the end, a path that cannot be written falls
// back to the default name, saying so at the start, and nothing is created before the first write.
#include "collector/cli/report_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "viewer/format/brrr_file.h"

namespace brrr::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ReportPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / absl::StrCat("report_path_test_", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ReportPathTest, AFreeNameIsChosenAndNothingIsCreatedBeforeTheFirstWrite) {
  const std::string want = (dir_ / "run.brrr").string();
  auto c = ClaimReportPath(want, 42);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->path, want);
  EXPECT_EQ(c->note, "");
  EXPECT_FALSE(fs::exists(want));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 0)
      << "the directory probe left something behind";
  ReportDestination d(c->path);
  Report r;
  r.command = "first";
  ASSERT_TRUE(d.Write(r, nullptr).ok());
  struct stat st {};
  ASSERT_EQ(stat(want.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  r.command = "second";  // later writes replace the collection's own file
  ASSERT_TRUE(d.Write(r, nullptr).ok());
  EXPECT_EQ(ReadBrrrFile(want)->command, "second");
}

TEST_F(ReportPathTest, ANameTakenAfterItWasChosenMovesTheFirstWriteToASibling) {
  const std::string want = (dir_ / "run.brrr").string();
  auto c = ClaimReportPath(want, 42);
  ASSERT_TRUE(c.ok());
  std::ofstream(want) << "written meanwhile by another collection";
  ReportDestination d(c->path);
  std::string moved;
  ASSERT_TRUE(d.Write(Report{}, nullptr, &moved).ok());
  EXPECT_EQ(d.path(), (dir_ / "run-1.brrr").string());
  EXPECT_EQ(moved, want + " was written meanwhile (kept); this report goes to " + d.path());
  std::ifstream in(want);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "written meanwhile by another collection");
}

TEST_F(ReportPathTest, AnExistingReportIsKeptAndTheNextGoesToANumberedSibling) {
  const std::string want = (dir_ / "run.brrr").string();
  std::ofstream(want) << "an earlier report";
  auto first = ClaimReportPath(want, 42);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->path, (dir_ / "run-1.brrr").string());
  EXPECT_EQ(first->note, want + " exists already (kept); this report goes to " + first->path);
  std::ofstream(first->path) << "x";
  auto second = ClaimReportPath(want, 42);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->path, (dir_ / "run-2.brrr").string());
  std::ifstream in(want);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "an earlier report");
  // No extension: the number goes at the end; a dot in a directory name is not an extension.
  fs::create_directories(dir_ / "a.d");
  std::ofstream((dir_ / "a.d" / "out").string()) << "x";
  auto plain = ClaimReportPath((dir_ / "a.d" / "out").string(), 42);  // (no extension)
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->path, (dir_ / "a.d" / "out-1").string());
}

TEST_F(ReportPathTest, AnUnwritablePathFallsBackToTheDefaultNameAndSaysSo) {
  const std::string want = (dir_ / "no-such-dir" / "run.brrr").string();
  auto c = ClaimReportPath(want, 4242);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->note, HasSubstr("cannot write " + want + " (No such file or directory); the "
                                 "report goes to "));
  EXPECT_THAT(c->path, HasSubstr("brrr-4242"));
}

}  // namespace
}  // namespace brrr::cli
