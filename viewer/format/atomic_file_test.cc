// AtomicFileWriter and WriteFileAtomically: the file appears whole or not at all, mode 0600, and
// nothing is left behind when a write is abandoned or fails.
#include "viewer/format/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace brrr {
namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/brrr-atomic-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Read(const std::string& path) const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++n;
    return n;
  }
  std::string dir_;
};

TEST_F(AtomicFileTest, PiecesAppearTogetherOnlyAtCommitWithMode0600) {
  const std::string path = Path("out.txt");
  ASSERT_TRUE(WriteFileAtomically(path, "old contents").ok());
  auto writer = AtomicFileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  (*writer)->Append("first ");
  (*writer)->Append("");
  (*writer)->Append("second");
  EXPECT_EQ(Read(path), "old contents");  // not replaced before the commit
  EXPECT_EQ((*writer)->bytes_written(), 12u);
  ASSERT_TRUE((*writer)->Commit().ok());
  EXPECT_EQ(Read(path), "first second");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(Entries(), 1u);  // no temporary file left
  EXPECT_FALSE((*writer)->Commit().ok());  // once only
}

TEST_F(AtomicFileTest, AnAbandonedWriterLeavesTheOldFileAndNoTemporary) {
  const std::string path = Path("kept.txt");
  ASSERT_TRUE(WriteFileAtomically(path, "kept").ok());
  {
    auto writer = AtomicFileWriter::Create(path);
    ASSERT_TRUE(writer.ok());
    (*writer)->Append("never seen");
    EXPECT_EQ(Entries(), 2u);  // the old file and the temporary one
  }
  EXPECT_EQ(Read(path), "kept");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(AtomicFileTest, NoReplaceKeepsAnExistingFileAndRemovesTheTemporary) {
  const std::string path = Path("exists.txt");
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  auto writer = AtomicFileWriter::Create(path, Replace::kNo);
  ASSERT_TRUE(writer.ok());
  (*writer)->Append("second");
  const absl::Status status = (*writer)->Commit();
  EXPECT_TRUE(absl::IsAlreadyExists(status)) << status;
  EXPECT_EQ(Read(path), "first");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(AtomicFileTest, ClearErrorsForPathsThatCannotBeWritten) {
  auto missing = AtomicFileWriter::Create(Path("no-such-dir/out.txt"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot create"), absl::string_view::npos)
      << missing.status();
  EXPECT_FALSE(AtomicFileWriter::Create("").ok());
  EXPECT_FALSE(AtomicFileWriter::Create(dir_ + "/").ok());
  EXPECT_EQ(Entries(), 0u);
}

TEST(AtomicFileDirectoryTest, ADirectoryIsRefusedWithWhatToGive) {
  const std::string dir = ::testing::TempDir();
  const absl::Status s = WriteFileAtomically(dir, "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is a directory; give a file's name"), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace brrr
