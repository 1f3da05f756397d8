// Corruption tests for the .brrr reader (the GoogleTest twin of brrr_file_fuzzer.cc, so that gcc
// builds and ASan CI cover it): every truncation of a valid file and thousands of deterministic
// random byte changes must give an error status, or a report equal to the original (possible only
// when the change hit a skipped section or a CRC collided); never a crash, never a wrong report.
// Must never: use a nondeterministic seed (failures must reproduce).
#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"
#include "viewer/format/sample_report.h"
#include "viewer/pprof/pprof_profile.h"
#include "viewer/render_text.h"

namespace brrr {
namespace {

// A valid file whose report exercises every field.
std::string ValidFile() { return SerializeBrrrFile(SampleReport()); }

TEST(BrrrFileCorruptionTest, EveryTruncationIsAnError) {
  const std::string bytes = ValidFile();
  ASSERT_TRUE(ParseBrrrFile(bytes).ok());
  for (size_t length = 0; length < bytes.size(); ++length) {
    const absl::StatusOr<Report> r = ParseBrrrFile(bytes.substr(0, length), "cut");
    ASSERT_FALSE(r.ok()) << "a file cut to " << length << " of " << bytes.size()
                         << " bytes was accepted";
    EXPECT_EQ(r.status().message().substr(0, 5), "cut: ") << r.status();
  }
}

TEST(BrrrFileCorruptionTest, RandomByteChangesAreDetected) {
  const std::string original = ValidFile();
  const Report expected = SampleReport();
  std::mt19937_64 rng(20240613);
  int accepted = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string bytes = original;
    const size_t changes = 1 + rng() % 4;
    std::set<size_t> positions;  // distinct, so no change undoes another
    while (positions.size() < changes) {
      const size_t at = rng() % bytes.size();
      // Every fourth trial changes only the 32 header bytes, where the structure lives.
      positions.insert(trial % 4 == 0 ? at % 32 : at);
    }
    for (size_t pos : positions) {
      bytes[pos] = static_cast<char>(bytes[pos] ^ static_cast<char>(1 + rng() % 255));
    }
    const absl::StatusOr<Report> r = ParseBrrrFile(bytes, "flip");
    if (r.ok()) {
      ++accepted;
      EXPECT_EQ(*r, expected) << "trial " << trial << " produced a different report";
    } else {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
  EXPECT_EQ(accepted, 0) << "a CRC-32 collision in 5000 trials is practically impossible";
}

TEST(BrrrFileCorruptionTest, RandomInsertionsDeletionsAndGarbageAreHandled) {
  const std::string original = ValidFile();
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes = original;
    switch (trial % 3) {
      case 0:
        bytes.insert(rng() % bytes.size(), std::string(1 + rng() % 8, static_cast<char>(rng())));
        break;
      case 1:
        bytes.erase(rng() % bytes.size(), 1 + rng() % 8);
        break;
      default:
        // Valid magic and version, then random bytes.
        bytes.resize(16 + rng() % 256);
        for (size_t i = 12; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
        break;
    }
    const absl::StatusOr<Report> r = ParseBrrrFile(bytes, "mutated");
    if (r.ok()) {
      // Whatever was accepted must be renderable.
      EXPECT_FALSE(RenderText(*r).empty());
      EXPECT_TRUE(RenderPprof(*r).ok());
    }
  }
}

TEST(BrrrFileCorruptionTest, CorruptReportJsonWithValidCrcIsAnErrorNotACrash) {
  // Mutate the JSON payload, then re-serialize with a correct CRC: the JSON reader must cope.
  const std::string json = RenderJsonCompact(SampleReport());
  std::mt19937_64 rng(99);
  int parsed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string mutated = json;
    const int changes = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < changes; ++i) {
      const char kAlphabet[] = "{}[]\",:0123456789-.eE\\u \x01\xff\xc3truefalsn";
      mutated[rng() % mutated.size()] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
    }
    const absl::StatusOr<Report> r = ParseReportJson(mutated);
    if (!r.ok()) continue;
    ++parsed;
    // Anything accepted renders, and its rendering is stable through another round trip.
    const std::string again = RenderJson(*r);
    const absl::StatusOr<Report> r2 = ParseReportJson(again);
    ASSERT_TRUE(r2.ok()) << r2.status();
    EXPECT_EQ(RenderJson(*r2), again);
    EXPECT_FALSE(RenderText(*r).empty());
    EXPECT_TRUE(RenderPprof(*r).ok());
  }
  // Some mutations (e.g. inside a string or a digit for a digit) keep the document valid.
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace brrr
