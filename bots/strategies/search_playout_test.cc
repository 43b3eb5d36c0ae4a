#include "bots/strategies/search_playout.h"

#include <limits>

#include "bots/strategies/strategy_testing.h"
#include "engine/random.h"
#include "gtest/gtest.h"

namespace trix::bots::search {
namespace {

using engine::Bit;
using engine::Card;
using engine::CardSet;
using engine::Contract;
using engine::Deal;
using engine::Scores;

int CardsLeft(const Deal& d) {
  return engine::Count(d.hands()[0] | d.hands()[1] | d.hands()[2] | d.hands()[3]);
}

// A random deal played by the policy until `left` cards are in the hands.
Deal Endgame(const engine::Rules& rules, Contract contract, uint64_t seed, int left) {
  engine::Hands doubled{};
  const engine::Hands hands = engine::ShuffledHands(seed, 0);
  const bool partner = rules.variant.team == engine::Team::kPartner;
  Deal d(rules, contract, static_cast<int>(seed % 4), hands, doubled);
  while (!d.over() && CardsLeft(d) > left) d.Play(PolicyCard(d, partner));
  return d;
}

Scores Minus(const Scores& a, const Scores& b) {
  Scores r;
  for (int i = 0; i < 4; ++i) r[i] = a[i] - b[i];
  return r;
}

// Plain max^n without memo, trying the cards in the solver's order (the policy's
// card first, then the rest from the lowest), so that ties break alike.
Scores BruteTrix(const Deal& d, bool partner) {
  if (d.over()) return d.scores();
  const int me = d.to_play();
  const Card first = PolicyCard(d, partner);
  Scores best{};
  int32_t best_value = std::numeric_limits<int32_t>::min();
  CardSet order[2] = {Bit(first), d.LegalCards() & ~Bit(first)};
  for (CardSet b : order) {
    while (b) {
      Deal next = d;
      next.Play(engine::PopLowest(b));
      const Scores v = BruteTrix(next, partner);
      if (SeatValue(v, me, partner) > best_value) {
        best_value = SeatValue(v, me, partner);
        best = v;
      }
    }
  }
  return best;
}

TEST(TrixSolverTest, MatchesBruteForceOnSmallPositions) {
  TrixSolver solver;
  int solved = 0;
  for (bool partner : {false, true}) {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      const Deal d = Endgame(RulesFor(partner, false), Contract::kTrix, seed, 14);
      if (d.over()) continue;
      solver.NewHands();
      const Scores exact = solver.Solve(d, partner, std::numeric_limits<int64_t>::max());
      EXPECT_EQ(exact, Minus(BruteTrix(d, partner), d.scores())) << "seed " << seed;
      ++solved;
    }
  }
  EXPECT_GT(solved, 60);
}

TEST(TrixSolverTest, OutOfBudgetStillFinishesTheDeal) {
  TrixSolver solver;
  const Deal d = Endgame(RulesFor(false, false), Contract::kTrix, 3, 52);
  const Scores s = solver.Solve(d, false, 100);
  EXPECT_EQ(s[0] + s[1] + s[2] + s[3], 500);
}

// Team 0's final points by plain minimax over every legal card.
int32_t BruteTeam(const Deal& d) {
  if (d.over()) return d.scores()[0] + d.scores()[2];
  const bool maximize = engine::TeamOf(d.to_play()) == 0;
  int32_t best = maximize ? std::numeric_limits<int32_t>::min()
                          : std::numeric_limits<int32_t>::max();
  for (CardSet b = d.LegalCards(); b;) {
    Deal next = d;
    next.Play(engine::PopLowest(b));
    const int32_t v = BruteTeam(next);
    best = maximize ? std::max(best, v) : std::min(best, v);
  }
  return best;
}

// Plain max^n over every legal card, from the lowest.
Scores BruteSolo(const Deal& d) {
  if (d.over()) return d.scores();
  Scores best{};
  int32_t best_value = std::numeric_limits<int32_t>::min();
  for (CardSet b = d.LegalCards(); b;) {
    Deal next = d;
    next.Play(engine::PopLowest(b));
    const Scores v = BruteSolo(next);
    if (v[d.to_play()] > best_value) {
      best_value = v[d.to_play()];
      best = v;
    }
  }
  return best;
}

TEST(SolveTricksTest, MatchesBruteForceForTeams) {
  for (Contract contract : {Contract::kComplex, Contract::kQueens, Contract::kTricks}) {
    for (uint64_t seed = 1; seed <= 15; ++seed) {
      const bool complex = contract == Contract::kComplex;
      const Deal d = Endgame(RulesFor(true, complex), contract, seed, 10);
      if (d.over()) continue;
      const Scores s = SolveTricks(d, true);
      EXPECT_EQ(SeatValue(s, 0, true), BruteTeam(d) - (d.scores()[0] + d.scores()[2]))
          << engine::ContractName(contract) << " seed " << seed;
    }
  }
}

TEST(SolveTricksTest, MatchesBruteForceForSoloSeats) {
  for (Contract contract : {Contract::kComplex, Contract::kKingOfHearts}) {
    for (uint64_t seed = 1; seed <= 15; ++seed) {
      const bool complex = contract == Contract::kComplex;
      const Deal d = Endgame(RulesFor(false, complex), contract, seed, 9);
      if (d.over()) continue;
      EXPECT_EQ(SolveTricks(d, false), Minus(BruteSolo(d), d.scores()))
          << engine::ContractName(contract) << " seed " << seed;
    }
  }
}

TEST(PlayoutTest, PlaysOnlyLegalCardsToTheEnd) {
  for (Contract contract :
       {Contract::kKingOfHearts, Contract::kQueens, Contract::kDiamonds,
        Contract::kTricks, Contract::kTrix, Contract::kComplex}) {
    for (bool partner : {false, true}) {
      for (uint64_t seed = 1; seed <= 50; ++seed) {
        Deal d = Endgame(RulesFor(partner, contract == Contract::kComplex), contract,
                         seed, 52);
        while (!d.over()) {
          const Card c = PolicyCard(d, partner);
          ASSERT_TRUE(d.TryPlay(c).ok()) << engine::CardName(c);
        }
      }
    }
  }
}

}  // namespace
}  // namespace trix::bots::search
