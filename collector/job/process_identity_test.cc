// Rank, local rank and world size from each launcher's variables; bad values are "unknown".
#include "collector/job/process_identity.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

namespace brrr::job {
namespace {

ProcessIdentity From(const std::map<std::string, std::string>& env) {
  ProcessIdentity id;
  ReadRankFromEnvironment(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      id);
  return id;
}

TEST(ProcessIdentityTest, TorchrunVariables) {
  const ProcessIdentity id = From({{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}});
  EXPECT_EQ(id.rank, 3);
  EXPECT_EQ(id.local_rank, 1);
  EXPECT_EQ(id.world_size, 4);
  EXPECT_EQ(id.rank_from, "RANK");
}

TEST(ProcessIdentityTest, OpenMpiPmiAndSlurm) {
  ProcessIdentity id = From({{"OMPI_COMM_WORLD_RANK", "2"},
                             {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                             {"OMPI_COMM_WORLD_SIZE", "8"},
                             {"SLURM_PROCID", "6"}});
  EXPECT_EQ(id.rank, 2);
  EXPECT_EQ(id.local_rank, 0);
  EXPECT_EQ(id.world_size, 8);
  EXPECT_EQ(id.rank_from, "OMPI_COMM_WORLD_RANK");
  id = From({{"PMI_RANK", "5"}, {"PMI_SIZE", "6"}});
  EXPECT_EQ(id.rank, 5);
  EXPECT_EQ(id.world_size, 6);
  id = From({{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}});
  EXPECT_EQ(id.rank, 7);
  EXPECT_EQ(id.local_rank, 3);
  EXPECT_EQ(id.rank_from, "SLURM_PROCID");
}

TEST(ProcessIdentityTest, BadValuesAreUnknownAndTheNextSourceIsUsed) {
  for (const char* bad : {"", "-1", "+1", " 3", "3x", "0x10", "2147483648", "99999999999"}) {
    const ProcessIdentity id = From({{"RANK", bad}, {"SLURM_PROCID", "5"}});
    EXPECT_EQ(id.rank, 5) << bad;
    EXPECT_EQ(id.rank_from, "SLURM_PROCID") << bad;
  }
  EXPECT_EQ(ParseRankValue("2147483647"), 2147483647);
  EXPECT_EQ(ParseRankValue("0"), 0);
  EXPECT_EQ(ParseRankValue(nullptr), -1);
  const ProcessIdentity none = From({{"LOCAL_RANK", "2"}});
  EXPECT_EQ(none.rank, -1);
  EXPECT_EQ(none.local_rank, 2);
  EXPECT_EQ(none.rank_from, "");
}

TEST(ProcessIdentityTest, EnvironBlock) {
  using namespace std::string_literals;
  ProcessIdentity id;
  ReadRankFromEnvironBlock("PATH=/bin\0RANK=12\0=odd\0noequals\0WORLD_SIZE=16"s, id);
  EXPECT_EQ(id.rank, 12);
  EXPECT_EQ(id.world_size, 16);  // the last entry has no trailing NUL
  ProcessIdentity cut;
  ReadRankFromEnvironBlock("RANK=1"s.substr(0, 5), cut);  // "RANK=": empty value
  EXPECT_EQ(cut.rank, -1);
}

}  // namespace
}  // namespace brrr::job
