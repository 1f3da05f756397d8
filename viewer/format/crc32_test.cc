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
