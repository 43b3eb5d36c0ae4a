#include "bots/strategies/search_belief.h"

#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/heuristic_bot.h"
#include "bots/strategies/random_bot.h"
#include "bots/strategies/strategy_testing.h"
#include "gtest/gtest.h"
#include "proto/wire/wire.h"

namespace trix::bots::search {
namespace {

using engine::CardSet;
using engine::Count;
using engine::Hands;

Belief OpenBelief(int viewer, CardSet known) {
  Belief b;
  b.viewer = viewer;
  b.known = known;
  b.unseen = engine::kAllCards & ~known;
  for (int s = 0; s < 4; ++s) b.need[s] = s == viewer ? 0 : Count(known);
  return b;
}

TEST(SampleHandsTest, DealsEveryHiddenCardToEverySeatSometimes) {
  const CardSet mine = Cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC");
  const Belief b = OpenBelief(0, mine);
  engine::Rng rng(5);
  Hands seen{};
  for (int i = 0; i < 500; ++i) {
    Hands h;
    ASSERT_TRUE(SampleHands(b, rng, &h));
    ASSERT_TRUE(Consistent(b, h));
    for (int s = 0; s < 4; ++s) seen[s] |= h[s];
  }
  for (int s = 1; s < 4; ++s) EXPECT_EQ(seen[s], b.unseen) << "seat " << s;
}

TEST(SampleHandsTest, MeetsTightConstraints) {
  // Seat 1 is void in spades and hearts, seat 2 holds QS and KH (doubled), seat 3
  // passed with every diamond playable: the only deals left are narrow ones.
  const CardSet mine = Cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC");
  Belief b = OpenBelief(0, mine);
  b.cannot[1] = engine::SuitCards(engine::kSpades) | engine::kHeartsCards;
  b.must[2] = Cards("QS KH");
  b.cannot[3] = engine::kDiamondsCards;
  engine::Rng rng(9);
  for (int i = 0; i < 1000; ++i) {
    Hands h;
    ASSERT_TRUE(SampleHands(b, rng, &h));
    ASSERT_TRUE(Consistent(b, h)) << engine::CardsText(h[1]);
    // Seat 1 can only hold diamonds, so it holds all 13; seat 3 cannot hold one.
    EXPECT_EQ(h[1], engine::kDiamondsCards);
  }
}

TEST(SampleHandsTest, SaysSoWhenNoDealFits) {
  Belief b = OpenBelief(0, Cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"));
  b.cannot[1] = b.cannot[2] = engine::SuitCards(engine::kSpades);
  b.cannot[3] = engine::Bit(engine::MakeCard(engine::kSpades, engine::kAce));
  engine::Rng rng(1);
  Hands h;
  EXPECT_FALSE(SampleHands(b, rng, &h));
}

// Wraps a strategy and, at each of its decisions, checks the belief against the
// real hands (everything the seat learned is true) and the samples against the
// belief, and that each sample rebuilds the deal as it stands.
class CheckingBot : public Bot {
 public:
  CheckingBot(Bot* inner, const LocalTable* table) : inner_(inner), table_(table) {}
  void Restart(const SeatState& s) override {
    history_.Reset();
    if (s.played) history_.Lost();
  }
  void Observe(const v1::Event& e, const SeatState& s) override {
    if (e.kind_case() == v1::Event::kDealStarted) history_.Reset();
    if (e.kind_case() == v1::Event::kCardPlayed) {
      history_.CardPlayed(e.card_played().seat(),
                          wire::CardFromProto(e.card_played().card()).value(), s);
    }
    if (e.kind_case() == v1::Event::kPassed) history_.Passed(e.passed().seat(), s);
  }
  Decision Decide(const SeatState& s) override {
    if (s.options.phase == engine::Phase::kPlaying) Check(s);
    return inner_->Decide(s);
  }
  int checks = 0;

 private:
  void Check(const SeatState& s) {
    const engine::Deal& real = table_->table().game().deal();
    const Belief b = history_.BeliefFor(s);
    ASSERT_TRUE(Consistent(b, real.hands()))
        << DescribeState(s) << " real hands contradict the belief";
    for (int i = 0; i < 8; ++i) {
      Hands h;
      ASSERT_TRUE(SampleHands(b, rng_, &h)) << DescribeState(s);
      ASSERT_TRUE(Consistent(b, h)) << DescribeState(s);
      engine::Deal rebuilt;
      ASSERT_TRUE(history_.Rebuild(s, h, &rebuilt)) << DescribeState(s);
      EXPECT_EQ(rebuilt.to_play(), s.seat);
      EXPECT_EQ(rebuilt.LegalCards(), s.options.legal) << DescribeState(s);
      EXPECT_EQ(rebuilt.layout(), real.layout());
      EXPECT_EQ(rebuilt.scores(), real.scores());
      for (int seat = 0; seat < 4; ++seat) {
        EXPECT_EQ(rebuilt.trick_card(seat), real.trick_card(seat));
      }
      ++checks;
    }
  }
  Bot* inner_;
  const LocalTable* table_;
  DealHistory history_;
  engine::Rng rng_{3};
};

class BeliefPropertyTest : public testing::TestWithParam<std::string> {};

TEST_P(BeliefPropertyTest, SamplesNeverContradictWhatWasSeen) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    LocalTable table(LocalTableOptions{.mode = GetParam(), .seed = seed, .kingdoms = 1});
    HeuristicBot h0, h2;
    RandomBot r1(seed), r3(seed + 10);
    CheckingBot b0(&h0, &table), b1(&r1, &table), b2(&h2, &table), b3(&r3, &table);
    ASSERT_TRUE(table.PlayToEnd({&b0, &b1, &b2, &b3}).ok());
    EXPECT_GT(b0.checks + b1.checks + b2.checks + b3.checks, 100);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, BeliefPropertyTest, testing::ValuesIn(kModes),
                         ModeTestName());

}  // namespace
}  // namespace trix::bots::search
