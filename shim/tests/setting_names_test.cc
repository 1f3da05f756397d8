// Tests of misspelled settings: which BRRR_* entries are unknown, and the nearest known name.
#include "shim/setting_names.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "shim/settings.h"

namespace brrr::settings {
namespace {

TEST(SettingNamesTest, KnownSettingsAndForeignVariablesAreNotUnknown) {
  char name[64];
  for (const Spec& spec : kSpecs) {
    EXPECT_FALSE(UnknownSettingEntry((std::string(spec.name) + "=1").c_str(), name, sizeof(name)))
        << spec.name;
  }
  for (const char* entry : {"BRRR_SIM_KERNELS=k=1000", "BRRR_TEST_UNUSED=1", "BRRR_FAKE_PM_MODE=x",
                            "BRRR_RUN_OPTS=--json", "PATH=/bin", "XBRRR_SAMPEL=1", "", "BRRR"}) {
    EXPECT_FALSE(UnknownSettingEntry(entry, name, sizeof(name))) << entry;
  }
  EXPECT_FALSE(UnknownSettingEntry(nullptr, name, sizeof(name)));
}

TEST(SettingNamesTest, MisspellingsAreUnknownWithTheNearestName) {
  char name[64];
  ASSERT_TRUE(UnknownSettingEntry("BRRR_SAMPEL_DEVICE=10%", name, sizeof(name)));
  EXPECT_STREQ(name, "BRRR_SAMPEL_DEVICE");
  EXPECT_STREQ(NearestSettingName(name), "BRRR_SAMPLE_DEVICE");
  ASSERT_TRUE(UnknownSettingEntry("BRRR_OUTPTU=x", name, sizeof(name)));
  EXPECT_STREQ(NearestSettingName(name), "BRRR_OUTPUT");
  ASSERT_TRUE(UnknownSettingEntry("BRRR_STACK=0", name, sizeof(name)));  // a letter left out
  EXPECT_STREQ(NearestSettingName(name), "BRRR_STACKS");
  // Nothing near: no suggestion. A bare name (no '=') counts too.
  ASSERT_TRUE(UnknownSettingEntry("BRRR_COMPLETELY_DIFFERENT", name, sizeof(name)));
  EXPECT_EQ(NearestSettingName(name), nullptr);
  // A long name is cut to the buffer, terminated.
  const std::string long_name = "BRRR_" + std::string(200, 'X') + "=1";
  char small[16];
  ASSERT_TRUE(UnknownSettingEntry(long_name.c_str(), small, sizeof(small)));
  EXPECT_EQ(std::strlen(small), sizeof(small) - 1);
  EXPECT_EQ(NearestSettingName(long_name.c_str()), nullptr);
}

}  // namespace
}  // namespace brrr::settings
