// The Trix contract (RULES.md "The Trix contract"): the layout, automatic passes,
// placement, and in partner modes team totals and the 2s shown.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Rules kSolo = MakeRules(Team::kSolo, Format::kClassic);
const Rules kPartner = MakeRules(Team::kPartner, Format::kClassic);

constexpr char kRowOrder[] = "JQKAT98765432";  // out from the jack, up then down

// The plays of `rounds` rounds in which each listed suit's holder plays the next
// card of its row (jack, up to the ace, then down to the 2).
std::string RowRounds(int first, int last, absl::string_view suits) {
  std::string plays;
  for (int r = first; r <= last; ++r) {
    for (char suit : suits) absl::StrAppend(&plays, " ", std::string{kRowOrder[r], suit});
  }
  return plays;
}

TEST(TrixTest, OpeningsAreJacksAndTheCardsNextToEachRow) {
  EXPECT_EQ(TrixOpenings(0), kJacks);
  EXPECT_EQ(TrixOpenings(Cards("JH")), Cards("JC JD JS TH QH"));
  EXPECT_EQ(TrixOpenings(Cards("9H TH JH QH")), Cards("JC JD JS 8H KH"));
  // Full ends of a row open nothing in the neighbouring suit's lane.
  EXPECT_EQ(TrixOpenings(Cards("JC QC KC AC")), Cards("TC JD JH JS"));
  EXPECT_EQ(TrixOpenings(Cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD")), Cards("JC QD JH JS"));
  EXPECT_EQ(TrixOpenings(SuitCards(kSpades)), Cards("JC JD JH"));
  EXPECT_EQ(TrixOpenings(kAllCards), 0u);
}

TEST(TrixTest, PlacementByTheOrderHandsEmpty) {
  for (int owner = 0; owner < kNumSeats; ++owner) {
    Deal deal(kSolo, Contract::kTrix, owner, SuitHands(), {});
    while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
    Scores expected{};
    for (int i = 0; i < kNumSeats; ++i) {
      expected[(owner + i) % kNumSeats] = kTrixPlacePoints[i];
      EXPECT_EQ(deal.out_order()[i], (owner + i) % kNumSeats);
    }
    EXPECT_EQ(deal.scores(), expected);
    EXPECT_EQ(Sum(deal.scores()), 500);
    EXPECT_EQ(deal.passes(), 0);
    // The deal ends when the third seat is out: the fourth keeps a card.
    EXPECT_EQ(deal.cards_played(), 51);
    EXPECT_EQ(Count(deal.hands()[(owner + 3) % kNumSeats]), 1);
    EXPECT_EQ(deal.LegalCards(), 0u);
  }
}

// Seat 0 (no jack) cannot play at the start; seat 1 holds every jack.
Hands PassingHands() {
  return MakeHands(
      "2C 3C 4C 5C 6C 7C 8C 9C 2D 3D 4D 5D 6D", "JC JD JH JS TC QC KC AC TD QD KD AD 9D",
      "2H 3H 4H 5H 6H 7H 8H 9H TH QH KH AH 7D", "2S 3S 4S 5S 6S 7S 8S 9S TS QS KS AS 8D");
}

TEST(TrixTest, OwnerWhoCannotPlayPassesAtTheStart) {
  Deal deal(kSolo, Contract::kTrix, 0, PassingHands(), {});
  EXPECT_EQ(deal.to_play(), 1);
  EXPECT_EQ(deal.passes(), 1);
  ASSERT_EQ(deal.recent_passes(), 1);
  EXPECT_EQ(deal.recent_pass(0), 0);
  EXPECT_EQ(deal.LegalCards(), kJacks);
}

TEST(TrixTest, SeatsWithoutAPlayableCardArePassedAutomatically) {
  Deal deal(kSolo, Contract::kTrix, 0, PassingHands(), {});
  ASSERT_OK(PlayCards(deal, "JC"));
  ASSERT_EQ(deal.recent_passes(), 3);
  EXPECT_EQ(deal.recent_pass(0), 2);
  EXPECT_EQ(deal.recent_pass(1), 3);
  EXPECT_EQ(deal.recent_pass(2), 0);
  EXPECT_EQ(deal.passes(), 4);
  EXPECT_EQ(deal.to_play(), 1);
  ASSERT_OK(PlayCards(deal, "TC"));
  EXPECT_EQ(deal.recent_passes(), 2);
  EXPECT_EQ(deal.passes(), 6);
  EXPECT_EQ(deal.to_play(), 0);
  EXPECT_EQ(deal.LegalCards(), Cards("9C"));
}

TEST(TrixTest, JacksMayBePlayedAnyTimeOrHeldBack) {
  Deal deal(kSolo, Contract::kTrix, 0, PassingHands(), {});
  ASSERT_OK(PlayCards(deal, "JC"));
  EXPECT_EQ(deal.LegalCards(), Cards("JD JH JS TC QC"));
  ASSERT_OK(PlayCards(deal, "QC"));  // holding back three jacks
  EXPECT_EQ(deal.to_play(), 1);      // nobody else can play
  EXPECT_EQ(deal.LegalCards(), Cards("JD JH JS TC KC"));
}

TEST(TrixTest, BlockedCardIsRejected) {
  Deal deal(kSolo, Contract::kTrix, 0, PassingHands(), {});
  ASSERT_OK(PlayCards(deal, "JC"));
  absl::Status status = deal.TryPlay(CardOf("KC"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("seat 1 cannot play KC in Trix: only a jack or the card next"));
  status = deal.TryPlay(CardOf("9C"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("seat 1 does not hold 9C"));
  EXPECT_EQ(deal.cards_played(), 1);
  EXPECT_EQ(deal.passes(), 4);
}

// Partner Trix: seats 0 and 2 run their suits out while seat 1 waits for seat 3.
// Seat 1 holds hearts without JH and 2S; seat 3 holds JH and the other spades.
Hands FirstAndSecondHands() {
  return MakeHands(
      "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "2H 3H 4H 5H 6H 7H 8H 9H TH QH KH AH 2S",
      "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD", "JH 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS");
}

TEST(TrixTest, PartnerTeamTakingFirstAndSecondScores350) {
  Deal deal(kPartner, Contract::kTrix, 0, FirstAndSecondHands(), {});
  ASSERT_OK(PlayCards(deal, RowRounds(0, 11, "CDS") + " 2C 2S 2D JH"));
  ASSERT_TRUE(deal.over());
  EXPECT_EQ(deal.passes(), 12);  // seat 1, every round until 3S is down
  EXPECT_THAT(deal.out_order(), ElementsAre(0, 2, 3, 1));
  EXPECT_EQ(deal.scores(), (Scores{200, 50, 150, 100}));
  EXPECT_EQ(deal.cards_played(), 40);
  EXPECT_EQ(deal.scores()[0] + deal.scores()[2], 350);
  EXPECT_EQ(deal.scores()[1] + deal.scores()[3], 150);
}

TEST(TrixTest, PartnerTeamTakingFirstAndThirdScores300) {
  Deal deal(kPartner, Contract::kTrix, 0, SuitHands(), {});
  while (!deal.over()) deal.Play(Lowest(deal.LegalCards()));
  EXPECT_EQ(deal.scores()[0] + deal.scores()[2], 300);
  EXPECT_EQ(deal.scores()[1] + deal.scores()[3], 200);
}

TEST(TrixTest, PartnerTeamsSecondAndThirdOrFirstAndFourthScore250) {
  // Seat 2 lacks JH and passes once; seat 3 opens hearts with it.
  const Hands hands = Swapped(SuitHands(), CardOf("JH"), 3, CardOf("2S"));
  Deal deal(kPartner, Contract::kTrix, 0, hands, {});
  std::string plays = "JC JD JH";
  const std::vector<std::string> seat2 = {"QH", "KH", "AH", "TH", "9H", "8H",
                                          "7H", "6H", "5H", "4H", "3H", "2H"};
  const std::vector<std::string> seat3 = {"JS", "QS", "KS", "AS", "TS", "9S",
                                          "8S", "7S", "6S", "5S", "4S", "3S"};
  for (int r = 1; r < 13; ++r) {
    absl::StrAppend(&plays, RowRounds(r, r, "CD"), " ", seat2[r - 1], " ", seat3[r - 1]);
  }
  ASSERT_OK(PlayCards(deal, plays));
  ASSERT_TRUE(deal.over());
  EXPECT_EQ(deal.passes(), 1);
  EXPECT_THAT(deal.out_order(), ElementsAre(0, 1, 3, 2));
  EXPECT_EQ(deal.scores(), (Scores{200, 150, 50, 100}));
  EXPECT_EQ(deal.scores()[0] + deal.scores()[2], 250);
  EXPECT_EQ(deal.scores()[1] + deal.scores()[3], 250);
}

// Random Trix deals: the turn moves exactly as RULES.md says (seats with empty
// hands skipped, seats with nothing playable passed), and placement pays out.
TEST(TrixTest, RandomDealsPassSkipAndPlaceByTheRules) {
  Rng rng(77);
  int skipped_empty_hands = 0;
  for (int i = 0; i < 300; ++i) {
    Deal deal(kSolo, Contract::kTrix, i % kNumSeats, ShuffledHands(rng.Next(), i), {});
    int passes = deal.passes();
    while (!deal.over()) {
      const int seat = deal.to_play();
      const CardSet legal = deal.LegalCards();
      ASSERT_NE(legal, 0u);
      ASSERT_EQ(legal, deal.hands()[seat] & TrixOpenings(deal.layout()));
      deal.Play(NthCard(legal, static_cast<int>(rng.Below(Count(legal)))));
      if (deal.over()) break;
      // Every seat between `seat` and the next to play was empty or passed.
      int expected_passes = 0;
      for (int s = (seat + 1) % 4; s != deal.to_play(); s = (s + 1) % 4) {
        if (deal.hands()[s] == 0) {
          ++skipped_empty_hands;
          continue;
        }
        ASSERT_EQ(deal.hands()[s] & TrixOpenings(deal.layout()), 0u);
        ASSERT_LT(expected_passes, deal.recent_passes());
        EXPECT_EQ(deal.recent_pass(expected_passes), s);
        ++expected_passes;
      }
      ASSERT_EQ(deal.recent_passes(), expected_passes);
      passes += expected_passes;
      ASSERT_EQ(deal.passes(), passes);
    }
    int empty = 0;
    for (int s = 0; s < kNumSeats; ++s) empty += deal.hands()[s] == 0;
    EXPECT_EQ(empty, 3);
    const int last = deal.out_order()[3];
    EXPECT_NE(deal.hands()[last], 0u);
    EXPECT_EQ(deal.cards_played(), 52 - Count(deal.hands()[last]));
    for (int place = 0; place < kNumSeats; ++place) {
      EXPECT_EQ(deal.scores()[deal.out_order()[place]], kTrixPlacePoints[place]);
    }
    EXPECT_EQ(Sum(deal.scores()), 500);
  }
  EXPECT_GT(skipped_empty_hands, 0);
}

TEST(TrixTest, TwosShownOnlyInPartnerTrixWhenTheTeamsSplitThem) {
  const Hands split = SuitHands();
  EXPECT_TRUE(TwosShown(kPartner.variant, Contract::kTrix, split));
  EXPECT_FALSE(TwosShown(kSolo.variant, Contract::kTrix, split));
  EXPECT_FALSE(TwosShown(kPartner.variant, Contract::kQueens, split));
  const Hands team0 = Swapped(Swapped(split, CardOf("2D"), 0, CardOf("3C")), CardOf("2S"),
                              2, CardOf("3H"));
  EXPECT_FALSE(TwosShown(kPartner.variant, Contract::kTrix, team0));
  const Hands team1 = Swapped(Swapped(split, CardOf("2C"), 1, CardOf("3D")), CardOf("2H"),
                              3, CardOf("3S"));
  EXPECT_FALSE(TwosShown(kPartner.variant, Contract::kTrix, team1));
}

std::vector<Event> EventsOf(const Game& game, EventType type) {
  std::vector<Event> out;
  for (const Event& e : game.events()) {
    if (e.type == type) out.push_back(e);
  }
  return out;
}

TEST(TrixTest, GameAnnouncesTheTwosShown) {
  Game game(MakeRules(Team::kPartner, Format::kComplex));
  ASSERT_OK(DealAndChoose(game, SuitHands(), Contract::kTrix));
  const std::vector<Event> twos = EventsOf(game, EventType::kTwosShown);
  ASSERT_EQ(twos.size(), 4u);
  for (int s = 0; s < kNumSeats; ++s) {
    EXPECT_EQ(twos[s].seat, s);
    EXPECT_EQ(twos[s].cards, SuitHands()[s] & kTwos);
  }
}

TEST(TrixTest, GameShowsNoTwosWhenOneTeamHoldsThemAll) {
  const Hands team0 = Swapped(Swapped(SuitHands(), CardOf("2D"), 0, CardOf("3C")),
                              CardOf("2S"), 2, CardOf("3H"));
  Game game(MakeRules(Team::kPartner, Format::kComplex));
  ASSERT_OK(DealAndChoose(game, team0, Contract::kTrix));
  EXPECT_TRUE(EventsOf(game, EventType::kTwosShown).empty());
  Game solo(MakeRules(Team::kSolo, Format::kComplex));
  ASSERT_OK(DealAndChoose(solo, SuitHands(), Contract::kTrix));
  EXPECT_TRUE(EventsOf(solo, EventType::kTwosShown).empty());
}

TEST(TrixTest, GameAnnouncesEachAutomaticPass) {
  // 7H is seat 2's: it owns the kingdom, has no jack, and passes first.
  Game game(MakeRules(Team::kSolo, Format::kComplex));
  ASSERT_OK(DealAndChoose(game, PassingHands(), Contract::kTrix));
  ASSERT_EQ(game.owner(), 2);
  std::vector<Event> passes = EventsOf(game, EventType::kPassed);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].seat, 2);
  EXPECT_EQ(passes[1].seat, 3);
  EXPECT_EQ(passes[2].seat, 0);
  for (const Event& e : passes) EXPECT_TRUE(e.automatic);
  EXPECT_EQ(game.events().back().type, EventType::kPlayStarted);
  EXPECT_EQ(game.events().back().seat, 1);
  EXPECT_EQ(game.ToAct(), 1);

  ASSERT_OK(PlayCards(game, "JC"));
  passes = EventsOf(game, EventType::kPassed);
  ASSERT_EQ(passes.size(), 6u);
  EXPECT_EQ(passes[3].seat, 2);
  EXPECT_EQ(passes[4].seat, 3);
  EXPECT_EQ(passes[5].seat, 0);
  EXPECT_EQ(static_cast<int>(passes.size()), game.deal().passes());
}

TEST(TrixTest, GameAnnouncesSeatsOutWithTheirPoints) {
  Game game(MakeRules(Team::kSolo, Format::kComplex));
  ASSERT_OK(DealAndChoose(game, SuitHands(), Contract::kTrix));
  ASSERT_OK(FinishDealByAutopilot(game));
  const std::vector<Event> out = EventsOf(game, EventType::kSeatOut);
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < kNumSeats; ++i) {
    EXPECT_EQ(out[i].seat, (2 + i) % kNumSeats);  // seat 2 (7H) owns and starts
    EXPECT_EQ(out[i].values[out[i].seat], kTrixPlacePoints[i]);
  }
  EXPECT_EQ(game.deal_scores().back(), (Scores{100, 50, 200, 150}));
}

}  // namespace
}  // namespace trix::engine
