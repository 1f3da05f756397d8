// Tests for ResultName: the names real cuptiGetResultString gives, and rejection of non-results.
#include "result_names.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace simcuda::cupti {
namespace {

TEST(ResultNamesTest, NamesAreTheEnumeratorNames) {
  EXPECT_EQ(std::string(ResultName(CUPTI_SUCCESS)), "CUPTI_SUCCESS");
  EXPECT_EQ(std::string(ResultName(CUPTI_ERROR_QUEUE_EMPTY)), "CUPTI_ERROR_QUEUE_EMPTY");
  EXPECT_EQ(std::string(ResultName(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)),
            "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  EXPECT_EQ(std::string(ResultName(CUPTI_ERROR_UNKNOWN)), "CUPTI_ERROR_UNKNOWN");
}

TEST(ResultNamesTest, EveryResultCodeHasADistinctName) {
  std::set<std::string> names;
  for (int code = 0; code <= 46; ++code) {
    const char* name = ResultName(static_cast<CUptiResult>(code));
    ASSERT_NE(name, nullptr) << code;
    EXPECT_EQ(std::string(name).rfind("CUPTI_", 0), 0u) << code;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 47u);
  EXPECT_EQ(ResultName(static_cast<CUptiResult>(47)), nullptr);
  EXPECT_EQ(ResultName(static_cast<CUptiResult>(-1)), nullptr);
  EXPECT_EQ(ResultName(CUPTI_ERROR_FORCE_INT), nullptr);
}

}  // namespace
}  // namespace simcuda::cupti
