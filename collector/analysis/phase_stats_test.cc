// Tests of PhaseStats with hand-worked figures: nesting and inclusive parents, domains, start/end
// ranges across threads, unbalanced and never-closed ranges, the cap on paths, the intersection
// of phases with the breakdown's idle pieces, and bounded memory. Plus one run through Analysis:
// device time of a phase's launches joined by correlation.
#include "collector/analysis/phase_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"

namespace brrr {
namespace {

using ring::NvtxOp;
using testing::NvtxAt;

std::map<std::string, Phase> ByName(const std::vector<Phase>& phases) {
  std::map<std::string, Phase> out;
  for (const Phase& p : phases) out[p.name] = p;
  return out;
}

// PyTorch runs loss.backward() on its autograd engine's device thread while the main thread waits
// inside `bwd`: that thread, with no range of its own, is in the main thread's ranges at the time
// of each call, also when its calls are read after the main thread's pop (rings are drained one
// after another). A thread with ranges of its own keeps them; before SetMainThread, or for a time
// before the main thread's history, no phase.
TEST(PhaseStatsTest, AThreadWithoutRangesIsInTheMainThreadsRangesAtTheTimeOfItsCalls) {
  PhaseStats s;
  constexpr uint32_t kMain = 100, kAutograd = 101, kWorker = 102;
  s.OnNvtx(NvtxAt(NvtxOp::kPush, kWorker, 50, "own"));
  EXPECT_EQ(s.TagFor(kAutograd, 60) & 0xffff, 0u) << "no main thread set";
  s.SetMainThread(kMain);
  s.OnNvtx(NvtxAt(NvtxOp::kPush, kMain, 100, "step"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, kMain, 200, "fwd"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, kMain, 300));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, kMain, 400, "bwd"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, kMain, 600));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, kMain, 700));
  // The autograd thread's calls, read after all of that.
  s.AddLaunch(s.TagFor(kAutograd, 450));  // step/bwd
  s.AddLaunch(s.TagFor(kAutograd, 500));  // step/bwd
  s.AddDeviceWork(s.TagFor(kAutograd, 500), 80);
  s.AddLaunch(s.TagFor(kAutograd, 650));  // step only
  s.AddLaunch(s.TagFor(kAutograd, 800));  // none
  s.AddLaunch(s.TagFor(kAutograd, 90));   // before the main thread's first range: none
  s.AddLaunch(s.TagFor(kWorker, 450));    // its own range, not the main thread's
  s.OnNvtx(NvtxAt(NvtxOp::kPop, kWorker, 900));
  const auto phases = ByName(s.Finish(1000, 50));
  EXPECT_EQ(phases.at("step/bwd").launches, 2u);
  EXPECT_EQ(phases.at("step/bwd").device_ns, 80);
  EXPECT_EQ(phases.at("step").launches, 3u);
  EXPECT_EQ(phases.at("step/fwd").launches, 0u);
  EXPECT_EQ(phases.at("own").launches, 1u);
}

TEST(PhaseStatsTest, NestedPathsWithInclusiveParents) {
  PhaseStats s;
  EXPECT_FALSE(s.active());
  // Thread 1, two steps. Step 1: fwd [200,400) with 1 launch, bwd [500,700) with 2 launches and
  // a 30 ns stall; step [100,1000). Step 2: [1100,1300), one launch directly in `step`.
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 100, "step"));
  EXPECT_TRUE(s.active());
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 200, "fwd"));
  s.AddLaunch(s.TagFor(1));
  s.AddDeviceWork(s.TagFor(1), 50);
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 400));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 500, "bwd"));
  const uint32_t bwd = s.TagFor(1);
  s.AddLaunch(bwd);
  s.AddLaunch(bwd);
  s.AddStall(bwd, 30);
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 700));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 1000));
  EXPECT_EQ(s.TagFor(1), 0u) << "no range open: no phase";
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 1100, "step"));
  s.AddLaunch(s.TagFor(1));
  s.AddLaunch(s.TagFor(2));  // another thread: not inside thread 1's ranges
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 1300));
  // A tag taken earlier still credits the phases it named (device work arrives late).
  s.AddDeviceWork(bwd, 70);

  const std::vector<Phase> phases = s.Finish(2000, 50);
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].name, "step");  // by wall descending: 900 + 200
  EXPECT_EQ(phases[0].calls, 2u);
  EXPECT_EQ(phases[0].wall_ns, 1100);
  EXPECT_EQ(phases[0].launches, 4u);  // 1 (fwd) + 2 (bwd) + 1 (step 2)
  EXPECT_EQ(phases[0].device_ns, 120);
  EXPECT_EQ(phases[0].stall_ns, 30);
  EXPECT_EQ(phases[1].name, "step/bwd");  // 200, ties broken by name
  EXPECT_EQ(phases[1].calls, 1u);
  EXPECT_EQ(phases[1].wall_ns, 200);
  EXPECT_EQ(phases[1].launches, 2u);
  EXPECT_EQ(phases[1].device_ns, 70);
  EXPECT_EQ(phases[1].stall_ns, 30);
  EXPECT_EQ(phases[2].name, "step/fwd");
  EXPECT_EQ(phases[2].wall_ns, 200);
  EXPECT_EQ(phases[2].launches, 1u);
  EXPECT_EQ(phases[2].device_ns, 50);
  EXPECT_EQ(phases[2].stall_ns, 0);
  EXPECT_EQ(s.over_cap(), 0u);
  EXPECT_EQ(s.counters().ranges, 4u);
  EXPECT_EQ(s.counters().closed_at_end, 0u);
}

TEST(PhaseStatsTest, DomainsPrefixTheirLabelsAndUnnamedRangesHaveAName) {
  PhaseStats s;
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 0, "step"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 10, "fwd", "megatron"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 20, ""));
  s.OnNvtx(NvtxAt(NvtxOp::kMark, 1, 25, "here"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 30));  // default-domain pop of the default-domain range
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 40));  // default-domain pop of a megatron range: counted
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 100));
  const auto phases = ByName(s.Finish(100, 50));
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases.at("step").wall_ns, 100);
  EXPECT_EQ(phases.at("step/megatron:fwd").wall_ns, 30);
  EXPECT_EQ(phases.at("step/megatron:fwd/(unnamed)").wall_ns, 10);
  EXPECT_EQ(s.counters().marks, 1u);
  EXPECT_EQ(s.counters().pop_domain_mismatch, 1u);
}

// torch.profiler's prof.step() ranges are one phase, ProfilerStep#N, not one per step; a name that
// only looks like one keeps its name.
TEST(PhaseStatsTest, ProfilerStepsAreOnePhase) {
  PhaseStats s;
  for (int64_t step = 0; step < 3; ++step) {
    const int64_t t = step * 100;
    s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, t, "ProfilerStep#" + std::to_string(step)));
    s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, t + 10, "fwd"));
    s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, t + 40));
    s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, t + 100));
  }
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 300, "ProfilerStep#x"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 310));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 310, "ProfilerStep#"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 320));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 320, "ProfilerStep#1", "mine"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 330));
  const auto phases = ByName(s.Finish(400, 50));
  ASSERT_EQ(phases.size(), 5u);
  EXPECT_EQ(phases.at("ProfilerStep#N").calls, 3u);
  EXPECT_EQ(phases.at("ProfilerStep#N").wall_ns, 300);
  EXPECT_EQ(phases.at("ProfilerStep#N/fwd").calls, 3u);
  EXPECT_EQ(phases.at("ProfilerStep#N/fwd").wall_ns, 90);
  EXPECT_EQ(phases.at("ProfilerStep#x").calls, 1u);
  EXPECT_EQ(phases.at("ProfilerStep#").calls, 1u);
  EXPECT_EQ(phases.at("mine:ProfilerStep#1").calls, 1u);
}

TEST(PhaseStatsTest, StartEndRangesSpanThreadsAndAreNotNested) {
  PhaseStats s;
  // Thread 1 starts data:load (id 7) at 100 inside its push range `step`; thread 2 ends it at
  // 300. While it is open, every thread's launches count in it; `step` only thread 1's.
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 50, "step"));
  s.OnNvtx(NvtxAt(NvtxOp::kStart, 1, 100, "load", "data", 7));
  s.AddLaunch(s.TagFor(1));  // step + data:load
  s.AddLaunch(s.TagFor(2));  // data:load
  const uint32_t t2 = s.TagFor(2);
  s.OnNvtx(NvtxAt(NvtxOp::kEnd, 2, 300, "", "data", 7));
  s.AddLaunch(s.TagFor(2));  // nothing open on thread 2 any more
  EXPECT_EQ(s.TagFor(2), 0u);
  s.AddDeviceWork(t2, 40);  // work launched while it was open, arriving after its end
  // A start/end range named like a top-level push range is the same phase, credited once.
  s.OnNvtx(NvtxAt(NvtxOp::kStart, 3, 400, "step", "", 8));
  s.AddLaunch(s.TagFor(1));  // step (via both routes): once
  s.OnNvtx(NvtxAt(NvtxOp::kEnd, 3, 450, "", "", 8));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 500));
  const auto phases = ByName(s.Finish(1000, 50));
  ASSERT_EQ(phases.size(), 2u);
  const Phase& load = phases.at("data:load");
  EXPECT_EQ(load.calls, 1u);
  EXPECT_EQ(load.wall_ns, 200);
  EXPECT_EQ(load.launches, 2u);
  EXPECT_EQ(load.device_ns, 40);
  const Phase& step = phases.at("step");
  EXPECT_EQ(step.calls, 2u);          // one push, one start
  EXPECT_EQ(step.wall_ns, 450 + 50);  // [50,500) + [400,450)
  EXPECT_EQ(step.launches, 2u);
  EXPECT_EQ(step.device_ns, 0);
}

TEST(PhaseStatsTest, UnbalancedPopsUnknownEndsAndRangesOpenAtTheEnd) {
  PhaseStats s;
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 9, 10));  // a thread never seen
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 100, "a"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 200));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 250));  // nothing open any more
  s.OnNvtx(NvtxAt(NvtxOp::kEnd, 1, 260, "", "", 99));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 400, "a"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 500, "b"));
  s.OnNvtx(NvtxAt(NvtxOp::kStart, 2, 700, "io", "", 5));
  const auto phases = ByName(s.Finish(1000, 50));
  EXPECT_EQ(s.counters().unbalanced_pops, 2u);
  EXPECT_EQ(s.counters().unknown_ends, 1u);
  EXPECT_EQ(s.counters().closed_at_end, 3u);
  EXPECT_EQ(phases.at("a").calls, 2u);
  EXPECT_EQ(phases.at("a").wall_ns, 100 + 600);  // [100,200) + [400,1000)
  EXPECT_EQ(phases.at("a/b").wall_ns, 500);
  EXPECT_EQ(phases.at("io").wall_ns, 300);
}

TEST(PhaseStatsTest, PathsOverTheCapAreCountedAndTheirWorkGoesToTheirParents) {
  PhaseStats::Options o;
  o.max_paths = 2;
  PhaseStats s(o);
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 0, "a"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 10, "b"));  // a/b: the second and last row
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 20));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 30, "c"));  // a/c: over the cap
  s.AddLaunch(s.TagFor(1));                 // counts in a
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 40, "d"));  // a/c/d: over the cap
  s.AddStall(s.TagFor(1), 5);               // counts in a
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 50));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 60));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 70, "b"));  // a/b again: has its row
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 80));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 100));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 2, 200, "z"));  // over the cap at top level: no phase at all
  EXPECT_EQ(s.TagFor(2), 0u);
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 2, 300));
  const std::vector<Phase> phases = s.Finish(1000, 50);
  EXPECT_EQ(s.over_cap(), 3u);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "a");
  EXPECT_EQ(phases[0].wall_ns, 100);
  EXPECT_EQ(phases[0].launches, 1u);
  EXPECT_EQ(phases[0].stall_ns, 5);
  EXPECT_EQ(phases[1].name, "a/b");
  EXPECT_EQ(phases[1].calls, 2u);
  EXPECT_EQ(phases[1].wall_ns, 20);
  EXPECT_EQ(phases[1].launches, 0u);
  EXPECT_EQ(s.counters().unbalanced_pops, 0u) << "pops of over-cap ranges still balance";
}

TEST(PhaseStatsTest, PushesBeyondTheDepthCapCountInTheirParentsAndStillBalance) {
  PhaseStats::Options o;
  o.max_depth = 2;
  PhaseStats s(o);
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 0, "a"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 10, "b"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 20, "c"));  // third level: beyond the cap
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 30, "d"));
  s.AddLaunch(s.TagFor(1));            // a and a/b
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 40));   // d
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 50));   // c
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 60));   // b
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 100));  // a
  const auto phases = ByName(s.Finish(1000, 50));
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases.at("a").wall_ns, 100);
  EXPECT_EQ(phases.at("a").launches, 1u);
  EXPECT_EQ(phases.at("a/b").wall_ns, 50);
  EXPECT_EQ(phases.at("a/b").launches, 1u);
  EXPECT_EQ(s.counters().depth_over_cap, 2u);
  EXPECT_EQ(s.counters().unbalanced_pops, 0u);
  EXPECT_EQ(s.counters().closed_at_end, 0u);
}

TEST(PhaseStatsTest, SetsOfOpenStartEndRangesBeyondTheCapCreditNoRange) {
  PhaseStats::Options o;
  o.max_contexts = 1;
  PhaseStats s(o);
  s.OnNvtx(NvtxAt(NvtxOp::kStart, 1, 0, "x", "", 1));
  s.AddLaunch(s.TagFor(1));  // {x}: the one set with a tag
  s.OnNvtx(NvtxAt(NvtxOp::kStart, 1, 10, "y", "", 2));
  s.AddLaunch(s.TagFor(1));  // {x, y}: over the cap
  s.OnNvtx(NvtxAt(NvtxOp::kEnd, 1, 20, "", "", 2));
  s.AddLaunch(s.TagFor(1));  // {x} again
  s.OnNvtx(NvtxAt(NvtxOp::kEnd, 1, 30, "", "", 1));
  const auto phases = ByName(s.Finish(1000, 50));
  EXPECT_EQ(phases.at("x").launches, 2u);
  EXPECT_EQ(phases.at("y").launches, 0u);
  EXPECT_EQ(phases.at("y").wall_ns, 10);
  EXPECT_EQ(s.counters().contexts_over_cap, 1u);
}

TEST(PhaseStatsTest, TopKeepsTheLongestPhases) {
  PhaseStats s;
  for (int i = 0; i < 5; ++i) {
    s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 1000 * i, "p" + std::to_string(i)));
    s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 1000 * i + 10 * (i + 1)));
  }
  const std::vector<Phase> phases = s.Finish(10'000, 2);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "p4");
  EXPECT_EQ(phases[1].name, "p3");
}

TEST(PhaseStatsTest, IdleSplitIsTheIdleTimeInsideTheUnionOfThePhasesIntervals) {
  PhaseStats s;
  // `step` on thread 1 [100,500) (closed before the sweep) and thread 2 [400,1200) (open at the
  // first sweep): inside on [100,1000) at the first sweep, each instant once.
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 100, "step"));
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 2, 400, "step"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 500));
  // `other` on thread 3 [0,50): ends before any idle piece it could overlap except [0,50).
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 3, 0, "other"));
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 3, 50));
  // Sweep 1, [0,1000): device 0 launch [0,200) drain [200,300) outside [300,450)
  // launch [450,700) + [700,1000) (contiguous: one piece); device 1 drain [600,700).
  s.OnIdle(0, IdleKind::kLaunchBound, 0, 200);
  s.OnIdle(0, IdleKind::kSyncDrain, 200, 300);
  s.OnIdle(0, IdleKind::kHostOutsideCuda, 300, 450);
  s.OnIdle(0, IdleKind::kLaunchBound, 450, 700);
  s.OnIdle(0, IdleKind::kLaunchBound, 700, 1000);
  s.OnIdle(1, IdleKind::kSyncDrain, 600, 700);
  s.OnSwept(1000);
  // Sweep 2, [1000,1500): device 0 outside [1000,1500). Thread 2 pops at 1200 (before the sweep
  // is reported, as events come before the watermark passes them).
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 2, 1200));
  s.OnIdle(0, IdleKind::kHostOutsideCuda, 1000, 1500);
  s.OnSwept(1500);
  EXPECT_EQ(s.RetainedItemsForTest(), 0u) << "closed intervals behind the sweep are dropped";
  const auto phases = ByName(s.Finish(1500, 50));
  // step, sweep 1 over [100,1000): device 0 launch [100,200)=100 + [450,1000)=550, drain 100,
  // outside 150; device 1 drain 100. Sweep 2 over [1000,1200): outside 200.
  const IdleBreakdown& step = phases.at("step").idle;
  EXPECT_EQ(step.launch_bound_ns, 650);
  EXPECT_EQ(step.sync_drain_ns, 200);
  EXPECT_EQ(step.host_outside_cuda_ns, 350);
  EXPECT_EQ(phases.at("step").wall_ns, 400 + 800) << "wall time sums the ranges";
  const IdleBreakdown& other = phases.at("other").idle;
  EXPECT_EQ(other.launch_bound_ns, 50);
  EXPECT_EQ(other.sync_drain_ns, 0);
  EXPECT_EQ(other.host_outside_cuda_ns, 0);
}

TEST(PhaseStatsTest, StartEndRangesGetTheIdleOfTheirOpenTimeAcrossSweeps) {
  PhaseStats s;
  s.OnNvtx(NvtxAt(NvtxOp::kStart, 1, 250, "io", "", 3));
  s.OnIdle(0, IdleKind::kHostOutsideCuda, 0, 1000);
  s.OnSwept(1000);  // open: [250,1000) = 750
  s.OnIdle(0, IdleKind::kHostOutsideCuda, 1000, 2000);
  s.OnNvtx(NvtxAt(NvtxOp::kEnd, 2, 1300, "", "", 3));
  s.OnSwept(2000);  // closed at 1300: [1000,1300) = 300 (the part before 1000 is not recounted)
  const auto phases = ByName(s.Finish(2000, 50));
  EXPECT_EQ(phases.at("io").idle.host_outside_cuda_ns, 1050);
  EXPECT_EQ(phases.at("io").wall_ns, 1050);
}

TEST(PhaseStatsTest, LateEventsAreCountedAndClosedIntervalsBehindTheSweepAreNotKept) {
  PhaseStats s;
  s.OnIdle(0, IdleKind::kLaunchBound, 0, 1000);
  s.OnSwept(1000);
  s.OnNvtx(NvtxAt(NvtxOp::kPush, 1, 100, "old"));  // behind the finalized time
  s.OnNvtx(NvtxAt(NvtxOp::kPop, 1, 900));
  EXPECT_EQ(s.counters().late_events, 2u);
  EXPECT_EQ(s.RetainedItemsForTest(), 0u);
  const auto phases = ByName(s.Finish(1000, 50));
  EXPECT_EQ(phases.at("old").wall_ns, 800);
  EXPECT_EQ(phases.at("old").idle.launch_bound_ns, 0);
}

TEST(PhaseStatsTest, MemoryDoesNotGrowWithTheRunsLength) {
  PhaseStats s;
  size_t peak = 0;
  int64_t t = 0;
  for (int sweep = 0; sweep < 200; ++sweep) {
    const int64_t from = t;
    for (int i = 0; i < 500; ++i, t += 100) {
      s.OnNvtx(NvtxAt(NvtxOp::kPush, 1 + i % 4, t, "step"));
      s.OnNvtx(NvtxAt(NvtxOp::kPush, 1 + i % 4, t + 10, "fwd"));
      s.OnNvtx(NvtxAt(NvtxOp::kPop, 1 + i % 4, t + 50));
      s.OnNvtx(NvtxAt(NvtxOp::kPop, 1 + i % 4, t + 60));
    }
    s.OnIdle(0, IdleKind::kLaunchBound, from, t);
    s.OnSwept(t);
    peak = std::max(peak, s.RetainedItemsForTest());
  }
  EXPECT_EQ(peak, 0u);
  const auto phases = ByName(s.Finish(t, 50));
  EXPECT_EQ(phases.at("step").calls, 100'000u);
  EXPECT_EQ(phases.at("step").wall_ns, int64_t{100'000} * 60);
  EXPECT_EQ(phases.at("step").idle.launch_bound_ns, int64_t{100'000} * 60);
  EXPECT_EQ(phases.at("step/fwd").idle.launch_bound_ns, int64_t{100'000} * 40);
}

// Through the whole analysis: the NVTX events, host calls and CUPTI records of one thread.
TEST(PhaseStatsThroughAnalysisTest, LaunchesStallsAndDeviceTimeJoinedByCorrelation) {
  using namespace brrr::testing;  // NOLINT
  Analysis a;
  RunInfo info;
  info.start_ns = 1'000'000;
  info.end_ns = 2'000'000;
  a.SetRunInfo(info);
  const int64_t t0 = 1'000'000;
  a.OnNvtx(NvtxAt(NvtxOp::kPush, kTid, t0 + 1'000, "step"));
  a.OnNvtx(NvtxAt(NvtxOp::kPush, kTid, t0 + 2'000, "fwd"));
  a.OnHostCall(Host(Api::kCudaLaunchKernel, t0 + 3'000, t0 + 4'000));
  a.OnNvtx(NvtxAt(NvtxOp::kPop, kTid, t0 + 5'000));
  a.OnHostCall(Host(Api::kCudaLaunchKernel, t0 + 6'000, t0 + 7'000));
  // A 100 us device sync: a stall of `step` only.
  a.OnHostCall(Host(Api::kCudaDeviceSynchronize, t0 + 8'000, t0 + 108'000));
  a.OnNvtx(NvtxAt(NvtxOp::kPop, kTid, t0 + 110'000));
  a.OnHostCall(Host(Api::kCudaLaunchKernel, t0 + 120'000, t0 + 121'000));  // outside
  // CUPTI: each launch's runtime record and its kernel (fwd's: 20 us, step's: 30 us, outside:
  // 5 us); step's kernel comes before its launch's record (the joiner holds it until then).
  a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 11, t0 + 3'100, t0 + 3'900));
  a.OnDeviceOp(Kernel("k", 12, t0 + 30'000, t0 + 60'000));
  a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 12, t0 + 6'100, t0 + 6'900));
  a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 13, t0 + 120'100, t0 + 120'900));
  a.OnDeviceOp(Kernel("k", 11, t0 + 5'000, t0 + 25'000));
  a.OnDeviceOp(Kernel("k", 13, t0 + 130'000, t0 + 135'000));
  const Report r = a.Finish({});
  const auto phases = ByName(r.phases);
  ASSERT_EQ(phases.size(), 2u);
  const Phase& step = phases.at("step");
  EXPECT_EQ(step.calls, 1u);
  EXPECT_EQ(step.wall_ns, 109'000);
  EXPECT_EQ(step.launches, 2u);
  EXPECT_EQ(step.device_ns, 50'000);
  EXPECT_EQ(step.stall_ns, 100'000);
  const Phase& fwd = phases.at("step/fwd");
  EXPECT_EQ(fwd.launches, 1u);
  EXPECT_EQ(fwd.device_ns, 20'000);
  EXPECT_EQ(fwd.stall_ns, 0);
  EXPECT_EQ(fwd.wall_ns, 3'000);
  // Idle while inside step [t0+1000, t0+110000): device 0 busy [5000,25000) and [30000,60000).
  // [1000,3000): no CUDA call yet: outside. [3000,5000): host in or near the launches: launch-
  // bound. [25000,30000) and [60000,108000): the sync runs: drain. [108000,110000): after the
  // stall, no op started since: drain (rule 3).
  EXPECT_EQ(step.idle.host_outside_cuda_ns, 2'000);
  EXPECT_EQ(step.idle.launch_bound_ns, 2'000);
  EXPECT_EQ(step.idle.sync_drain_ns, 5'000 + 48'000 + 2'000);
  // fwd [2000,5000): outside [2000,3000), launch-bound [3000,5000).
  EXPECT_EQ(fwd.idle.host_outside_cuda_ns, 1'000);
  EXPECT_EQ(fwd.idle.launch_bound_ns, 2'000);
  EXPECT_EQ(fwd.idle.sync_drain_ns, 0);
  // NVTX events are not calls.
  uint64_t calls = 0;
  for (const ApiStat& api : r.api) calls += api.calls;
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(r.phases_over_cap, 0u);
}

// An app killed inside a range: no end time in the run info, so the run ends at its newest
// event, NVTX ones included, and the range still open is closed there.
TEST(PhaseStatsThroughAnalysisTest, RangesOpenWhenTheAppWasKilledEndWithItsLastEvent) {
  using namespace brrr::testing;  // NOLINT
  Analysis a;
  a.SetRunInfo(MakeRun(500, /*end=*/0));
  a.OnNvtx(NvtxAt(NvtxOp::kPush, kTid, 1'000, "train"));
  a.OnHostCall(Host(Api::kCudaLaunchKernel, 2'000, 3'000));
  a.OnNvtx(NvtxAt(NvtxOp::kMark, kTid, 10'000, "still alive"));
  const Report r = a.Finish({});
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].name, "train");
  EXPECT_EQ(r.phases[0].wall_ns, 9'000);
  EXPECT_EQ(r.phases[0].launches, 1u);
  EXPECT_EQ(a.counters().phases.closed_at_end, 1u);
}

// A long run through the analysis, every launch inside `step/fwd`, CUPTI records a batch late:
// what the phases retain stays bounded by the breakdown's window, and the figures stay exact.
TEST(PhaseStatsThroughAnalysisTest, RetainedStateDoesNotGrowWithTheRun) {
  using namespace brrr::testing;       // NOLINT
  constexpr int64_t kIters = 400'000;  // 10 us each: 4 s of event time
  constexpr int kBatch = 1000;
  AnalysisOptions options;
  options.reorder_window_ns = 50'000'000;
  Analysis a(options);
  a.SetRunInfo(MakeRun(1, kIters * 10'000));  // the profiling started at 1 ns
  std::vector<ApiActivity> api;
  std::vector<DeviceOp> ops;
  DeviceOp kernel = Kernel("k", 0, 0, 0);
  size_t max_first_half = 0, max_second_half = 0;
  for (int64_t i = 0; i < kIters; ++i) {
    const int64_t t0 = i * 10'000 + 100;
    const uint32_t corr = static_cast<uint32_t>(i + 1);
    a.OnNvtx(NvtxAt(NvtxOp::kPush, kTid, t0, "step"));
    a.OnNvtx(NvtxAt(NvtxOp::kPush, kTid, t0 + 10, "fwd"));
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t0 + 100, t0 + 3'000));
    a.OnNvtx(NvtxAt(NvtxOp::kPop, kTid, t0 + 3'100));
    a.OnNvtx(NvtxAt(NvtxOp::kPop, kTid, t0 + 3'200));
    api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 120, t0 + 2'980));
    kernel.correlation_id = corr;
    kernel.start_ns = t0 + 4'000;
    kernel.end_ns = t0 + 6'000;
    ops.push_back(kernel);
    if (static_cast<int>(ops.size()) == kBatch) {
      for (const ApiActivity& r : api) a.OnApiActivity(r);
      for (const DeviceOp& op : ops) a.OnDeviceOp(op);
      api.clear();
      ops.clear();
      size_t& max = i < kIters / 2 ? max_first_half : max_second_half;
      max = std::max(max, a.RetainedItemsForTest());
    }
  }
  const Report r = a.Finish(nullptr);
  // The breakdown keeps ~(1.5 x 50 ms + one batch) / 10 us = 8.5k iterations of spans and ops;
  // the phases as many intervals of each of their two paths.
  EXPECT_LE(max_first_half, 60'000u);
  EXPECT_LE(max_second_half, max_first_half + 3 * kBatch);
  const auto phases = ByName(r.phases);
  ASSERT_EQ(phases.size(), 2u);
  for (const char* name : {"step", "step/fwd"}) {
    const Phase& p = phases.at(name);
    EXPECT_EQ(p.calls, static_cast<uint64_t>(kIters)) << name;
    EXPECT_EQ(p.launches, static_cast<uint64_t>(kIters)) << name;
    EXPECT_EQ(p.device_ns, kIters * 2'000) << name;
  }
  EXPECT_EQ(phases.at("step").wall_ns, kIters * 3'200);
  EXPECT_EQ(phases.at("step/fwd").wall_ns, kIters * 3'090);
  // Inside `step` [t0, t0+3200) the device is idle all the time (its kernels run at
  // [t0+4000, t0+6000)) and the host is in or near its launches: launch-bound, except before the
  // run's first CUDA call ([100, 200) of the first iteration): outside CUDA.
  EXPECT_EQ(phases.at("step").idle.launch_bound_ns, kIters * 3'200 - 100);
  EXPECT_EQ(phases.at("step").idle.sync_drain_ns, 0);
  EXPECT_EQ(phases.at("step").idle.host_outside_cuda_ns, 100);
  EXPECT_EQ(a.counters().phases.late_events, 0u);
  EXPECT_EQ(a.counters().phases.intervals_dropped, 0u);
}

}  // namespace
}  // namespace brrr
