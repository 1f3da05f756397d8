// Tests for strict_json.h: what the strict reader accepts (and how exactly it keeps integers),
// what it rejects (nlohmann's own rules, NUL bytes, and the handler's: duplicate keys, depth,
// size and value limits), and where its errors say the problem is.
// Must never: depend on nlohmann's wording beyond the key phrase each error must contain.
#include "viewer/format/strict_json.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

TEST(StrictJsonTest, ParsesNestedDocument) {
  absl::StatusOr<Json> v =
      ParseStrictJson(R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": []} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(v->is_object());
  const Json& a = v->at("a");
  ASSERT_TRUE(a.is_array());
  ASSERT_EQ(a.size(), 5u);
  EXPECT_TRUE(a[0].is_number_unsigned());
  EXPECT_EQ(a[0].get<uint64_t>(), 1u);
  EXPECT_TRUE(a[1].is_number_float());
  EXPECT_EQ(a[1].get<double>(), -2500.0);
  EXPECT_EQ(a[2], true);
  EXPECT_EQ(a[3], false);
  EXPECT_TRUE(a[4].is_null());
  EXPECT_EQ(v->at("b").at("c"), "d");
  EXPECT_TRUE(v->at("e").is_array());
  EXPECT_TRUE(v->at("e").empty());
  EXPECT_FALSE(v->contains("missing"));
}

TEST(StrictJsonTest, KeepsLargeIntegersExactly) {
  absl::StatusOr<Json> v =
      ParseStrictJson("[18446744073709551615, -9223372036854775808, 18446744073709551616]");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE((*v)[0].is_number_unsigned());
  EXPECT_EQ((*v)[0].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
  ASSERT_TRUE((*v)[1].is_number_integer());
  EXPECT_FALSE((*v)[1].is_number_unsigned());
  EXPECT_EQ((*v)[1].get<int64_t>(), std::numeric_limits<int64_t>::min());
  // One past uint64: no longer an integer (the decoders reject it where they expect one).
  EXPECT_TRUE((*v)[2].is_number_float());
}

TEST(StrictJsonTest, DecodesEscapesAndSurrogatePairs) {
  absl::StatusOr<Json> v =
      ParseStrictJson(R"("q\"b\\s\/\b\f\n\r\t\u0001\u00e9\u2713\ud83d\ude00")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->get<std::string>(), "q\"b\\s/\b\f\n\r\t\x01\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80");
}

TEST(StrictJsonTest, AcceptsValidRawUtf8) {
  absl::StatusOr<Json> v = ParseStrictJson("\"\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80\"");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->get<std::string>(), "\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80");
}

struct Rejected {
  std::string json;
  std::string message;
};

class StrictJsonRejectsTest : public ::testing::TestWithParam<Rejected> {};

TEST_P(StrictJsonRejectsTest, WithAClearMessage) {
  absl::StatusOr<Json> v = ParseStrictJson(GetParam().json);
  ASSERT_FALSE(v.ok()) << "accepted: " << GetParam().json;
  const std::string message(v.status().message());
  EXPECT_THAT(message, HasSubstr(GetParam().message));
  EXPECT_THAT(message, HasSubstr("JSON: at byte"));
}

INSTANTIATE_TEST_SUITE_P(
    Strict, StrictJsonRejectsTest,
    ::testing::Values(
        Rejected{"", "unexpected end of input"}, Rejected{"   ", "unexpected end of input"},
        Rejected{"[1,]", "unexpected ']'"},                 // trailing comma
        Rejected{"{\"a\":1,}", "expected string literal"},  // trailing comma
        Rejected{"[1 2]", "expected ']'"}, Rejected{"{\"a\" 1}", "expected ':'"},
        Rejected{"{\"a\":1 \"b\":2}", "expected '}'"}, Rejected{"[1", "unexpected end of input"},
        Rejected{"{\"a\":1", "unexpected end of input"}, Rejected{"\"abc", "missing closing quote"},
        Rejected{"01", "expected end of input"},  // leading zero
        Rejected{"-", "invalid number"}, Rejected{"1.", "invalid number"},
        Rejected{"1e", "invalid number"}, Rejected{"+1", "invalid literal"},
        Rejected{"NaN", "invalid literal"}, Rejected{"Infinity", "invalid literal"},
        Rejected{"-Infinity", "invalid number"}, Rejected{"tru", "invalid literal"},
        Rejected{"nul", "invalid literal"}, Rejected{"// c\n1", "invalid literal"},  // comment
        Rejected{"/* c */ 1", "invalid literal"}, Rejected{"1 2", "expected end of input"},
        Rejected{"{} x", "invalid literal"}, Rejected{std::string("[1]\0x", 5), "NUL byte"},
        Rejected{std::string("\"a\0\"", 4), "NUL byte"},
        Rejected{"\"a\x01\"", "control character U+0001"},
        Rejected{"\"a\nb\"", "control character U+000A"},
        Rejected{"\"\\x41\"", "forbidden character after backslash"},
        Rejected{"\"\\u12zz\"", "must be followed by 4 hex digits"},
        Rejected{"\"\\u12", "must be followed by 4 hex digits"},
        Rejected{"\"\\ud800\"", "must be followed by U+DC00..U+DFFF"},
        Rejected{"\"\\ud800\\u0041\"", "must be followed by U+DC00..U+DFFF"},
        Rejected{"\"\\udc00\"", "must follow U+D800..U+DBFF"},
        Rejected{"\"\xff\"", "ill-formed UTF-8"},
        Rejected{"\"\xc0\xaf\"", "ill-formed UTF-8"},          // overlong '/'
        Rejected{"\"\xed\xa0\x80\"", "ill-formed UTF-8"},      // encoded surrogate
        Rejected{"\"\xf4\x90\x80\x80\"", "ill-formed UTF-8"},  // above U+10FFFF
        Rejected{"\"\xe2\x9c\"", "ill-formed UTF-8"},          // truncated sequence
        Rejected{"1e999", "number overflow parsing '1e999'"},  // would be infinity
        Rejected{"[-1e400]", "number overflow parsing '-1e400'"},
        Rejected{"{\"a\":1,\"a\":2}", "duplicate key \"a\""},
        Rejected{"{\"a\":{\"b\":1,\"c\":2,\"b\":3}}", "duplicate key \"b\""}));

TEST(StrictJsonTest, ErrorNamesByteLineAndColumn) {
  absl::StatusOr<Json> v = ParseStrictJson("{\n  \"a\": 1,\n  \"b\": ?\n}");
  ASSERT_FALSE(v.ok());
  // '?' is byte 19, the 8th character of line 3.
  EXPECT_THAT(v.status().message(), HasSubstr("JSON: at byte 19 (line 3, column 8): "));
  // Errors found by the handler name a byte too: the closing quote of the repeated key.
  v = ParseStrictJson("{\"a\":1,\"a\":2}");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("JSON: at byte 9 (line 1, column 10): duplicate"));
}

TEST(StrictJsonTest, ErrorsQuoteTheInputOnlyAsPrintableAscii) {
  absl::StatusOr<Json> v = ParseStrictJson("\"\xff\"");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("last read: '\"\\xff'"));
  EXPECT_THAT(v.status().message(), Not(HasSubstr("\xff")));
  // A long bad token is quoted by its last 40 bytes only.
  v = ParseStrictJson("\"" + std::string(100'000, 'x') + "\x01\"");
  ASSERT_FALSE(v.ok());
  EXPECT_LT(v.status().message().size(), 300u) << v.status().message();
}

TEST(StrictJsonTest, DepthLimitStopsDeepNesting) {
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(ParseStrictJson(ok).ok());
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  absl::StatusOr<Json> v = ParseStrictJson(deep);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("at byte 64 "));  // the 65th '['
  EXPECT_THAT(v.status().message(), HasSubstr("nesting deeper than 64"));
  JsonLimits shallow;
  shallow.max_depth = 2;
  EXPECT_TRUE(ParseStrictJson(R"({"a": [1]})", shallow).ok());
  EXPECT_FALSE(ParseStrictJson(R"({"a": [{}]})", shallow).ok());
  // Far deeper than any stack would allow without the limit: still a clean error.
  EXPECT_FALSE(ParseStrictJson(std::string(1'000'000, '[')).ok());
  EXPECT_FALSE(ParseStrictJson(std::string(500'000, '{') + "\"a\":").ok());
}

TEST(StrictJsonTest, SizeAndValueLimits) {
  JsonLimits limits;
  limits.max_bytes = 10;
  absl::StatusOr<Json> too_big = ParseStrictJson("[1,2,3,4,5,6]", limits);
  ASSERT_FALSE(too_big.ok());
  EXPECT_THAT(too_big.status().message(), HasSubstr("exceeds the limit of 10 bytes"));
  EXPECT_TRUE(ParseStrictJson("[1,2,3,4]", limits).ok());  // 9 bytes

  limits = JsonLimits();
  limits.max_values = 4;
  EXPECT_TRUE(ParseStrictJson("[1,2,3]", limits).ok());  // the array and three numbers
  absl::StatusOr<Json> too_many = ParseStrictJson("[1,2,3,4]", limits);
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(), HasSubstr("more than 4 values"));
  // Keys are not values; the object and its two members are three.
  limits.max_values = 3;
  EXPECT_TRUE(ParseStrictJson(R"({"a":1,"b":2})", limits).ok());
}

TEST(StrictJsonTest, ManyKeysAreCheckedForDuplicatesQuickly) {
  std::string json = "{";
  for (int i = 0; i < 200'000; ++i) json += "\"k" + std::to_string(i) + "\":0,";
  json += "\"k7\":1}";
  absl::StatusOr<Json> v = ParseStrictJson(json);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("duplicate key \"k7\""));
}

}  // namespace
}  // namespace brrr
