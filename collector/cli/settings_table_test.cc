// The settings table is the whole truth: every "BRRR_... name in brrr's own sources (the shim, the
// collector, the viewer; tests, benchmarks and fuzzers aside) is a line of shim/settings.def,
// every line of the table is read somewhere (its Setting::kId appears outside the table's own
// files), and `brrr settings` lists exactly the table, one line each, starting with the name.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "collector/cli/settings_listing.h"

namespace brrr::cli {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// id -> name, from the table's own text.
std::map<std::string, std::string> TableLines() {
  std::map<std::string, std::string> ids;
  const std::regex line(R"re(^BRRR_SETTING\((\w+), "(BRRR_\w+)")re");
  std::istringstream in(ReadAll(fs::path(BRRR_SOURCE_DIR) / "shim/settings.def"));
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (std::regex_search(text, m, line)) ids[m[1]] = m[2];
  }
  return ids;
}

bool IsTableFile(const fs::path& p) {
  const std::string name = p.filename().string();
  return name == "settings.def" || name == "settings.h" || name == "settings.cc" ||
         name == "settings_listing.cc";
}

// brrr's own sources: no tests, benchmarks, fuzzers or test helpers.
std::vector<fs::path> OwnSources() {
  std::vector<fs::path> files;
  for (const char* top : {"shim", "collector", "viewer"}) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(BRRR_SOURCE_DIR) / top)) {
      if (!e.is_regular_file()) continue;
      const std::string path = e.path().string();
      const std::string ext = e.path().extension().string();
      if (ext != ".cc" && ext != ".h" && ext != ".cu" && ext != ".def" && ext != ".inc") continue;
      if (absl::StrContains(path, "/tests/") || absl::StrContains(path, "/testing/") ||
          absl::StrContains(path, "/testdata/") || absl::StrContains(path, "_test") ||
          absl::StrContains(path, "_benchmark") || absl::StrContains(path, "_fuzz") ||
          absl::StrContains(path, "bench_")) {
        continue;
      }
      files.push_back(e.path());
    }
  }
  return files;
}

TEST(SettingsTableTest, EveryNameInTheSourcesIsInTheTable) {
  const std::map<std::string, std::string> table = TableLines();
  ASSERT_GT(table.size(), 15u);
  std::set<std::string> names;
  for (const auto& [id, name] : table) names.insert(name);
  const std::regex literal(R"re("(BRRR_[A-Z0-9_]+))re");
  size_t files = 0;
  for (const fs::path& p : OwnSources()) {
    ++files;
    // The one file that names BRRR_* variables that are not settings, to leave them alone.
    if (p.filename() == "setting_names.h") continue;
    const std::string text = ReadAll(p);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal);
         it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(names.count((*it)[1])) << p << " names " << (*it)[1]
                                         << ", which is not in shim/settings.def";
    }
  }
  EXPECT_GT(files, 100u);  // the walk really saw the sources
}

TEST(SettingsTableTest, EveryLineOfTheTableIsRead) {
  std::string sources;
  for (const fs::path& p : OwnSources()) {
    if (!IsTableFile(p)) sources += ReadAll(p);
  }
  for (const auto& [id, name] : TableLines()) {
    EXPECT_TRUE(absl::StrContains(sources, "Setting::k" + id))
        << name << " is in the table, but nothing reads Setting::k" << id;
  }
}

TEST(SettingsTableTest, TheBrrrSettingsCommandListsExactlyTheTable) {
  FILE* p = popen(BRRR_BINARY " settings", "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(out, SettingsListing());
  std::set<std::string> listed;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    EXPECT_LE(line.size(), 100u) << line;
    if (line[0] == ' ') continue;  // an entry's text, wrapped
    const std::string first(line.substr(0, line.find(' ')));
    EXPECT_TRUE(listed.insert(first).second) << first << " listed twice";
  }
  std::set<std::string> names;
  for (const auto& [id, name] : TableLines()) names.insert(name);
  EXPECT_EQ(listed, names);
}

TEST(SettingsTableTest, AnEntrySaysDefaultMeaningValuesAndOption) {
  // Each entry on one line, as it reads unwrapped.
  const std::string out = std::regex_replace(SettingsListing(), std::regex("\n +"), " ");
  EXPECT_THAT(out, ::testing::ContainsRegex(
                       "BRRR_RING_RECORDS +16384 +records in each thread's ring.*a power of two "
                       "from 8 to 4194304; or --ring-records; read by libbrrr.so and brrr\\]"));
  EXPECT_THAT(out, ::testing::ContainsRegex("BRRR_CLOCK +tsc +.*\\[tsc\\|monotonic; read by "
                                            "libbrrr.so\\]"));
  EXPECT_THAT(out, ::testing::ContainsRegex("BRRR_SHM +\\(unset\\) .*set by brrr run"));
}

}  // namespace
}  // namespace brrr::cli
