// Tests for brrr_file.h: the on-disk layout, the file round trip, mode 0600 and atomic
// replacement, and the reader's error messages for each kind of damage.
// Must never: leave files behind (each test uses its own temporary directory) or build the
// expected bytes with the writer under test.
#include "viewer/format/brrr_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/byte_order.h"
#include "viewer/format/crc32.h"
#include "viewer/format/report_json.h"
#include "viewer/format/sample_report.h"
#include "viewer/format/section_bytes_for_test.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

// A fresh directory per test, removed (with its files) afterwards.
class BrrrFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "/brrr_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& name : ListDir()) unlink((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
  }
  std::vector<std::string> ListDir() const {
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    if (d == nullptr) return names;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
    return names;
  }
  static void WriteRaw(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  std::string dir_;
};

std::string FileHeader(uint32_t version, uint32_t sections) {
  std::string out = "BRRRFILE";
  AppendLe32(out, version);
  AppendLe32(out, sections);
  return out;
}

TEST(BrrrFileLayoutTest, MatchesTheDocumentedFormat) {
  const Report report = SampleReport();
  const std::string bytes = SerializeBrrrFile(report);
  const std::string json = RenderJsonCompact(report);
  EXPECT_EQ(bytes, FileHeader(1, 1) + Section(1, json));
  // Spot-check the little-endian encoding by hand.
  EXPECT_EQ(bytes.substr(8, 8), std::string("\x01\x00\x00\x00\x01\x00\x00\x00", 8));
  EXPECT_EQ(bytes.substr(16, 4), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(static_cast<unsigned char>(bytes[20]), json.size() & 0xff);
}

TEST_F(BrrrFileTest, WriteThenReadGivesAnEqualReport) {
  const std::string path = dir_ + "/run.brrr";
  ASSERT_TRUE(WriteBrrrFile(path, SampleReport()).ok());
  absl::StatusOr<Report> read = ReadBrrrFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, SampleReport());
}

TEST_F(BrrrFileTest, FileHasMode0600EvenWithAPermissiveUmask) {
  const mode_t old_umask = umask(0);
  const std::string path = dir_ + "/run.brrr";
  const absl::Status status = WriteBrrrFile(path, SampleReport());
  umask(old_umask);
  ASSERT_TRUE(status.ok()) << status;
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(BrrrFileTest, ReplacesAnExistingFileAndLeavesNoTemporaryFiles) {
  const std::string path = dir_ + "/run.brrr";
  WriteRaw(path, "old contents");
  chmod(path.c_str(), 0644);
  Report second = SampleReport();
  second.command = "second";
  ASSERT_TRUE(WriteBrrrFile(path, second).ok());
  absl::StatusOr<Report> read = ReadBrrrFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->command, "second");
  EXPECT_EQ(ListDir(), std::vector<std::string>{"run.brrr"});
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(BrrrFileTest, RelativePathWithoutDirectoryWorks) {
  char old_cwd[4096];
  ASSERT_NE(getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(chdir(dir_.c_str()), 0);
  const absl::Status status = WriteBrrrFile("plain.brrr", SampleReport());
  const absl::StatusOr<Report> read = ReadBrrrFile("plain.brrr");
  ASSERT_EQ(chdir(old_cwd), 0);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_TRUE(read.ok()) << read.status();
}

TEST_F(BrrrFileTest, WriteErrorsNameThePathAndCleanUp) {
  const absl::Status missing_dir = WriteBrrrFile(dir_ + "/no/such/dir/x.brrr", SampleReport());
  EXPECT_EQ(missing_dir.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing_dir.message(), HasSubstr(dir_ + "/no/such/dir/"));
  EXPECT_THAT(missing_dir.message(), HasSubstr("cannot create"));

  ASSERT_EQ(mkdir((dir_ + "/sub").c_str(), 0700), 0);
  const absl::Status onto_dir = WriteBrrrFile(dir_ + "/sub", SampleReport());
  EXPECT_FALSE(onto_dir.ok());
  EXPECT_THAT(onto_dir.message(), HasSubstr("is a directory; give a file's name"));
  EXPECT_EQ(ListDir(), std::vector<std::string>{"sub"});  // the temporary file is gone
  rmdir((dir_ + "/sub").c_str());

  EXPECT_FALSE(WriteBrrrFile("", SampleReport()).ok());
  EXPECT_FALSE(WriteBrrrFile(dir_ + "/", SampleReport()).ok());
}

TEST_F(BrrrFileTest, ReadErrorsNameThePath) {
  const absl::StatusOr<Report> missing = ReadBrrrFile(dir_ + "/missing.brrr");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(dir_ + "/missing.brrr: cannot open"));

  const absl::StatusOr<Report> directory = ReadBrrrFile(dir_);
  EXPECT_THAT(directory.status().message(), HasSubstr("not a regular file"));

  const std::string path = dir_ + "/text.brrr";
  WriteRaw(path, "hello world, this is not a brrr file");
  const absl::StatusOr<Report> text = ReadBrrrFile(path);
  EXPECT_THAT(text.status().message(),
              HasSubstr(path + ": not a .brrr file (bad magic: starts with \"hello wo\""));
}

TEST(ParseBrrrFileTest, NewerFormatVersionIsAClearError) {
  const std::string bytes = FileHeader(3, 1) + Section(1, RenderJsonCompact(SampleReport()));
  const absl::StatusOr<Report> r = ParseBrrrFile(bytes, "FILE");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(r.status().message(),
            "FILE: written by a newer brrr (format 3); this brrr reads up to 1");
}

TEST(ParseBrrrFileTest, VersionZeroIsCorrupt) {
  const absl::StatusOr<Report> r = ParseBrrrFile(FileHeader(0, 0), "f");
  EXPECT_THAT(r.status().message(), HasSubstr("invalid format version 0"));
}

TEST(ParseBrrrFileTest, UnknownSectionsAreSkipped) {
  const std::string json = RenderJsonCompact(SampleReport());
  const std::string bytes = FileHeader(1, 3) + Section(2, "trace bytes \x00\xff") +
                            Section(1, json) + Section(0x7777, std::string(1000, 'z'));
  const absl::StatusOr<Report> r = ParseBrrrFile(bytes, "f");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, SampleReport());
}

TEST(ParseBrrrFileTest, CrcMismatchNamesTheSection) {
  std::string bytes = FileHeader(1, 2) + Section(2, "x") + Section(1, RenderJsonCompact(Report()));
  bytes[bytes.size() - 3] ^= 0x20;
  const absl::StatusOr<Report> r = ParseBrrrFile(bytes, "FILE");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(),
              HasSubstr("FILE: CRC mismatch in section 2 (report JSON, header at byte 33)"));
}

TEST(ParseBrrrFileTest, StructuralErrors) {
  const std::string json = RenderJsonCompact(Report());
  struct Case {
    std::string bytes;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "empty file"},
      {"BRRX", "bad magic"},
      {"BRRR", "truncated at byte 4: the file header needs 16 bytes"},
      {FileHeader(1, 0), "no report section"},
      {FileHeader(1, 1), "truncated at byte 16: section 1 of 1 (header at byte 16) needs 32 bytes"},
      {FileHeader(1, 2) + Section(1, json), "section 2 of 2"},
      {FileHeader(1, 1) + Section(1, json) + "xyz", "3 unexpected bytes after the last of 1"},
      {FileHeader(1, 2) + Section(1, json) + Section(1, json),
       "section 2 (report JSON, header at byte"},
      {FileHeader(1, 1) + Section(0, ""), "invalid section type 0"},
      {FileHeader(1, 1) + Section(1, "[]"), "report JSON: the document is array"},
      {FileHeader(1, 5000), "header claims 5000 sections"},
      {FileHeader(1, 1) + Section(1, json).substr(0, 20), "truncated at byte 36"},
  };
  for (const Case& c : cases) {
    const absl::StatusOr<Report> r = ParseBrrrFile(c.bytes, "NAME");
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_THAT(r.status().message(), HasSubstr(c.message));
    EXPECT_THAT(r.status().message(), HasSubstr("NAME: "));
  }
}

TEST(ParseBrrrFileTest, OversizedReportSectionIsRejected) {
  const std::string payload((16u << 20) + 1, ' ');
  const absl::StatusOr<Report> r = ParseBrrrFile(FileHeader(1, 1) + Section(1, payload), "f");
  EXPECT_THAT(r.status().message(), HasSubstr("exceeds the limit of 16777216 bytes"));
}

TEST(ParseBrrrFileTest, HugeDeclaredLengthIsRejectedWithoutAllocating) {
  std::string bytes = FileHeader(1, 1);
  AppendLe32(bytes, 1);
  AppendLe64(bytes, ~uint64_t{0});
  AppendLe32(bytes, 0);
  const absl::StatusOr<Report> r = ParseBrrrFile(bytes, "f");
  EXPECT_THAT(r.status().message(), HasSubstr("declares a 18446744073709551615-byte payload"));
}

}  // namespace
}  // namespace brrr
