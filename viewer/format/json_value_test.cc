// Tests for json_value.h: what the strict parser accepts, what it rejects, and its limits.
// Must never: depend on the exact wording beyond the key phrase each error must contain.
#include "viewer/format/json_value.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

TEST(ParseJsonTest, ParsesNestedDocument) {
  absl::StatusOr<JsonValue> v =
      ParseJson(R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": []} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->kind, JsonValue::Kind::kObject);
  const JsonValue* a = v->Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->elements.size(), 5u);
  EXPECT_EQ(a->elements[0].text, "1");
  EXPECT_EQ(a->elements[1].text, "-2.5e3");
  EXPECT_TRUE(a->elements[2].boolean);
  EXPECT_EQ(a->elements[3].kind, JsonValue::Kind::kBool);
  EXPECT_EQ(a->elements[4].kind, JsonValue::Kind::kNull);
  EXPECT_EQ(v->Find("b")->Find("c")->text, "d");
  EXPECT_EQ(v->Find("e")->kind, JsonValue::Kind::kArray);
  EXPECT_EQ(v->Find("missing"), nullptr);
}

TEST(ParseJsonTest, KeepsLargeIntegersAsWritten) {
  absl::StatusOr<JsonValue> v = ParseJson("[18446744073709551615, -9223372036854775808]");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->elements[0].text, "18446744073709551615");
  EXPECT_EQ(v->elements[1].text, "-9223372036854775808");
}

TEST(ParseJsonTest, DecodesEscapesAndSurrogatePairs) {
  absl::StatusOr<JsonValue> v = ParseJson(R"("q\"b\\s\/\b\f\n\r\t\u0001\u00e9\u2713\ud83d\ude00")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->text, "q\"b\\s/\b\f\n\r\t\x01\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80");
}

TEST(ParseJsonTest, AcceptsValidRawUtf8) {
  absl::StatusOr<JsonValue> v = ParseJson("\"\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80\"");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->text, "\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80");
}

struct Rejected {
  const char* json;
  const char* message;
};

class ParseJsonRejectsTest : public ::testing::TestWithParam<Rejected> {};

TEST_P(ParseJsonRejectsTest, WithAClearMessage) {
  absl::StatusOr<JsonValue> v = ParseJson(GetParam().json);
  ASSERT_FALSE(v.ok()) << "accepted: " << GetParam().json;
  EXPECT_THAT(v.status().message(), HasSubstr(GetParam().message));
  EXPECT_THAT(v.status().message(), HasSubstr("JSON: at byte"));
}

INSTANTIATE_TEST_SUITE_P(
    Strict, ParseJsonRejectsTest,
    ::testing::Values(
        Rejected{"", "unexpected end of input"}, Rejected{"   ", "unexpected end of input"},
        Rejected{"[1,]", "unexpected character"}, Rejected{"{\"a\":1,}", "expected a string key"},
        Rejected{"[1 2]", "expected ',' or ']'"}, Rejected{"{\"a\" 1}", "expected ':'"},
        Rejected{"{\"a\":1 \"b\":2}", "expected ',' or '}'"}, Rejected{"[1", "unterminated array"},
        Rejected{"{\"a\":1", "unterminated object"}, Rejected{"\"abc", "unterminated string"},
        Rejected{"01", "leading zero"}, Rejected{"-", "expected a digit"},
        Rejected{"1.", "after '.'"}, Rejected{"1e", "exponent digit"},
        Rejected{"+1", "unexpected character"}, Rejected{"NaN", "unexpected character"},
        Rejected{"Infinity", "unexpected character"}, Rejected{"tru", "expected 'true'"},
        Rejected{"nul", "expected 'null'"}, Rejected{"// c\n1", "unexpected character"},
        Rejected{"1 2", "unexpected data after"}, Rejected{"{} x", "unexpected data after"},
        Rejected{"\"a\x01\"", "raw control character"},
        Rejected{"\"a\nb\"", "raw control character"}, Rejected{"\"\\x41\"", "invalid escape"},
        Rejected{"\"\\u12zz\"", "invalid hex digit"}, Rejected{"\"\\u12", "truncated \\u escape"},
        Rejected{"\"\\ud800\"", "unpaired high surrogate"},
        Rejected{"\"\\ud800\\u0041\"", "not followed by a low"},
        Rejected{"\"\\udc00\"", "unpaired low surrogate"}, Rejected{"\"\xff\"", "invalid UTF-8"},
        Rejected{"\"\xc0\xaf\"", "invalid UTF-8"},          // overlong '/'
        Rejected{"\"\xed\xa0\x80\"", "invalid UTF-8"},      // encoded surrogate
        Rejected{"\"\xf4\x90\x80\x80\"", "invalid UTF-8"},  // above U+10FFFF
        Rejected{"\"\xe2\x9c\"", "invalid UTF-8"},          // truncated sequence
        Rejected{"{\"a\":1,\"a\":2}", "duplicate key \"a\""}));

TEST(ParseJsonTest, ErrorNamesLineAndColumn) {
  absl::StatusOr<JsonValue> v = ParseJson("{\n  \"a\": 1,\n  \"b\": ?\n}");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("line 3, column 8"));
}

TEST(ParseJsonTest, DepthLimitStopsDeepNesting) {
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(ParseJson(ok).ok());
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  absl::StatusOr<JsonValue> v = ParseJson(deep);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("nesting deeper than 64"));
  // Far deeper than any stack would allow without the limit: still a clean error.
  EXPECT_FALSE(ParseJson(std::string(1'000'000, '[')).ok());
  EXPECT_FALSE(ParseJson(std::string(500'000, '{') + "\"a\":").ok());
}

TEST(ParseJsonTest, SizeAndValueLimits) {
  JsonLimits limits;
  limits.max_bytes = 10;
  absl::StatusOr<JsonValue> too_big = ParseJson("[1,2,3,4,5,6]", limits);
  ASSERT_FALSE(too_big.ok());
  EXPECT_THAT(too_big.status().message(), HasSubstr("exceeds the limit of 10 bytes"));

  limits = JsonLimits();
  limits.max_values = 4;
  EXPECT_TRUE(ParseJson("[1,2,3]", limits).ok());  // the array and three numbers
  absl::StatusOr<JsonValue> too_many = ParseJson("[1,2,3,4]", limits);
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(), HasSubstr("more than 4 values"));
}

TEST(ParseJsonTest, ManyKeysAreCheckedForDuplicatesQuickly) {
  std::string json = "{";
  for (int i = 0; i < 200'000; ++i) json += "\"k" + std::to_string(i) + "\":0,";
  json += "\"k7\":1}";
  absl::StatusOr<JsonValue> v = ParseJson(json);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("duplicate key \"k7\""));
}

}  // namespace
}  // namespace brrr
