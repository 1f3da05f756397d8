// Tests of the folded-stack views: root first with the blocked call and reason as the leaf,
// weights in nanoseconds or launches, identical stacks merged, stackless rows under "[no stack]",
// separators and line breaks in frames neutralized, zero weights left out; every line has the
// shape flamegraph.pl reads ("frames VALUE").
#include "viewer/folded_stacks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "absl/strings/str_split.h"
#include "viewer/format/sample_report.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  const std::regex flamegraph(R"(^[^;\n]+(;[^;\n]+)* [0-9]+$)");
  for (const std::string& l : lines) EXPECT_TRUE(std::regex_match(l, flamegraph)) << l;
  return lines;
}

TEST(FoldedStacksTest, StallsRootFirstWeightedByBlockedNanoseconds) {
  const Report r = SampleReport();
  EXPECT_THAT(Lines(FoldedStalls(r)),
              ElementsAre("main (train);train_step (train.cc:97);loss_item (train.cc:42);"
                          "cudaMemcpy [d2h_copy] 2000000000",
                          "[no stack];cudaFree [free_syncs_device] 4500000"));
}

TEST(FoldedStacksTest, LaunchSitesWeightedByEstimatedLaunchesWithoutTheirCudaFrames) {
  Report r = SampleReport();
  // The leading cudaLaunchKernel frame is CUDA plumbing (plumbing_frames 1): the flame's leaf is
  // the user's frame.
  EXPECT_THAT(Lines(FoldedLaunches(r)),
              ElementsAre("train_step (train.py:31);Model.forward (model.py:88) 76800",
                          "[no stack] 128"));
  r.launch_sites[0].plumbing_frames = 0;
  EXPECT_THAT(Lines(FoldedLaunches(r)),
              ElementsAre("train_step (train.py:31);Model.forward (model.py:88);"
                          "cudaLaunchKernel (libcudart.so.13) 76800",
                          "[no stack] 128"));
  r.launch_sites[0].plumbing_frames = 99;  // a damaged count folds nothing
  EXPECT_THAT(Lines(FoldedLaunches(r))[0], testing::EndsWith("(libcudart.so.13) 76800"));
}

TEST(FoldedStacksTest, MergesIdenticalStacksAndNeutralizesSeparators) {
  Report r;
  r.stalls = {{"cudaMemcpy", "d2h_copy", 1, 30, {"f;g (a.cc:1)", "main\n(x)"}},
              {"cudaFree", "free_syncs_device", 1, 0, {"h"}},  // no weight: no line
              {"cudaMemcpy", "d2h_copy", 2, 12, {"f;g (a.cc:1)", "main\n(x)"}}};
  EXPECT_THAT(Lines(FoldedStalls(r)), ElementsAre("main (x);f:g (a.cc:1);cudaMemcpy [d2h_copy] 42"));
  r.launch_sites = {{{"k"}, 0}};
  EXPECT_EQ(FoldedLaunches(r), "");
}

}  // namespace
}  // namespace brrr
