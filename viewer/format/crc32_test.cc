// Tests for crc32.h against published CRC-32/IEEE check values.
// Must never: derive expected values from the code under test.
#include "viewer/format/crc32.h"

#include <string>

#include "gtest/gtest.h"

namespace brrr {
namespace {

TEST(Crc32Test, MatchesPublishedCheckValues) {
  EXPECT_EQ(Crc32(""), 0x00000000u);
  EXPECT_EQ(Crc32("a"), 0xE8B7BE43u);
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
}

TEST(Crc32Test, ExtendEqualsCrcOfConcatenation) {
  const std::string a = "hello, ";
  const std::string b = std::string("world\0\xff", 7);
  EXPECT_EQ(Crc32Extend(Crc32(a), b), Crc32(a + b));
}

// The pieces zlib is fed in (its length argument is a 32-bit uInt) do not change the result:
// "123456789" fed 1, 2, 4 or 8 bytes at a time still gives the published check value.
TEST(Crc32Test, ChunkedFeedingGivesThePublishedCheckValue) {
  for (size_t chunk : {size_t{1}, size_t{2}, size_t{4}, size_t{8}, size_t{9}, size_t{100}}) {
    EXPECT_EQ(crc32_internal::ExtendInChunks(0, "123456789", chunk), 0xCBF43926u) << chunk;
  }
  EXPECT_EQ(crc32_internal::ExtendInChunks(0xCBF43926u, "", 1), 0xCBF43926u);
}

// A payload read in pieces (as brrr_file_reader.cc does) checks the same as one read whole.
TEST(Crc32Test, StreamingExtendMatchesPublishedValue) {
  uint32_t crc = Crc32("The quick brown ");
  crc = Crc32Extend(crc, "fox jumps over ");
  crc = Crc32Extend(crc, "the lazy dog");
  EXPECT_EQ(crc, 0x414FA339u);
}

TEST(Crc32Test, DetectsEverySingleBitFlip) {
  std::string data = "brrr section payload";
  const uint32_t original = Crc32(data);
  for (size_t i = 0; i < data.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      data[i] ^= static_cast<char>(1 << bit);
      EXPECT_NE(Crc32(data), original) << "byte " << i << " bit " << bit;
      data[i] ^= static_cast<char>(1 << bit);
    }
  }
}

}  // namespace
}  // namespace brrr
