// Tests for CodeTable: code slots read after ready, cached, every length checked, names made
// valid UTF-8, and slots full of garbage never read out of bounds or passed on as invalid text.
#include "collector/ingest/code_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "collector/ingest/testing/test_segment.h"
#include "shim/segment_layout.h"

namespace brrr::ingest {
namespace {

using testing::TestSegment;

class CodeTableTest : public ::testing::Test {
 protected:
  ring::CodeSlot* slots() { return ring::CodeSlotsAt(seg_.base(), seg_.layout()); }
  CodeTable MakeTable() { return CodeTable(slots(), seg_.geometry().code_slots, &stats_); }

  TestSegment seg_;
  ReaderStats stats_;
};

TEST_F(CodeTableTest, ReadyCodeIsCopiedOut) {
  const uint32_t id = seg_.AddCode("/srv/train.py", "Trainer.log_loss", 27, {1, 2, 3, 4});
  CodeTable table = MakeTable();
  const PythonCode* code = table.Lookup(id);
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(code->filename, "/srv/train.py");
  EXPECT_EQ(code->qualname, "Trainer.log_loss");
  EXPECT_EQ(code->first_line, 27u);
  EXPECT_EQ(code->line_table, (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_FALSE(code->line_table_truncated);
  // Cached: a later change of the slot (a misbehaving writer) does not change the answer.
  std::memcpy(slots()[id - 1].data, "XXXX", 4);
  EXPECT_EQ(table.Lookup(id)->filename, "/srv/train.py");
  EXPECT_EQ(stats_.Damage(), 0u);
}

TEST_F(CodeTableTest, NotReadySlotIsUnknownUntilReady) {
  const uint32_t id = seg_.AddCode("a.py", "f", 1, {}, /*ready=*/false);
  CodeTable table = MakeTable();
  EXPECT_EQ(table.Lookup(id), nullptr);
  slots()[id - 1].ready.store(1, std::memory_order_release);
  ASSERT_NE(table.Lookup(id), nullptr);
  EXPECT_EQ(table.Lookup(id)->qualname, "f");
}

TEST_F(CodeTableTest, IdsZeroAndBeyondTheTableAreUnknown) {
  CodeTable table = MakeTable();
  EXPECT_EQ(table.Lookup(0), nullptr);
  EXPECT_EQ(stats_.bad_code_ids, 0u);
  EXPECT_EQ(table.Lookup(seg_.geometry().code_slots + 1), nullptr);
  EXPECT_EQ(table.Lookup(0xFFFFFFFFu), nullptr);
  EXPECT_EQ(stats_.bad_code_ids, 2u);
}

TEST_F(CodeTableTest, TruncatedLineTableIsMarked) {
  const uint32_t id = seg_.AddCode("a.py", "f", 1, {8, 1, 8, 1});
  slots()[id - 1].linetable_length = 2;  // the shim stored only part of it
  CodeTable table = MakeTable();
  const PythonCode* code = table.Lookup(id);
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(code->line_table.size(), 2u);
  EXPECT_TRUE(code->line_table_truncated);
}

TEST_F(CodeTableTest, NameLengthOverTheLimitMakesTheSlotUnreadable) {
  const uint32_t a = seg_.AddCode("a.py", "f", 1, {});
  const uint32_t b = seg_.AddCode("b.py", "g", 1, {});
  slots()[a - 1].filename_length = ring::kMaxCodeStringLength + 1;
  slots()[b - 1].qualname_length = 0xFFFF;
  CodeTable table = MakeTable();
  EXPECT_EQ(table.Lookup(a), nullptr);
  EXPECT_EQ(table.Lookup(b), nullptr);
  EXPECT_EQ(stats_.bad_code_slots, 2u);
}

TEST_F(CodeTableTest, LineTableLongerThanTheSlotKeepsNamesButNoLines) {
  const uint32_t id = seg_.AddCode("a.py", "f", 1, {1, 2});
  slots()[id - 1].linetable_length = ring::kCodeSlotData;  // 5 bytes of names already used
  CodeTable table = MakeTable();
  const PythonCode* code = table.Lookup(id);
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(code->qualname, "f");
  EXPECT_TRUE(code->line_table.empty());
  EXPECT_TRUE(code->line_table_truncated);
  EXPECT_EQ(stats_.bad_code_slots, 1u);
}

TEST_F(CodeTableTest, InvalidUtf8AndControlCharactersAreReplaced) {
  const uint32_t id = seg_.AddCode("caf\xC3\xA9\xFF.py", "f\n\xE2\x82", 1, {});
  CodeTable table = MakeTable();
  const PythonCode* code = table.Lookup(id);
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(code->filename, "caf\xC3\xA9\xEF\xBF\xBD.py");
  EXPECT_EQ(code->qualname, "f?\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(SanitizeUtf8Test, RejectsOverlongSurrogatesAndOutOfRange) {
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(SanitizeUtf8("\xF4\x90\x80\x80").size(), 12u);          // above U+10FFFF
  EXPECT_EQ(SanitizeUtf8("\xF0\x9F\x94\xA5"), "\xF0\x9F\x94\xA5");  // U+1F525 kept
}

TEST_F(CodeTableTest, GarbageInEveryFieldNeverEscapesTheSlot) {
  std::mt19937 random(88);
  const uint32_t slot_count = seg_.geometry().code_slots;
  for (int round = 0; round < 300; ++round) {
    // Fill every slot with random bytes (lengths, first line, data), ready or not.
    for (uint32_t i = 0; i < slot_count; ++i) {
      uint32_t words[sizeof(ring::CodeSlot) / 4];
      for (uint32_t& w : words) w = random();
      std::memcpy(static_cast<void*>(&slots()[i]), words, sizeof(words));
      // Small lengths half the time, so some slots are readable.
      if (random() % 2) {
        slots()[i].filename_length = random() % 1100;
        slots()[i].qualname_length = random() % 1100;
        slots()[i].linetable_length = random() % 3000;
      }
      slots()[i].ready.store(random() % 4 == 0 ? 0 : 1, std::memory_order_release);
    }
    ReaderStats stats;
    CodeTable table(slots(), slot_count, &stats);
    for (uint32_t id = 0; id <= slot_count + 1; ++id) {
      const PythonCode* code = table.Lookup(id);
      if (code == nullptr) continue;
      ASSERT_EQ(SanitizeUtf8(code->filename), code->filename);
      ASSERT_EQ(SanitizeUtf8(code->qualname), code->qualname);
      ASSERT_LE(code->filename.size(), 3 * ring::kMaxCodeStringLength);
      ASSERT_LE(code->qualname.size(), 3 * ring::kMaxCodeStringLength);
      ASSERT_LE(code->line_table.size(), ring::kCodeSlotData);
    }
  }
}

}  // namespace
}  // namespace brrr::ingest
