// Tests of TracedWindows (sampled device tracing's estimate) with hand-worked values: busy time
// scaled and capped with the idle parts filling the rest, the cluster error bound of three
// windows, kernels attributed to the window their launch call ran in, lost and overlapping window
// records, a run killed with a window open; and the whole analysis on a loop whose device runs far
// behind its host (kernels of a window run long after it closed) and on a launch-bound loop.
#include "collector/analysis/traced_windows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"

namespace brrr {
namespace {

DeviceBreakdown Device(int64_t busy, int64_t launch, int64_t drain, int64_t outside,
                       int64_t startup) {
  DeviceBreakdown d;
  d.busy_ns = busy;
  d.idle.launch_bound_ns = launch;
  d.idle.sync_drain_ns = drain;
  d.idle.host_outside_cuda_ns = outside;
  d.startup_ns = startup;
  d.wall_ns = busy + launch + drain + outside + startup;
  return d;
}

int64_t Sum(const DeviceBreakdown& d) {
  return d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
         d.idle.host_outside_cuda_ns + d.startup_ns + d.teardown_ns;
}

TEST(TracedWindowsTest, ScalesBusyAndShrinksTheIdlePartsInProportion) {
  std::vector<DeviceBreakdown> devices = {Device(100, 300, 100, 0, 50), Device(100, 0, 0, 400, 0)};
  TracedWindows::ScaleBusy(2.0, &devices);
  // Busy 100 x 2 = 200 of a 500 ns steady state; idle 300 split 3 : 1 as it was.
  EXPECT_EQ(devices[0].busy_ns, 200);
  EXPECT_EQ(devices[0].idle.launch_bound_ns, 225);
  EXPECT_EQ(devices[0].idle.sync_drain_ns, 75);
  EXPECT_EQ(devices[0].idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(Sum(devices[0]), devices[0].wall_ns);
  EXPECT_EQ(devices[1].busy_ns, 200);
  EXPECT_EQ(devices[1].idle.host_outside_cuda_ns, 300);
  TracedWindows::ScaleBusy(10.0, &devices);  // capped at the steady state
  EXPECT_EQ(devices[0].busy_ns, 500);
  EXPECT_EQ(devices[0].idle.launch_bound_ns + devices[0].idle.sync_drain_ns, 0);
  EXPECT_EQ(Sum(devices[0]), devices[0].wall_ns);
}

// CUPTI detached between windows: the library's launches (from callbacks) are seen inside the
// windows only. Windows [1, 2) ms and [6, 7) ms of 10 ms; 40 hooked launches each ms (400, 80 of
// them inside); 4 callback launches, all inside; 12 kernels traced. Launch calls = the 84 inside
// x 400 hooked / 80 hooked inside = 420, not the 404 recorded.
TEST(TracedWindowsTest, LaunchCallsSeenInsideTheWindowsOnlyAreScaledUp) {
  TracedWindows tw;
  tw.AddWindow({1'000'000, 2'000'000});
  tw.AddWindow({6'000'000, 7'000'000});
  for (int ms = 0; ms < 10; ++ms) {
    for (int k = 0; k < 40; ++k) {
      const int64_t t = ms * 1'000'000 + k * 25'000;
      tw.AddLaunchCall(t, 1000);
      if ((ms == 1 || ms == 6) && k < 4) tw.AddTracedKernel(t, 500, true);
    }
  }
  for (int64_t t : {1'100'000, 1'200'000, 6'100'000, 6'200'000}) {
    tw.AddLaunchCall(t, 1000, TracedWindows::SeenBy::kCallback);
    tw.AddTracedKernel(t, 500, true);
  }
  const TracedWindows::Estimate detached = tw.Finish(404, 1'000'000, /*callbacks_detached=*/true);
  EXPECT_EQ(detached.launch_calls, 84u * 400u / 80u);
  EXPECT_EQ(detached.traced_launches, 12u);
  EXPECT_DOUBLE_EQ(detached.scale, 420.0 / 12.0);
}

// The collector drains the app's rings before the device ring with the window records, so calls
// come before the record of an edge they are past. Window [1, 2) ms; CUPTI detached at 3 ms (the
// callbacks' launches are seen in [1, 3) ms only); hooked launches every 25 us over 10 ms. Drains
// at 1.5 ms (calls before it, then the open), 4 ms (calls before it, then the close) and 10 ms.
// Classified as they came, the calls in [1, 1.5) ms would be outside and those in [2, 4) ms
// inside: 100 hooked and 60 callback calls inside, 160 x 400 / 100 = 640 launch calls. Each waits
// for a record stamped after it: 40 + 40 inside, 80 x 400 / 40 = 800.
TEST(TracedWindowsTest, LaunchCallsWaitForTheWindowRecordsAfterThem) {
  TracedWindows tw;
  tw.Enable();
  auto calls_before = [&](int64_t from, int64_t to) {
    for (int64_t t = from; t < to; t += 25'000) {
      tw.AddLaunchCall(t, 1000);
      if (t >= 1'000'000 && t < 3'000'000) {
        tw.AddLaunchCall(t + 1, 1000, TracedWindows::SeenBy::kCallback);
      }
    }
  };
  calls_before(0, 1'500'000);
  EXPECT_EQ(tw.held_calls(), 80u);  // no record yet
  tw.AddWindow({1'000'000, 0});
  EXPECT_EQ(tw.held_calls(), 20u + 20u);  // those after the open still wait
  calls_before(1'500'000, 4'000'000);
  EXPECT_EQ(tw.launch_calls(), 160u + 80u);  // the budget's count includes those waiting
  tw.AddWindow({1'000'000, 2'000'000});
  calls_before(4'000'000, 10'000'000);
  const TracedWindows::Estimate e = tw.Finish(480, 1'000'000, /*callbacks_detached=*/true);
  EXPECT_EQ(e.launch_calls_in, 80u);
  EXPECT_EQ(e.launch_calls_out, 400u);
  EXPECT_EQ(e.launch_calls, 800u);
  EXPECT_EQ(e.calls_classified_early, 0u);
}

// Where CUPTI detaches between windows it stays subscribed after each until the detach (one window
// length where the close records do not say when, as here): the
// calls then are a side of their own, priced against those outside. Windows [1, 2) and [5, 6) ms,
// 1 ms after each; a call every 10 us: inside 3,000 ns, after 2,500 ns, outside 2,000 ns.
TracedWindows WindowsWithCallsAfterThem() {
  TracedWindows tw;
  tw.Enable();
  tw.SetAfterWindowNs(1'000'000);
  tw.AddWindow({1'000'000, 2'000'000});
  tw.AddWindow({5'000'000, 6'000'000});
  for (int64_t t = 0; t < 9'000'000; t += 10'000) {
    const int64_t in_period = t % 4'000'000;  // both windows start 1 ms into a 4 ms period
    const bool inside = in_period >= 1'000'000 && in_period < 2'000'000;
    const bool after = in_period >= 2'000'000 && in_period < 3'000'000 && t < 7'000'000;
    tw.AddLaunchCall(t, inside ? 3'000 : after ? 2'500 : 2'000);
  }
  tw.CloseOpenWindow(9'000'000);
  return tw;
}

// Tracing's cost can come in rare costly calls (CUPTI handing over a full activity buffer on the
// launching thread), which no median sees: the A/B compares means. One window of 10 ms with a call
// every 10 us: 2 us each, 10 of the 1,000 100 us; its first call is priced apart and left out of
// the mean inside: (989 x 2,000 + 10 x 100,000) / 999 = 2,980 ns. Outside, 1,000 calls of 1.5 us,
// one of them 50 us (a preemption): 1,548 ns. Added per call inside: 1,432 ns (the medians:
// 500 ns).
TEST(TracedWindowsTest, RareCostlyCallsInsideAreCountedByTheMeans) {
  TracedWindows tw;
  tw.Enable();
  tw.AddWindow({1'000'000, 11'000'000});
  int i = 0, j = 0;
  for (int64_t t = 0; t < 20'000'000; t += 10'000) {
    const bool inside = t >= 1'000'000 && t < 11'000'000;
    const int64_t d = inside ? (i++ % 100 == 50 ? 100'000 : 2'000) : (j++ == 500 ? 50'000 : 1'500);
    tw.AddLaunchCall(t, d);
  }
  tw.CloseOpenWindow(20'000'000);
  const TracedWindows::Estimate e = tw.Finish(2'000, 20'000'000);
  EXPECT_EQ(e.launch_calls_in, 1'000u);
  EXPECT_EQ(e.launch_calls_out, 1'000u);
  EXPECT_NEAR(static_cast<double>(e.launch_p50_in_ns - e.launch_p50_out_ns), 500, 35);
  EXPECT_EQ(e.launch_mean_in_ns, 2'980);
  EXPECT_EQ(e.launch_mean_out_ns, 1'548);
  ASSERT_TRUE(e.tracing_ns_per_launch.has_value());
  EXPECT_EQ(*e.tracing_ns_per_launch, 1'432);
}

TEST(TracedWindowsTest, CallsWhileCuptiWaitsToDetachArePricedApart) {
  TracedWindows tw = WindowsWithCallsAfterThem();
  EXPECT_EQ(tw.launch_calls(), 900u);
  ASSERT_TRUE(tw.TracingNsPerLaunch().has_value());
  EXPECT_NEAR(static_cast<double>(*tw.TracingNsPerLaunch()), 1'000, 20);
  // Per call inside: 1,000 ns, plus 500 ns for each of the as many calls after it.
  // Detached (untimed here), or not.
  ASSERT_TRUE(tw.CostPerTracedLaunchNs({.detaches = 2}).has_value());
  EXPECT_NEAR(*tw.CostPerTracedLaunchNs({.detaches = 2}), 1'500, 30);
  EXPECT_NEAR(*tw.CostPerTracedLaunchNs({}), 1'000, 20);
  const TracedWindows::Estimate e = tw.Finish(900, 9'000'000, /*callbacks_detached=*/true);
  EXPECT_EQ(e.launch_calls_in, 200u);
  EXPECT_EQ(e.launch_calls_after, 200u);
  EXPECT_EQ(e.launch_calls_out, 500u);
  EXPECT_NEAR(static_cast<double>(e.launch_p50_after_ns), 2'500, 25);
  ASSERT_TRUE(e.after_window_ns_per_launch.has_value());
  EXPECT_NEAR(static_cast<double>(*e.after_window_ns_per_launch), 500, 30);
  EXPECT_EQ(e.launch_calls, 900u);  // every call is still counted once
}

// Turning kernel records on costs the app's next launch once (5.6-5.9 ms on an H200,
// tools/gpu/workloads/attach_probe.cu), which no median sees: the first launch call of each window
// is priced apart. Three windows of 1 ms, a call every 10 us inside (2 us each, the first of each
// window 5 ms longer) and outside (1.5 us): 3 x 5 ms beyond the median inside. The second window's
// first call comes last (another thread's): it is still the first. The third's slow call entered
// 10 us before the window opened and ran into it (the call that pays may be in flight when the
// shim stamps the window's start): it is the third's first.
TEST(TracedWindowsTest, TheFirstLaunchCallOfEachWindowIsPricedApart) {
  TracedWindows tw;
  tw.Enable();
  for (int64_t w = 0; w < 3; ++w)
    tw.AddWindow({(w * 10 + 1) * 1'000'000, (w * 10 + 2) * 1'000'000});
  for (int64_t t = 0; t < 30'000'000; t += 10'000) {
    const int64_t in_window = (t / 1'000'000) % 10 == 1;
    const bool first = in_window && t % 1'000'000 == 0 && t != 21'000'000;
    if (first && t == 11'000'000) continue;  // below, last
    const bool into_third = t == 20'990'000;
    tw.AddLaunchCall(t, into_third ? 5'002'000 : !in_window ? 1'500 : first ? 5'002'000 : 2'000);
  }
  tw.AddLaunchCall(11'000'000, 5'002'000);
  ASSERT_TRUE(tw.TracingNsPerLaunch().has_value());
  EXPECT_NEAR(static_cast<double>(*tw.TracingNsPerLaunch()), 500, 20);
  // Per call inside: 500 ns, plus 15 ms over the 300 calls inside.
  ASSERT_TRUE(tw.CostPerTracedLaunchNs({}).has_value());
  EXPECT_NEAR(*tw.CostPerTracedLaunchNs({}), 500 + 50'000, 100);
  const TracedWindows::Estimate e = tw.Finish(3'000, 30'000'000);
  EXPECT_EQ(e.launch_calls_in, 300u);
  EXPECT_EQ(e.windows_with_first_call, 3u);
  ASSERT_TRUE(e.window_opening_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*e.window_opening_ns), 15'000'000, 3 * 20);
}

// The same first calls; their kernels say how long the device was still busy with earlier work
// after each call returned, and that much of its 5 ms excess cost the app nothing: the first
// window's kernel started 10 ms after its call returned (all 5 ms hidden; its record came before
// the call's), the second's 2 ms after (3 ms counted), the third's 5 us after (4.995 ms counted).
// Kernels of other calls change nothing: a later one of the second window, and one of a call just
// after the first window (its own, by the edge slack) that started before any other.
TEST(TracedWindowsTest, WhatTheDeviceQueueHidOfAFirstCallIsNotCounted) {
  TracedWindows tw;
  tw.Enable();
  for (int64_t w = 0; w < 3; ++w)
    tw.AddWindow({(w * 10 + 1) * 1'000'000, (w * 10 + 2) * 1'000'000});
  tw.AddTracedKernel(1'000'000, 500, true, 6'002'000 + 10'000'000);
  tw.AddTracedKernel(2'005'000, 500, true, 2'010'000);
  for (int64_t t = 0; t < 30'000'000; t += 10'000) {
    const int64_t in_window = (t / 1'000'000) % 10 == 1;
    const bool first = in_window && t % 1'000'000 == 0 && t != 21'000'000;
    const bool into_third = t == 20'990'000;
    tw.AddLaunchCall(t, into_third ? 5'002'000 : !in_window ? 1'500 : first ? 5'002'000 : 2'000);
  }
  tw.AddTracedKernel(11'010'000, 500, true, 30'000'000);
  tw.AddTracedKernel(11'000'000, 500, true, 16'002'000 + 2'000'000);
  tw.AddTracedKernel(20'990'000, 500, true, 25'992'000 + 5'000);
  ASSERT_TRUE(tw.CostPerTracedLaunchNs({}).has_value());
  EXPECT_NEAR(*tw.CostPerTracedLaunchNs({}), 500 + 7'995'000 / 300.0, 100);
  const TracedWindows::Estimate e = tw.Finish(3'000, 30'000'000);
  EXPECT_EQ(e.windows_with_first_call, 3u);
  ASSERT_TRUE(e.window_opening_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*e.window_opening_ns), 7'995'000, 3 * 20);
  EXPECT_NEAR(static_cast<double>(e.window_opening_hidden_ns), 7'005'000, 3 * 20);
  EXPECT_EQ(e.windows_opening_hidden, 3u);
}

// Where each window names a detach after it, CUPTI is attached again for the next: a first call
// that entered before such a window's start waited for that attach there, which the estimate
// counts with the attaches (timed by the shim), not twice. The second window's first call entered
// 2 ms before its start and took 7 ms more than the median: 5 ms counted, 2 ms in the attach. The
// first window's (the run's first: no attach named before it) entered 10 us early: all counted;
// the third's entered at its start. Without detaches, all 17.01 ms count.
TEST(TracedWindowsTest, AFirstCallsWaitForTheAttachBeforeItsWindowIsTheAttachs) {
  const auto run = [](bool detach) {
    TracedWindows tw;
    tw.Enable();
    for (int64_t w = 0; w < 3; ++w) {
      TracingWindowEvent window{(w * 10 + 1) * 1'000'000, (w * 10 + 2) * 1'000'000};
      if (detach) window.detach_at_ns = window.end_ns + 500'000;
      tw.AddWindow(window);
    }
    for (int64_t t = 0; t < 30'000'000; t += 10'000) {
      const bool in_window = (t / 1'000'000) % 10 == 1;
      int64_t took = in_window ? 2'000 : 1'500;
      if (t == 990'000) took = 5'012'000;     // into the first window
      if (t == 9'000'000) took = 7'002'000;   // into the second, 2 ms early
      if (t == 21'000'000) took = 5'002'000;  // the third's, at its start
      tw.AddLaunchCall(t, took);
    }
    return tw.Finish(3'000, 30'000'000, detach);
  };
  const TracedWindows::Estimate detached = run(true);
  EXPECT_EQ(detached.windows_with_first_call, 3u);
  ASSERT_TRUE(detached.window_opening_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*detached.window_opening_ns), 15'010'000, 3 * 20);
  EXPECT_EQ(detached.window_opening_in_attach_ns, 2'000'000);
  const TracedWindows::Estimate attached = run(false);
  ASSERT_TRUE(attached.window_opening_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*attached.window_opening_ns), 17'010'000, 3 * 20);
  EXPECT_EQ(attached.window_opening_in_attach_ns, 0);
}

TEST(TracedWindowsTest, WithoutADetachTheCallsAfterAWindowAreOutside) {
  TracedWindows tw = WindowsWithCallsAfterThem();
  const TracedWindows::Estimate e = tw.Finish(900, 9'000'000, /*callbacks_detached=*/false);
  EXPECT_EQ(e.launch_calls_in, 200u);
  EXPECT_EQ(e.launch_calls_after, 0u);
  EXPECT_EQ(e.launch_calls_out, 700u);
  EXPECT_FALSE(e.after_window_ns_per_launch.has_value());
  EXPECT_NEAR(static_cast<double>(e.launch_p50_out_ns), 2'000, 20);  // 500 of the 700 at 2 us
}

// The shim's wait before a detach adapts (shim/detach_grace.h) and each close record says when the
// detach was: the span after a window ends there, whatever the window length says. The same calls
// as above; the first window's detach 0.5 ms after it, the second's 0.25 ms: half and a quarter of
// the calls in the millisecond after each are after, the rest outside.
TEST(TracedWindowsTest, TheSpanAfterAWindowEndsAtTheDetachItsCloseRecordNames) {
  TracedWindows tw;
  tw.Enable();
  tw.SetAfterWindowNs(1'000'000);  // the window length: used only where no detach time is given
  TracingWindowEvent first{1'000'000, 2'000'000};
  first.detach_at_ns = 2'500'000;
  TracingWindowEvent second{5'000'000, 6'000'000};
  second.detach_at_ns = 6'250'000;
  tw.AddWindow({1'000'000, 0});  // opened, then closed by its own record
  tw.AddWindow(first);
  tw.AddWindow(second);
  for (int64_t t = 0; t < 9'000'000; t += 10'000) tw.AddLaunchCall(t, 2'000);
  tw.CloseOpenWindow(9'000'000);
  const TracedWindows::Estimate e = tw.Finish(900, 9'000'000, /*callbacks_detached=*/true);
  EXPECT_EQ(e.launch_calls_in, 200u);
  EXPECT_EQ(e.launch_calls_after, 50u + 25u);
  EXPECT_EQ(e.launch_calls_out, 900u - 200u - 75u);
  EXPECT_EQ(e.after_span_mean_ns, 375'000);
  // A detach time before the close is no span: that window falls back to the window length.
  TracedWindows fallback;
  fallback.Enable();
  fallback.SetAfterWindowNs(1'000'000);
  TracingWindowEvent odd{1'000'000, 2'000'000};
  odd.detach_at_ns = 1'500'000;
  fallback.AddWindow(odd);
  for (int64_t t = 0; t < 4'000'000; t += 10'000) fallback.AddLaunchCall(t, 2'000);
  const TracedWindows::Estimate f = fallback.Finish(400, 4'000'000, /*callbacks_detached=*/true);
  EXPECT_EQ(f.launch_calls_after, 100u);
  EXPECT_EQ(f.after_span_mean_ns, 0);
}

// The shim stops detaching once a wait of a whole window still found work queued: the windows
// after which it stayed attached are counted, but not the last one (the run ended after it) nor
// any where no close record ever named a detach (a shim that does not say).
TEST(TracedWindowsTest, WindowsAfterWhichCuptiStayedAttachedAreCounted) {
  TracedWindows tw;
  tw.Enable();
  for (int64_t i = 0; i < 5; ++i) {
    TracingWindowEvent w{(i * 10 + 1) * 1'000'000, (i * 10 + 2) * 1'000'000};
    if (i < 2) w.detach_at_ns = w.end_ns + 1'000'000;  // detached after the first two
    w.kept_attached = i >= 2 && i < 4;                 // the last closed at exit: neither
    tw.AddWindow(w);
  }
  tw.SetAfterWindowNs(5'000'000);
  // A call every 100 us: 10 a window inside; after the first two windows, 10 in their 1 ms span;
  // after the others none (CUPTI stayed attached: their spans are outside ones).
  for (int64_t t = 0; t < 50'000'000; t += 100'000) tw.AddLaunchCall(t, 2'000);
  const TracedWindows::Estimate e = tw.Finish(500, 50'000'000, /*callbacks_detached=*/true);
  EXPECT_EQ(e.windows_kept_attached, 2u);
  EXPECT_EQ(e.launch_calls_in, 50u);
  EXPECT_EQ(e.launch_calls_after, 20u);
  EXPECT_EQ(e.launch_calls_out, 430u);
  // A shim that stayed attached from the first window on: no span after any (the calls after the
  // windows are outside ones, not the window length's span of a shim that does not say), each kept
  // window counted all the same.
  TracedWindows kept_from_start;
  kept_from_start.Enable();
  TracingWindowEvent first{1'000'000, 2'000'000};
  first.kept_attached = true;
  kept_from_start.AddWindow(first);
  kept_from_start.AddWindow({11'000'000, 12'000'000});  // closed at exit: no detach asked
  kept_from_start.SetAfterWindowNs(5'000'000);
  for (int64_t t = 0; t < 20'000'000; t += 100'000) kept_from_start.AddLaunchCall(t, 2'000);
  const TracedWindows::Estimate k = kept_from_start.Finish(200, 20'000'000, true);
  EXPECT_EQ(k.windows_kept_attached, 1u);
  EXPECT_EQ(k.after_span_mean_ns, 0);
  EXPECT_EQ(k.launch_calls_in, 20u);
  EXPECT_EQ(k.launch_calls_after, 0u);
  EXPECT_EQ(k.launch_calls_out, 180u);
}

// At most max_held_calls wait: the oldest is then classified by the windows known (here none:
// outside), and the estimate says how many were while a window's record could still come for them
// (less than a second behind the newest call).
// A sampled run's windows where at most four launch calls wait.
TracedWindows HoldingFourCalls() {
  TracedWindows::Options options;
  options.max_held_calls = 4;
  TracedWindows tw(options);
  tw.Enable();
  return tw;
}

TEST(TracedWindowsTest, CallsOverTheCapAreClassifiedEarlyAndCounted) {
  TracedWindows tw = HoldingFourCalls();
  for (int64_t t = 1'000; t <= 6'000; t += 1'000) tw.AddLaunchCall(t, 100);
  EXPECT_EQ(tw.held_calls(), 4u);
  tw.AddWindow({0, 10'000});  // a window over all six, known late
  const TracedWindows::Estimate e = tw.Finish(6, 1'000'000);
  EXPECT_EQ(e.calls_classified_early, 2u);
  EXPECT_EQ(e.launch_calls_in, 4u);
  EXPECT_EQ(e.launch_calls_out, 2u);
}

// A call a second behind the newest is settled (a window's record comes within a drain): one
// classified at the cap then is not counted early. Calls at 0 and 1 us, then four from 1.5 s on,
// with a window [1.5 s, 2 s) known after them all.
TEST(TracedWindowsTest, CallsASecondBehindTheNewestAreSettledAtTheCap) {
  TracedWindows tw = HoldingFourCalls();
  for (int64_t t : {int64_t{0}, int64_t{1'000}}) tw.AddLaunchCall(t, 100);
  for (int64_t k = 0; k < 4; ++k) tw.AddLaunchCall(1'500'000'000 + k * 1'000, 100);
  EXPECT_EQ(tw.held_calls(), 4u);
  tw.AddWindow({1'500'000'000, 2'000'000'000});
  const TracedWindows::Estimate e = tw.Finish(6, 1'000'000);
  EXPECT_EQ(e.calls_classified_early, 0u);
  EXPECT_EQ(e.launch_calls_in, 4u);
  EXPECT_EQ(e.launch_calls_out, 2u);
}

TEST(TracedWindowsTest, LaunchCallsSeenEverywhereAreTheRecordedCount) {
  TracedWindows tw;
  tw.AddWindow({1'000'000, 2'000'000});
  for (int k = 0; k < 100; ++k) tw.AddLaunchCall(k * 100'000, 1000);
  for (int k = 0; k < 10; ++k)
    tw.AddLaunchCall(k * 1'000'000 + 50'000, 1000, TracedWindows::SeenBy::kCallback);
  tw.AddTracedKernel(1'100'000, 500, true);
  // Attached: the callbacks' launches are seen everywhere too; nothing to estimate.
  EXPECT_EQ(tw.Finish(110, 1'000'000, /*callbacks_detached=*/false).launch_calls, 110u);
}

TEST(TracedWindowsTest, ClusterErrorBoundOfThreeWindows) {
  TracedWindows tw;
  // Window i: 10 launch calls whose kernels ran 1000, 2000 and 3000 ns (one kernel each).
  for (int i = 0; i < 3; ++i) {
    const int64_t a = 10'000'000 * (i + 1);
    tw.AddWindow({a, a + 1'000'000});
    for (int k = 0; k < 10; ++k) tw.AddTracedKernel(a + 1000 * k, 100 * (i + 1), true);
  }
  const TracedWindows::Estimate e = tw.Finish(/*launch_calls=*/300, /*steady_ns=*/100'000);
  EXPECT_EQ(e.windows, 3u);
  EXPECT_EQ(e.traced_launches, 30u);
  EXPECT_DOUBLE_EQ(e.scale, 10.0);
  // r = 6000 / 30 = 200 ns per call; residuals -1000, 0, 1000: SE(r) = sqrt(2e6 / 6) / 10
  // = 57.735; two of them x 300 calls / 100,000 ns = 34.64 points.
  ASSERT_TRUE(e.busy_error_points.has_value());
  EXPECT_NEAR(*e.busy_error_points, 100 * 2 * std::sqrt(2e6 / 6) / 10 * 300 / 100'000, 1e-9);
  EXPECT_EQ(e.error_windows, 3u);
}

TEST(TracedWindowsTest, KernelsCountInTheWindowTheirCallRanIn) {
  TracedWindows tw;
  tw.AddWindow({10'000'000, 0});
  tw.AddWindow({10'000'000, 20'000'000});
  tw.AddWindow({50'000'000, 60'000'000});
  tw.AddTracedKernel(5'000'000, 100, true);   // before any window: unattributed, still traced
  tw.AddTracedKernel(9'500'000, 100, true);   // within the edge slack of the first
  tw.AddTracedKernel(15'000'000, 100, true);  // first window
  tw.AddTracedKernel(15'000'000, 100, false);  // a second kernel of the same launch
  tw.AddTracedKernel(55'000'000, 100, true);  // second window
  const TracedWindows::Estimate e = tw.Finish(50, 1'000'000);
  EXPECT_EQ(e.traced_launches, 4u);
  EXPECT_EQ(e.unattributed_launches, 1u);
  EXPECT_DOUBLE_EQ(e.scale, 50.0 / 4);
  // Windows (n, K) = (2, 300) and (1, 100): r = 400 / 3; residuals 300 - 800/3 and 100 - 400/3.
  const double r = 400.0 / 3, a = 300 - 2 * r, b = 100 - r;
  ASSERT_TRUE(e.busy_error_points.has_value());
  EXPECT_NEAR(*e.busy_error_points, 100 * 2 * std::sqrt((a * a + b * b) / 2) / 1.5 * 50 / 1e6,
              1e-9);
}

TEST(TracedWindowsTest, LostCloseAndOverlapAndWindowLeftOpen) {
  TracedWindows tw;
  tw.AddWindow({100, 0});
  tw.AddWindow({500, 0});    // the close of [100, ...) was lost: it ended by 500
  tw.AddWindow({450, 520});  // overlaps: ignored
  tw.CloseOpenWindow(700);   // the app died with [500, ...) open
  const TracedWindows::Estimate e = tw.Finish(0, 0);
  EXPECT_EQ(e.windows, 2u);
  EXPECT_EQ(e.traced_ns, 400 + 200);
  EXPECT_EQ(e.bad_windows, 1u);
  EXPECT_DOUBLE_EQ(e.scale, 1.0);  // nothing traced: nothing to scale
  EXPECT_FALSE(e.busy_error_points.has_value());
}

// Runs a loop through the analysis: a launch call of 1 us every `period` ns for 100 ms, each
// kernel `kernel` ns long, queued behind the previous one; traced in 2 ms windows, one every
// 10 ms (20 %). Returns the sampled report and the true busy share of the steady state.
struct LoopResult {
  Report report;
  double true_busy_pct = 0;
};
LoopResult RunLoop(int64_t period, int64_t kernel, bool sampled) {
  using testing::Host;
  using testing::Kernel;
  using testing::Runtime;
  AnalysisOptions o;
  o.reorder_window_ns = int64_t{1} << 50;
  Analysis a(o);
  RunInfo info = testing::MakeRun(1, 0);
  info.device_sample_permille = sampled ? 200 : 1000;
  a.SetRunInfo(info);
  const int64_t kRun = 100'000'000, kWindow = 2'000'000, kEvery = 10'000'000;
  if (sampled) {
    for (int64_t w = 0; w < kRun; w += kEvery) a.OnTracingWindow({w, w + kWindow});
  }
  int64_t device_free = 0, last_end = 0, busy = 0;
  uint32_t corr = 1;
  for (int64_t t = 1'000; t + period <= kRun; t += period, ++corr) {
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t, t + 1'000));
    const int64_t start = std::max(device_free, t + 1'000);
    device_free = start + kernel;
    last_end = device_free;
    busy += kernel;
    const bool traced = !sampled || t % kEvery < kWindow;
    if (traced) {
      a.OnApiActivity(Runtime(testing::kRuntimeLaunchCbid, corr, t + 100, t + 900));
      a.OnDeviceOp(Kernel("k", corr, start, device_free));
    }
  }
  info.end_ns = last_end + 1'000;
  a.SetRunInfo(info);
  LoopResult r;
  r.report = a.Finish({});
  r.true_busy_pct = 100.0 * static_cast<double>(busy) / static_cast<double>(last_end - 1'000);
  return r;
}

double BusyPct(const Report& r) {
  const DeviceBreakdown& d = r.devices.at(0);
  const int64_t steady =
      d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns;
  return 100.0 * static_cast<double>(d.busy_ns) / static_cast<double>(steady);
}

// A device far behind its host: a launch every 2 us, kernels of 3 us. Each window's kernels run
// long after it closed; the estimate still finds the device busy throughout.
TEST(TracedWindowsTest, DeviceFarBehindItsHostIsEstimatedFromItsLaunches) {
  const LoopResult full = RunLoop(2'000, 3'000, false);
  const LoopResult sampled = RunLoop(2'000, 3'000, true);
  ASSERT_TRUE(sampled.report.device_sampling.has_value());
  EXPECT_FALSE(full.report.device_sampling.has_value());
  EXPECT_NEAR(BusyPct(full.report), sampled.true_busy_pct, 1);
  EXPECT_NEAR(BusyPct(sampled.report), sampled.true_busy_pct, 2);
  EXPECT_NEAR(sampled.report.device_sampling->scale, 5.0, 0.01);
  EXPECT_EQ(sampled.report.kernels.launch_calls, full.report.kernels.launch_calls);
  EXPECT_TRUE(sampled.report.kernels.estimated);
  EXPECT_NEAR(static_cast<double>(sampled.report.kernels.device_ns),
              static_cast<double>(full.report.kernels.device_ns),
              0.01 * static_cast<double>(full.report.kernels.device_ns));
  EXPECT_FALSE(sampled.report.timeline.has_value());  // an estimate has no time series
  EXPECT_TRUE(full.report.timeline.has_value());
}

// A launch-bound loop: a launch every 10 us, kernels of 4 us: busy 40 %.
TEST(TracedWindowsTest, LaunchBoundLoopKeepsItsBusyShare) {
  const LoopResult sampled = RunLoop(10'000, 4'000, true);
  EXPECT_NEAR(BusyPct(sampled.report), 40, 1);
  ASSERT_TRUE(sampled.report.device_sampling->busy_error_points.has_value());
  EXPECT_LT(*sampled.report.device_sampling->busy_error_points, 0.5);  // identical windows
  EXPECT_EQ(sampled.report.device_sampling->windows, 10u);
  const DeviceBreakdown& d = sampled.report.devices.at(0);
  EXPECT_EQ(Sum(d), d.wall_ns);
}

// brrr's cost, measured in the run: launch calls inside windows take 3 us, outside 2 us (an A/B
// of 1 us per traced call), the shim timed its record path at 20 ns. `inside` gets the number of
// calls inside the windows; those in the 2 ms after each take `after_ns` (`after` gets how many).
Report RunInsideOutsideAb(RunInfo info, uint64_t* inside, int64_t after_ns = 2'000,
                          uint64_t* after = nullptr, uint32_t sample_permille = 200) {
  using testing::Host;
  Analysis a;
  info.device_sample_permille = sample_permille;
  info.hook_record_ns = 20;
  info.host_records = 10'000;
  a.SetRunInfo(info);
  for (int64_t w = 0; w < 100'000'000; w += 10'000'000) a.OnTracingWindow({w, w + 2'000'000});
  *inside = 0;
  uint64_t calls_after = 0;
  for (int64_t t = 10'000; t < 100'000'000; t += 10'000) {
    const bool in = t % 10'000'000 < 2'000'000;
    const bool just_after = !in && t % 10'000'000 < 4'000'000;
    *inside += in ? 1 : 0;
    calls_after += just_after ? 1 : 0;
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t,
                      t + (in           ? 3'000
                           : just_after ? after_ns
                                        : 2'000)));
  }
  if (after != nullptr) *after = calls_after;
  return a.Finish({});
}

TEST(TracedWindowsTest, OverheadFromTheInsideOutsideAbAndTheMeasuredRecordCost) {
  uint64_t inside = 0;
  const Report r = RunInsideOutsideAb(testing::MakeRun(1, 100'000'001), &inside);
  ASSERT_TRUE(r.overhead.has_value());
  EXPECT_EQ(r.overhead->hooks_ns, 10'000 * 20);
  ASSERT_TRUE(r.overhead->device_tracing_ns.has_value()) << r.overhead->basis;
  // Medians within the histogram's 1 %: about 1,000 ns per call inside.
  EXPECT_NEAR(static_cast<double>(*r.overhead->device_tracing_ns),
              1'000.0 * static_cast<double>(inside), 40.0 * static_cast<double>(inside));
  EXPECT_NEAR(r.overhead->pct_of_wall,
              100.0 * (200'000.0 + 1'000.0 * static_cast<double>(inside)) / 100'000'000, 0.05);
  EXPECT_NE(r.overhead->basis.find("inside the traced windows"), std::string::npos);
  EXPECT_EQ(r.overhead->basis.find("detaching CUPTI took"), std::string::npos);
}

// With CUPTI detached between the windows, what the detaches and attaches took (timed by the
// shim) is device tracing's cost too: the A/B of the calls does not see it.
TEST(TracedWindowsTest, OverheadAddsTheTimedDetachesAndAttaches) {
  RunInfo info = testing::MakeRun(1, 100'000'001);
  info.cupti_detaches = 3;
  info.cupti_detach_ns = 6'000'000;
  info.cupti_attach_ns = 9'000'000;
  uint64_t inside = 0;
  const Report r = RunInsideOutsideAb(info, &inside);
  ASSERT_TRUE(r.overhead.has_value());
  ASSERT_TRUE(r.overhead->device_tracing_ns.has_value()) << r.overhead->basis;
  EXPECT_NEAR(static_cast<double>(*r.overhead->device_tracing_ns),
              15'000'000.0 + 1'000.0 * static_cast<double>(inside),
              40.0 * static_cast<double>(inside));
  EXPECT_NEAR(
      r.overhead->pct_of_wall,
      100.0 * (200'000.0 + 15'000'000.0 + 1'000.0 * static_cast<double>(inside)) / 100'000'000,
      0.05);
  EXPECT_NE(r.overhead->basis.find("detaching CUPTI took 6.00 ms on the app's threads and "
                                   "attaching it again 9.00 ms"),
            std::string::npos)
      << r.overhead->basis;
}

// A budget the run did not meet says why. Here the share was steered down to its floor (0.5 %),
// and each of the 10 windows of 2 ms still cost 1.5 ms of detaching and attaching CUPTI whatever
// it traced: longer windows would spread that. Not at the floor, the steering had not settled.
TEST(TracedWindowsTest, ABudgetNotMetAtTheFloorOfTheShareNamesEachWindowsOwnCost) {
  RunInfo info = testing::MakeRun(1, 100'000'001);
  info.cupti_detaches = 10;
  info.cupti_detach_ns = 5'000'000;
  info.cupti_attach_ns = 10'000'000;
  info.device_budget_permille = 10;
  info.device_window_ms = 2;
  uint64_t inside = 0;
  const Report floor = RunInsideOutsideAb(info, &inside, 2'000, nullptr, /*sample_permille=*/5);
  ASSERT_TRUE(floor.overhead.has_value());
  EXPECT_GT(floor.overhead->pct_of_wall, 1.0);
  EXPECT_NE(floor.overhead->basis.find(
                "not met: the traced share fell to its floor (0.5%) and each window still cost "
                "1.50 ms whatever it traced (turning kernel records on, detaching and attaching "
                "CUPTI) against its 2 ms: longer windows (BRRR_SAMPLE_WINDOW_MS)"),
            std::string::npos)
      << floor.overhead->basis;
  const Report steering = RunInsideOutsideAb(info, &inside, 2'000, nullptr, 50);
  ASSERT_TRUE(steering.overhead.has_value());
  EXPECT_NE(steering.overhead->basis.find("not met: the run was too short for the steering"),
            std::string::npos)
      << steering.overhead->basis;
  info.device_budget_permille = 1;  // 0.1 %: the hooks' 20 ns x 10,000 records are 0.2 % of it
  const Report hooks = RunInsideOutsideAb(info, &inside, 2'000, nullptr, 5);
  ASSERT_TRUE(hooks.overhead.has_value());
  EXPECT_NE(hooks.overhead->basis.find("not met: the hooks alone cost more"), std::string::npos)
      << hooks.overhead->basis;
}

// The device's lag at a window's end: its last launch call's kernel started that long after the
// call entered (5, 3 and 8 ms here; an earlier call's kernel, later still, does not count). The
// least of them is kept, from three windows on. Windows after one that named a detach are counted
// as attached again.
TEST(TracedWindowsTest, TheLeastLagAtAWindowsEndIsKeptFromThreeWindowsOn) {
  const auto run = [](int windows) {
    TracedWindows tw;
    tw.Enable();
    const int64_t lags[] = {5'000'000, 3'000'000, 8'000'000};
    for (int w = 0; w < windows; ++w) {
      const int64_t start = (w * 10 + 1) * 1'000'000;
      TracingWindowEvent window{start, start + 1'000'000};
      window.detach_at_ns = start + 1'500'000;
      tw.AddWindow(window);
      tw.AddTracedKernel(start + 100'000, 500, true, start + 100'000 + 20'000'000);
      tw.AddTracedKernel(start + 900'000, 500, true, start + 900'000 + lags[w]);
    }
    return tw.Finish(100, 30'000'000, /*callbacks_detached=*/true);
  };
  const TracedWindows::Estimate three = run(3);
  EXPECT_EQ(three.lag_windows, 3u);
  EXPECT_EQ(three.device_lag_min_ns, 3'000'000);
  EXPECT_EQ(three.windows_attached_before, 2u);
  const TracedWindows::Estimate two = run(2);
  EXPECT_EQ(two.lag_windows, 2u);
  EXPECT_FALSE(two.device_lag_min_ns.has_value());
}

// Ten windows of 2 ms every 10 ms, each naming a detach 0.5 ms after its end; a launch call every
// 10 us: 3 us inside, 2.6 us after, 2 us outside; each window's last launch's kernel starts `lag`
// after the call entered.
TracedWindows DetachingWindowsBehindBy(int64_t lag) {
  TracedWindows tw;
  tw.Enable();
  for (int64_t w = 0; w < 100'000'000; w += 10'000'000) {
    TracingWindowEvent window{w + 10'000, w + 2'010'000};
    window.detach_at_ns = w + 2'510'000;
    tw.AddWindow(window);
  }
  for (int64_t t = 0; t < 100'000'000; t += 10'000) {
    const int64_t phase = t % 10'000'000;
    const bool in = phase >= 10'000 && phase < 2'010'000;
    const bool after = phase >= 2'010'000 && phase < 2'510'000;
    tw.AddLaunchCall(t, in ? 3'000 : after ? 2'600 : 2'000);
    if (phase == 2'000'000) tw.AddTracedKernel(t, 500, true, t + lag);  // its last launch
  }
  return tw;
}

// A budget steers by the cost per traced launch during the run: where the device was at least
// kBackloggedLagNs behind at every window's end so far, the calls' 1 us inside is hidden, and the
// 0.6 us of those after the windows too where the detaches took as long on average (the 10
// detaches, 30 ms or 5 ms in all, are then hidden too: 4 ms of each at most). With the least lag at
// 0.5 ms both count: 1 us + 0.6 us x 500 / 2,000 calls, and 25 ms of the 30 ms of detaches over the
// 2,000 calls inside.
TEST(TracedWindowsTest, ABudgetSteersByWhatTheDeviceQueueLeftOfTheCost) {
  const TracedWindows backlogged = DetachingWindowsBehindBy(4'000'000);
  ASSERT_EQ(backlogged.LeastLagNs(), 4'000'000);
  EXPECT_NEAR(backlogged.CostPerTracedLaunchNs({10, 30'000'000, 0}).value_or(-1), 0, 1);
  EXPECT_NEAR(backlogged.CostPerTracedLaunchNs({10, 5'000'000, 0}).value_or(-1), 600 * 500 / 2000.0,
              20);
  const TracedWindows caught_up = DetachingWindowsBehindBy(500'000);
  EXPECT_NEAR(caught_up.CostPerTracedLaunchNs({10, 30'000'000, 0}).value_or(-1),
              1'000 + 600 * 500 / 2000.0 + 25e6 / 2000, 30);
}

// Each window brings its own detach and attach, so a budget prices them per traced launch call
// as it prices the calls: 10 detaches of 3 ms and, for the 9 windows after one that named a detach,
// 9 attaches of 5 ms; with the device caught up at the windows' ends (least lag 10 us) all but
// 10 x 10 us + 9 x 10 us of that 75 ms counts, over the 2,000 calls inside. An 11th detach that no
// close record named (the shim's first, before the first window) brings the first window's attach:
// 10 attaches, the same 45 ms, 10 us more hidden.
TEST(TracedWindowsTest, ABudgetCountsTheDetachesAndAttachesPerTracedLaunch) {
  const TracedWindows tw = DetachingWindowsBehindBy(10'000);
  EXPECT_EQ(tw.WindowsAttachedBefore(), 9u);
  const double without = tw.CostPerTracedLaunchNs({10, 0, 0}).value_or(-1);
  EXPECT_NEAR(without, 1'000 + 600 * 500 / 2000.0, 30);
  EXPECT_NEAR(tw.CostPerTracedLaunchNs({10, 30'000'000, 45'000'000}).value_or(-1),
              without + (75e6 - 190'000) / 2000, 1);
  EXPECT_NEAR(tw.CostPerTracedLaunchNs({11, 30'000'000, 45'000'000}).value_or(-1),
              without + (75e6 - 210'000) / 2000, 1);
  // The same 10 detaches and 9 attaches as the final estimate counts them.
  const TracedWindows::SwitchCost cost =
      TracedWindows::CostOfSwitches({10, 30'000'000, 45'000'000}, 9, 10'000);
  EXPECT_EQ(cost.hidden, 190'000);
  EXPECT_EQ(cost.counted, 75'000'000 - 190'000);
  EXPECT_EQ(TracedWindows::CostOfSwitches({10, 30'000'000, 45'000'000}, 9, std::nullopt).counted,
            75'000'000);
}

// Detaches and attaches wait for the device's queued work. With the device at least 4 ms behind at
// every window's end (the last launch of each window started 4-6 ms after it entered), up to 4 ms
// of each of the 10 detaches (3 ms each: all) and 9 attaches (5 ms each: 4 of them) is hidden:
// 30 + 36 ms, and 9 ms counted. The host stayed ahead of its device through every window, so the
// 1 us that tracing added to each launch call inside is hidden too, and so are the 0.6 us of the
// calls in the 0.5 ms after each window (the detaches that ended those spans waited 3 ms each for
// the queue). With the least lag at 0.5 ms (under kBackloggedLagNs): 5 + 4.5 ms hidden, 65.5 ms
// counted, and the calls' 1 us and 0.6 us.
TEST(TracedWindowsTest, OverheadLeavesOutWhatTheDeviceQueueHidOfTheDetachesAndAttaches) {
  const auto run = [](int64_t least_lag, uint32_t detaches = 10) {
    using testing::Host;
    Analysis a;
    RunInfo info = testing::MakeRun(1, 100'000'001);
    info.device_sample_permille = 200;
    info.hook_record_ns = 20;
    info.host_records = 10'000;
    info.cupti_detaches = detaches;
    info.cupti_detach_ns = 30'000'000;
    info.cupti_attach_ns = 45'000'000;
    a.SetRunInfo(info);
    for (int64_t w = 0; w < 100'000'000; w += 10'000'000) {
      TracingWindowEvent window{w, w + 2'000'000};
      window.detach_at_ns = w + 2'500'000;
      a.OnTracingWindow(window);
    }
    uint32_t corr = 1;
    for (int64_t t = 10'000; t < 100'000'000; t += 10'000) {
      const bool in = t % 10'000'000 < 2'000'000;
      const bool after = !in && t % 10'000'000 < 2'500'000;
      a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t,
                        t + (in      ? 3'000
                             : after ? 2'600
                                     : 2'000)));
      if (in && t % 10'000'000 == 1'990'000) {  // each window's last launch, with its kernel
        const int64_t lag = t / 10'000'000 == 3 ? least_lag : 4'000'000 + t / 10'000'000 * 200'000;
        a.OnApiActivity(testing::Runtime(testing::kRuntimeLaunchCbid, corr, t + 100, t + 2'900));
        a.OnDeviceOp(testing::Kernel("k", corr, t + lag, t + lag + 1'000));
        ++corr;
      }
    }
    return a.Finish({});
  };
  constexpr double kInside = 10 * 200;  // launch calls inside the windows, 1 us more than outside
  constexpr double kAfter = 10 * 50;    // and after them, 0.6 us more
  const Report r = run(4'000'000);
  ASSERT_TRUE(r.overhead.has_value());
  ASSERT_TRUE(r.overhead->device_tracing_ns.has_value()) << r.overhead->basis;
  EXPECT_EQ(*r.overhead->device_tracing_ns, 9'000'000) << r.overhead->basis;
  ASSERT_TRUE(r.overhead->hidden_by_device_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*r.overhead->hidden_by_device_ns),
              66e6 + 1'000 * kInside + 600 * kAfter, 40 * (kInside + kAfter))
      << r.overhead->basis;
  EXPECT_NE(r.overhead->basis.find("the device was at least 4.00 ms behind its host at the end of "
                                   "every one of 10 windows"),
            std::string::npos)
      << r.overhead->basis;
  EXPECT_NE(r.overhead->basis.find("so the host stayed ahead of it through each"),
            std::string::npos)
      << r.overhead->basis;
  EXPECT_NE(r.overhead->basis.find("the detaches that ended those spans waited 3.00 ms on average"),
            std::string::npos)
      << r.overhead->basis;
  const Report low = run(500'000);
  ASSERT_TRUE(low.overhead.has_value());
  ASSERT_TRUE(low.overhead->device_tracing_ns.has_value()) << low.overhead->basis;
  EXPECT_EQ(low.overhead->hidden_by_device_ns, 9'500'000) << low.overhead->basis;
  EXPECT_NEAR(static_cast<double>(*low.overhead->device_tracing_ns),
              65.5e6 + 1'000 * kInside + 600 * kAfter, 40 * (kInside + kAfter))
      << low.overhead->basis;
  EXPECT_EQ(low.overhead->basis.find("stayed ahead"), std::string::npos) << low.overhead->basis;
  // An 11th detach, which no close record named: the shim's first, before the first window, which
  // was attached again too. 10 attaches: 4 ms more of the 45 ms hidden (the 30 ms of detaches
  // were).
  const Report first = run(4'000'000, 11);
  ASSERT_TRUE(first.overhead.has_value());
  ASSERT_TRUE(first.overhead->hidden_by_device_ns.has_value());
  EXPECT_EQ(*first.overhead->hidden_by_device_ns - *r.overhead->hidden_by_device_ns, 4'000'000)
      << first.overhead->basis;
  EXPECT_NE(first.overhead->basis.find("of the 11 detaches and 10 attaches"), std::string::npos)
      << first.overhead->basis;
}

// Detached between windows, CUPTI stays subscribed for a window's length after each: calls then
// take 2.6 us against 2 us outside, and that is device tracing's cost too. Not detached, the span
// is not told apart (its calls are outside ones: the A/B cannot see what CUPTI costs there, and
// they raise the outside mean the calls inside are compared with).
TEST(TracedWindowsTest, OverheadAddsTheSpanAfterEachWindowWhereCuptiWaitsToDetach) {
  RunInfo info = testing::MakeRun(1, 100'000'001);
  info.device_window_ms = 2;
  info.cupti_detaches = 9;
  uint64_t inside = 0, after = 0;
  const Report r = RunInsideOutsideAb(info, &inside, 2'600, &after);
  ASSERT_TRUE(r.overhead.has_value());
  ASSERT_TRUE(r.overhead->device_tracing_ns.has_value()) << r.overhead->basis;
  EXPECT_EQ(after, 2'000u);  // 200 calls after each of the 10 windows
  EXPECT_NEAR(static_cast<double>(*r.overhead->device_tracing_ns),
              1'000.0 * static_cast<double>(inside) + 600.0 * static_cast<double>(after),
              40.0 * static_cast<double>(inside + after));
  EXPECT_NE(r.overhead->basis.find("in the 2 ms after each window, while CUPTI waited to detach, "
                                   "a launch call took 2"),
            std::string::npos)
      << r.overhead->basis;
  info.cupti_detaches = 0;
  const Report attached = RunInsideOutsideAb(info, &inside, 2'600, &after);
  const double out = 9'999.0 - static_cast<double>(inside + after);  // at 2 us
  const double mean_out = (out * 2'000 + static_cast<double>(after) * 2'600) /
                          (out + static_cast<double>(after));
  EXPECT_NEAR(static_cast<double>(*attached.overhead->device_tracing_ns),
              (3'000.0 - mean_out) * static_cast<double>(inside), static_cast<double>(inside));
  EXPECT_EQ(attached.overhead->basis.find("waited to detach"), std::string::npos);
}

// The traced share is of the time since the schedule started (the first CUDA call), not of the
// interpreter's start-up before it; a start outside the run is damage and the run's start stands in.
TEST(TracedWindowsTest, TheSpanRunsFromTheScheduleStartToTheRunsEnd) {
  for (const auto& [start, span] : std::vector<std::pair<uint64_t, int64_t>>{
           {40'000'001, 60'000'000}, {0, 100'000'000}, {500'000'000, 100'000'000}}) {
    Analysis a;
    RunInfo info = testing::MakeRun(1, 100'000'001);
    info.device_sample_permille = 100;
    info.device_sampling_start_ns = start;
    a.SetRunInfo(info);
    a.OnTracingWindow({50'000'000, 55'000'000});
    const Report r = a.Finish({});
    ASSERT_TRUE(r.device_sampling.has_value());
    EXPECT_EQ(r.device_sampling->span_ns, span) << start;
  }
}

TEST(TracedWindowsTest, OverheadUnknownUnderFullTracingAndNoneHostOnly) {
  Analysis full;
  RunInfo info = testing::MakeRun(1, 1'000'000);
  info.hook_record_ns = 25;
  info.host_records = 4;
  full.SetRunInfo(info);
  const Report f = full.Finish({});
  ASSERT_TRUE(f.overhead.has_value());
  EXPECT_FALSE(f.overhead->device_tracing_ns.has_value());
  EXPECT_EQ(f.overhead->hooks_ns, 100);
  EXPECT_NE(f.overhead->basis.find("unknown under full tracing"), std::string::npos);
  Analysis host_only;
  host_only.SetRunInfo(testing::MakeRun(1, 1'000'000, /*host_only=*/true));
  const Report h = host_only.Finish({});
  EXPECT_EQ(h.overhead->device_tracing_ns, 0);
  EXPECT_FALSE(h.overhead->hooks_ns.has_value());  // the shim measured nothing
}

}  // namespace
}  // namespace brrr
