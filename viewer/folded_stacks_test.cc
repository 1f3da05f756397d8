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
              ElementsAre("main (train);train_step (train.cc);loss_item (train.cc);"
                          "cudaMemcpy [d2h_copy] 2000000000",
                          "[no stack];cudaFree [free_syncs_device] 4500000"));
}

TEST(FoldedStacksTest, LaunchSitesWeightedByEstimatedLaunchesWithoutTheirCudaFrames) {
  Report r = SampleReport();
  // The leading cudaLaunchKernel frame is CUDA plumbing (plumbing_frames 1): the flame's leaf is
  // the user's frame.
  EXPECT_THAT(Lines(FoldedLaunches(r)),
              ElementsAre("train_step (train.py);Model.forward (model.py) 76800",
                          "[no stack] 128"));
  r.launch_sites[0].plumbing_frames = 0;
  EXPECT_THAT(Lines(FoldedLaunches(r)),
              ElementsAre("train_step (train.py);Model.forward (model.py);"
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
  EXPECT_THAT(Lines(FoldedStalls(r)), ElementsAre("main (x);f:g (a.cc);cudaMemcpy [d2h_copy] 42"));
  r.launch_sites = {{{"k"}, 0}};
  EXPECT_EQ(FoldedLaunches(r), "");
}

// A function that called from three lines was three boxes side by side in a flame graph: its
// frames fold to one, and the stacks that differed only by line are one line.
TEST(FoldedStacksTest, AFunctionIsOneFrameWhicheverLineCalled) {
  Report r;
  r.stalls = {{"cudaMemcpy", "d2h_copy", 1, 10, {"step (app.cu:40)", "main (app.cu:90)"}},
              {"cudaMemcpy", "d2h_copy", 1, 20, {"step (app.cu:41)", "main (app.cu:91)"}},
              {"cudaFree", "free_syncs_device", 1, 5, {"step (app.cu:44)", "main (app.cu:92)"}},
              {"cudaFree", "free_syncs_device", 1, 7,
               {"f (libx.so+0x1f)", "g (weird:name:)", "h (a:b)"}}};
  EXPECT_THAT(Lines(FoldedStalls(r)),
              ElementsAre("main (app.cu);step (app.cu);cudaMemcpy [d2h_copy] 30",
                          "main (app.cu);step (app.cu);cudaFree [free_syncs_device] 5",
                          "h (a:b);g (weird:name:);f (libx.so+0x1f);cudaFree [free_syncs_device] 7"));
}

}  // namespace
}  // namespace brrr
