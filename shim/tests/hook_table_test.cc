// The hook table is complete and right: every ring::Api value (read from ring_format.h's text, an
// independent source) has a hook, names are unique, and every hooked name is exported by the real
// CUDA runtime of the toolkit (so no hook can silently never fire because of a typo).
#include "shim/hook_table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace brrr::shim {
namespace {

TEST(HookTableTest, EveryApiValueHasAHook) {
  std::ifstream in(BRRR_RING_FORMAT_PATH);
  ASSERT_TRUE(in.good()) << BRRR_RING_FORMAT_PATH;
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const size_t begin = s.find("enum class Api : uint16_t {");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = s.find("};", begin);
  const std::string body = s.substr(begin, end - begin);
  const std::regex value_re(R"((k\w+)\s*=\s*(\d+))");
  std::set<int> hooked;
  for (const HookInfo& h : kHooks) hooked.insert(static_cast<int>(h.api));
  int values = 0;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), value_re);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (name == "kUnknown" || name == "kApiCount") continue;
    ++values;
    EXPECT_TRUE(hooked.count(std::stoi((*it)[2])) == 1) << name << " has no hook";
  }
  EXPECT_GT(values, 50);
}

TEST(HookTableTest, NamesUniqueAndVariantsMarked) {
  std::set<std::string> names;
  for (const HookInfo& h : kHooks) {
    EXPECT_TRUE(names.insert(h.name).second) << h.name;
    const std::string n = h.name;
    const bool variant = n.ends_with("_ptsz") || n.ends_with("_ptds");
    EXPECT_EQ(variant, h.per_thread) << n;
    EXPECT_NE(h.api, ring::Api::kUnknown) << n;
  }
}

TEST(HookTableTest, EveryHookIsExportedByTheRealRuntime) {
  const std::string cmd = std::string("nm -D --defined-only ") + BRRR_REAL_CUDART_PATH;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::set<std::string> exported;
  char line[512];
  while (fgets(line, sizeof(line), p) != nullptr) {
    std::string l(line);
    const size_t sp = l.rfind(' ');
    std::string sym = l.substr(sp + 1);
    sym = sym.substr(0, sym.find_first_of("@\n"));
    exported.insert(sym);
  }
  ASSERT_EQ(pclose(p), 0) << cmd;
  for (const HookInfo& h : kHooks) EXPECT_TRUE(exported.count(h.name) == 1) << h.name;
}

}  // namespace
}  // namespace brrr::shim
