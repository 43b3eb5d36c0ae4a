#include "bots/strategies/heuristic_bot.h"

#include <string>

#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/random_bot.h"
#include "bots/strategies/strategy_testing.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

using engine::Contract;

engine::Card Play(const SeatState& s) {
  HeuristicBot bot;
  const Decision d = bot.Decide(s);
  EXPECT_TRUE(IsAllowed(d, s.options)) << DescribeDecision(d);
  return d.card;
}

// --- Trick play ------------------------------------------------------------------

TEST(HeuristicPlayTest, DucksUnderTheWinningCardWithItsHighestLoser) {
  const SeatState s =
      PlayState(Contract::kTricks, "2S 9S KS 3C").Trick(3, {"TS"}).Build();
  EXPECT_EQ(Play(s), C("9S"));
}

TEST(HeuristicPlayTest, ShedsAQueenUnderAnOpponentsKing) {
  const SeatState s =
      PlayState(Contract::kQueens, "QS 4S 5H", 2).Trick(1, {"KS"}).Build();
  EXPECT_EQ(Play(s), C("QS"));
}

TEST(HeuristicPlayTest, DoesNotShedAQueenOntoItsPartner) {
  // Seat 2 (the partner) led the king, seat 3 followed low.
  const SeatState s =
      PlayState(Contract::kQueens, "QS 4S 5H").Partner().Trick(2, {"KS", "3S"}).Build();
  EXPECT_EQ(Play(s), C("4S"));
}

TEST(HeuristicPlayTest, VoidInTheLedSuitShedsTheKingOfHearts) {
  const SeatState s =
      PlayState(Contract::kKingOfHearts, "KH 2C 3D", 2).Trick(1, {"AS"}).Build();
  EXPECT_EQ(Play(s), C("KH"));
}

TEST(HeuristicPlayTest, VoidShedsADoubledQueenFirst) {
  const SeatState s = PlayState(Contract::kComplex, "QD QC 2H", 2)
                          .Doubled(2, "QC")
                          .Trick(1, {"AS"})
                          .Build();
  EXPECT_EQ(Play(s), C("QC"));  // 50 doubled beats QD's 35
}

TEST(HeuristicPlayTest, NeverWinsWithTheKingOfHeartsWhenAnotherCardWins) {
  const SeatState s =
      PlayState(Contract::kKingOfHearts, "KH AH 2C", 2).Trick(1, {"QH"}).Build();
  EXPECT_EQ(Play(s), C("AH"));
}

TEST(HeuristicPlayTest, LastToACleanTrickWinsItHigh) {
  const SeatState s =
      PlayState(Contract::kQueens, "AC 4C 9D", 3).Trick(0, {"2C", "5C", "3C"}).Build();
  EXPECT_EQ(Play(s), C("AC"));
}

TEST(HeuristicPlayTest, InTricksLastToATrickDucksWhenItCan) {
  const SeatState s =
      PlayState(Contract::kTricks, "AC 4C 9D", 3).Trick(0, {"2C", "5C", "3C"}).Build();
  EXPECT_EQ(Play(s), C("4C"));
}

TEST(HeuristicPlayTest, ForcedOverSecondPlaysLowSoThatOthersMayOvertake) {
  // Only higher diamonds, two players still to come with higher cards unseen.
  const SeatState s =
      PlayState(Contract::kComplex, "9D AD 2S", 1).Trick(0, {"5D"}).Build();
  EXPECT_EQ(Play(s), C("9D"));
}

TEST(HeuristicPlayTest, ACertainWinIsWonHigh) {
  // Every diamond above ours is already gone: the trick is ours whatever we play.
  const SeatState s = PlayState(Contract::kComplex, "9D AD 2S", 1)
                          .Played("TD JD QD KD")
                          .Trick(0, {"5D"})
                          .Build();
  EXPECT_EQ(Play(s), C("AD"));
}

TEST(HeuristicPlayTest, LeadsALowCardInTricks) {
  const SeatState s = PlayState(Contract::kTricks, "2C AS KS 9H").Build();
  EXPECT_EQ(Play(s), C("2C"));
}

TEST(HeuristicPlayTest, DoesNotLeadItsOwnKingOfHeartsIntoTheAce) {
  const SeatState s = PlayState(Contract::kKingOfHearts, "KH 3H 5C 7D").Build();
  EXPECT_NE(Play(s), C("KH"));
}

TEST(HeuristicPlayTest, DiamondsVoidShedsTheHighestDiamond) {
  const SeatState s =
      PlayState(Contract::kDiamonds, "AD 5D 2S", 1).Trick(0, {"9H"}).Build();
  EXPECT_EQ(Play(s), C("AD"));
}

TEST(HeuristicPlayTest, NeverLeadsIntoADoubledQueensTrap) {
  // Seat 1 doubled QS: the ace led would take it (-50); a low club risks nothing.
  const SeatState s = PlayState(Contract::kComplex, "AS 9C 8H 7H")
                          .Doubled(1, "QS")
                          .Played("2C 3C 4C 5C 6C 7C 8C TC")
                          .Build();
  EXPECT_NE(Play(s), C("AS"));
}

TEST(HeuristicPlayTest, DoesNotLeadAceThenKingWithLowCardsToLead) {
  // The Complex deal that cost -365: with low cards in other suits, a bare high
  // spade is not the lead.
  const SeatState s =
      PlayState(Contract::kComplex, "AS KS 2C 5C 9C 3D 8D QD 2H 6H TH 4S 7S").Build();
  const engine::Card lead = Play(s);
  EXPECT_NE(lead, C("AS"));
  EXPECT_NE(lead, C("KS"));
}

// --- Trix ----------------------------------------------------------------------------

TEST(HeuristicTrixTest, HoldsBackAJackThatWouldOnlyFreeTheOthers) {
  // JS frees TS and QS, both unseen; 9H continues our own hearts (8H next).
  const SeatState s = PlayState(Contract::kTrix, "JS 9H 8H 2C").Layout("JH TH").Build();
  EXPECT_EQ(Play(s), C("9H"));
}

TEST(HeuristicTrixTest, MovesARowDownTowardsThePartnersShownTwo) {
  // Partner (seat 2) shows 2S. Clubs and spades rows are open at J; TS (towards the
  // 2) and TC free nothing of ours either way; otherwise the lower card, TC, wins.
  SeatState s =
      PlayState(Contract::kTrix, "TC TS 5H 4D").Partner().Layout("JC JS").Build();
  s.seats[2].twos_shown = Cards("2S");
  EXPECT_EQ(Play(s), C("TS"));
}

TEST(HeuristicTrixTest, OpensItsLongSuitWithAJackThatFreesItsOwnCards) {
  const SeatState s =
      PlayState(Contract::kTrix, "JC TC 9C 8C JH 2D 5S").Build();  // legal: JC JH
  EXPECT_EQ(Play(s), C("JC"));
}

TEST(HeuristicTrixTest, PrefersACardThatFreesItsOwnNextCard) {
  // Hearts row J..Q is open; QD... legal are KH (frees AH, ours) and TH (frees 9H,
  // not ours).
  const SeatState s = PlayState(Contract::kTrix, "KH AH TH 3C").Layout("JH QH").Build();
  EXPECT_EQ(Play(s), C("KH"));
}

TEST(HeuristicTrixTest, PlaysOnlyLegalCards) {
  const SeatState s =
      PlayState(Contract::kTrix, "2C 3C 4C 5S").Layout("JS TS 9S 8S 7S 6S").Build();
  EXPECT_EQ(Play(s), C("5S"));
}

// --- Contract and doubles -----------------------------------------------------------

constexpr uint32_t kClassic = 0x1F;  // the five classic contracts

TEST(HeuristicContractTest, FourJacksPickTrix) {
  EXPECT_EQ(heuristic::ChooseContract(Cards("JC JD JH JS TC QD 2H 3H 4S 5S 6C 7C 8D"),
                                      kClassic),
            Contract::kTrix);
}

TEST(HeuristicContractTest, AnUnguardedKingOfHeartsAvoidsKingOfHearts) {
  const uint32_t no_trix = kClassic & ~(1u << static_cast<int>(Contract::kTrix));
  const Contract c =
      heuristic::ChooseContract(Cards("KH 2C 3C 4C 5C 6C 2D 3D 4D 5D 2S 3S 4S"), no_trix);
  EXPECT_NE(c, Contract::kKingOfHearts);
  EXPECT_EQ(c, Contract::kTricks);  // nothing high: no trick will be won
}

TEST(HeuristicContractTest, HighCardsAvoidTricks) {
  const Contract c =
      heuristic::ChooseContract(Cards("AC KC AD KD AS KS QS AH 2H 3H 4H 5H 6H"),
                                1u << static_cast<int>(Contract::kTricks) |
                                    1u << static_cast<int>(Contract::kKingOfHearts));
  EXPECT_EQ(c, Contract::kKingOfHearts);  // no KH in hand
}

TEST(HeuristicContractTest, PicksOnlyAvailableContracts) {
  const uint32_t only = 1u << static_cast<int>(Contract::kDiamonds);
  EXPECT_EQ(
      heuristic::ChooseContract(Cards("JC JD JH JS 2C 3C 4C 5C 6C 7C 8C 9C TC"), only),
      Contract::kDiamonds);
}

TEST(HeuristicDoublesTest, DoublesOnlyWellGuardedCards) {
  const engine::CardSet doublable = Cards("KH QS QC QD QH");
  EXPECT_EQ(heuristic::ChooseDoubles(Cards("KH 2H 3H 5H 9H QS 2S 3C"), doublable),
            Cards("KH"));
  EXPECT_EQ(heuristic::ChooseDoubles(Cards("QS 2S 3S 4S 5S KH 2C"), doublable),
            Cards("QS"));
  EXPECT_EQ(heuristic::ChooseDoubles(Cards("KH QS 2S 4H"), doublable), 0u);
}

// --- Whole games ---------------------------------------------------------------------

// Every answer of the heuristic is accepted by the real table logic, in every mode.
TEST(HeuristicGameTest, PlaysWholeGamesWithoutARefusal) {
  for (const char* mode :
       {"classic-solo", "classic-partner", "complex-solo", "complex-partner"}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      LocalTable table({.mode = mode, .seed = seed, .kingdoms = 2});
      HeuristicBot b0, b1, b2, b3;
      const absl::Status played = table.PlayToEnd({&b0, &b1, &b2, &b3});
      EXPECT_TRUE(played.ok()) << mode << " seed " << seed << ": " << played;
    }
  }
}

// Deterministic (seeded deals and random bots): the heuristic seats, 0 and 2, end
// well ahead of the random ones over a series of games.
TEST(HeuristicGameTest, BeatsRandomPlay) {
  int64_t heuristic = 0;
  int64_t random = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    LocalTable table({.mode = seed % 2 ? "complex-solo" : "classic-solo", .seed = seed});
    HeuristicBot h0, h2;
    RandomBot r1(seed), r3(seed + 100);
    ASSERT_TRUE(table.PlayToEnd({&h0, &r1, &h2, &r3}).ok());
    const SeatState& s = table.tracker(0).state();
    heuristic += s.result.totals(0) + s.result.totals(2);
    random += s.result.totals(1) + s.result.totals(3);
  }
  EXPECT_GT(heuristic, random + 1000)
      << "heuristic " << heuristic << ", random " << random;
}

}  // namespace
}  // namespace trix::bots
