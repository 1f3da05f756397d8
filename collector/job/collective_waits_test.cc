// MatchCollectives and StragglerFromCollectives on hand-worked logs.
#include "collector/job/collective_waits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::job {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int64_t kMs = 1'000'000;

CollectiveLog Log(std::vector<int64_t> starts, int64_t duration = 1 * kMs,
                  int64_t unix_minus_monotonic = 0) {
  CollectiveLog log;
  log.count = starts.size();
  log.unix_minus_monotonic_ns = unix_minus_monotonic;
  CollectiveStream& s = log.streams.emplace_back();
  s.stream_id = 13;
  s.start_ns = starts;
  for (int64_t t : starts) s.end_ns.push_back(t + duration);
  return log;
}

CollectiveParticipant Rank(int64_t rank, const CollectiveLog* log, std::string host = "a") {
  CollectiveParticipant p;
  p.rank = rank;
  p.pid = static_cast<uint32_t>(1000 + rank);
  p.host = std::move(host);
  p.log = log;
  return p;
}

// Arrivals (ms): rank 0 at 100, 200, 300; rank 1 at 110, 260, 300; rank 2 at 150, 210, 390.
// Collective 0: last is rank 2 at 150: waits 50, 40, 0 (rank 2 cost the others 90).
// Collective 1: last is rank 1 at 260: waits 60, 0, 50 (rank 1 cost 110).
// Collective 2: last is rank 2 at 390: waits 90, 90, 0 (rank 2 cost 180 more: 270).
TEST(MatchCollectivesTest, WaitsAndLastArrivalsAsWorkedByHand) {
  const CollectiveLog l0 = Log({100 * kMs, 200 * kMs, 300 * kMs});
  const CollectiveLog l1 = Log({110 * kMs, 260 * kMs, 300 * kMs});
  const CollectiveLog l2 = Log({150 * kMs, 210 * kMs, 390 * kMs});
  const std::optional<JobCollectives> c =
      MatchCollectives({Rank(0, &l0), Rank(1, &l1), Rank(2, &l2)});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->count, 3u);
  EXPECT_EQ(c->processes, 3u);
  EXPECT_EQ(c->unmatched, 0u);
  EXPECT_EQ(c->alignment, "one host");
  ASSERT_EQ(c->waits.size(), 3u);
  EXPECT_EQ(c->waits[0].wait_ns, 200 * kMs);
  EXPECT_EQ(c->waits[1].wait_ns, 130 * kMs);
  EXPECT_EQ(c->waits[2].wait_ns, 50 * kMs);
  EXPECT_EQ(c->waits[0].last_arrivals, 0u);
  EXPECT_EQ(c->waits[1].last_arrivals, 1u);
  EXPECT_EQ(c->waits[2].last_arrivals, 2u);
  EXPECT_EQ(c->waits[1].caused_wait_ns, 110 * kMs);
  EXPECT_EQ(c->waits[2].caused_wait_ns, 270 * kMs);
  ASSERT_TRUE(c->last_arriver.has_value());
  EXPECT_EQ(c->last_arriver->rank, 2);
  EXPECT_DOUBLE_EQ(c->last_arriver->share, 2.0 / 3);

  const std::optional<Straggler> s = StragglerFromCollectives(*c);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 2);
  EXPECT_EQ(s->pid, 1002u);
  EXPECT_EQ(s->basis, "collectives");
  EXPECT_EQ(s->why,
            "rank 2 arrived last at 2 of 3 collectives (66.7%); the other ranks waited 270 ms "
            "for it in them");
}

TEST(MatchCollectivesTest, OnlyWhatEveryParticipantHasIsMatched) {
  CollectiveLog l0 = Log({10, 20, 30, 40});
  l0.streams.push_back({14, {50, 60}, {55, 65}});  // a second stream only rank 0 has
  const CollectiveLog l1 = Log({12, 21, 35});
  const std::optional<JobCollectives> c = MatchCollectives({Rank(0, &l0), Rank(1, &l1)});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->count, 3u);
  EXPECT_EQ(c->unmatched, 3u);  // rank 0's 4th on the first stream and both on the second
  EXPECT_EQ(c->waits[0].wait_ns, 2 + 1 + 5);
  EXPECT_EQ(c->waits[1].last_arrivals, 3u);
  // Three collectives, but 8 ns of waiting is no straggler.
  EXPECT_FALSE(StragglerFromCollectives(*c).has_value());
}

TEST(MatchCollectivesTest, NeedsTwoComparableParticipants) {
  const CollectiveLog l0 = Log({10, 20});
  const CollectiveLog empty;
  EXPECT_FALSE(MatchCollectives({Rank(0, &l0)}).has_value());
  EXPECT_FALSE(MatchCollectives({Rank(0, &l0), Rank(1, nullptr)}).has_value());
  EXPECT_FALSE(MatchCollectives({Rank(0, &l0), Rank(1, &empty)}).has_value());
  CollectiveParticipant sampled = Rank(1, &l0);
  sampled.sampled = true;  // its log holds only the traced windows' kernels
  EXPECT_FALSE(MatchCollectives({Rank(0, &l0), sampled}).has_value());
}

TEST(MatchCollectivesTest, EvenLastArrivalsNameNoOne) {
  const CollectiveLog l0 = Log({10 * kMs, 30 * kMs});
  const CollectiveLog l1 = Log({20 * kMs, 25 * kMs});
  const std::optional<JobCollectives> c = MatchCollectives({Rank(0, &l0), Rank(1, &l1)});
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->last_arriver.has_value());
  EXPECT_FALSE(StragglerFromCollectives(*c).has_value());
}

// Two hosts whose monotonic clocks and wall clocks disagree: host b's wall clock runs 2 s ahead
// of host a's. True arrivals: rank 0 (host a) at 1.000, 1.100, 1.200 s; rank 1 (host b) 3 ms
// later each time; both leave together 1 ms after rank 1 arrives.
TEST(MatchCollectivesTest, HostsAreAlignedOnTheCollectivesExits) {
  const int64_t s = 1'000 * kMs;
  const int64_t unix_a = 1'700'000'000 * s, unix_b = 1'700'000'000 * s + 2 * s;
  const int64_t mono_a = 50 * s, mono_b = 7'000 * s;  // boot times differ
  CollectiveLog a, b;
  a.count = b.count = 3;
  a.unix_minus_monotonic_ns = unix_a - mono_a;
  b.unix_minus_monotonic_ns = unix_b - mono_b;
  CollectiveStream& sa = a.streams.emplace_back();
  CollectiveStream& sb = b.streams.emplace_back();
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t arrive = s + k * 100 * kMs;  // seconds since some instant, true time
    const int64_t leave = arrive + 3 * kMs + 1 * kMs;
    sa.start_ns.push_back(mono_a + arrive);
    sa.end_ns.push_back(mono_a + leave);
    sb.start_ns.push_back(mono_b + arrive + 3 * kMs);
    sb.end_ns.push_back(mono_b + leave);
  }
  const std::optional<JobCollectives> c = MatchCollectives({Rank(0, &a, "a"), Rank(1, &b, "b")});
  ASSERT_TRUE(c.has_value());
  EXPECT_THAT(c->alignment, StartsWith("collective exits (2 hosts"));
  EXPECT_THAT(c->alignment, HasSubstr("2.00 s"));
  EXPECT_EQ(c->waits[0].wait_ns, 9 * kMs);
  EXPECT_EQ(c->waits[1].wait_ns, 0);
  ASSERT_TRUE(c->last_arriver.has_value());
  EXPECT_EQ(c->last_arriver->rank, 1);
  // Without the alignment host b's 2 s lead would make rank 1 arrive last by 2 s each time and
  // rank 0 wait 6 s: the figures above are the aligned ones.

  b.unix_minus_monotonic_ns = 0;  // host b's wall clock unknown: no comparison
  EXPECT_FALSE(MatchCollectives({Rank(0, &a, "a"), Rank(1, &b, "b")}).has_value());
}

}  // namespace
}  // namespace brrr::job
