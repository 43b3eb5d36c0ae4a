#include "engine/cards.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::HasSubstr;

TEST(CardsTest, EveryCardNameRoundTrips) {
  int cards = 0;
  for (CardSet all = kAllCards; all;) {
    const Card card = PopLowest(all);
    const std::string name = CardName(card);
    ASSERT_EQ(name.size(), 2u);
    absl::StatusOr<Card> parsed = ParseCard(name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, card) << name;
    ++cards;
  }
  EXPECT_EQ(cards, 52);
}

TEST(CardsTest, NamesFollowTheNotation) {
  EXPECT_EQ(CardName(MakeCard(kDiamonds, kTen)), "TD");
  EXPECT_EQ(CardName(kKingOfHearts), "KH");
  EXPECT_EQ(CardName(kQueenOfDiamonds), "QD");
  EXPECT_EQ(CardName(kSevenOfHearts), "7H");
  EXPECT_EQ(CardName(MakeCard(kClubs, kTwo)), "2C");
  EXPECT_EQ(CardName(MakeCard(kSpades, kAce)), "AS");
  EXPECT_EQ(*ParseCard("QS"), MakeCard(kSpades, kQueen));
  EXPECT_EQ(*ParseCard("JC"), MakeCard(kClubs, kJack));
}

TEST(CardsTest, InvalidIndicesHaveNoName) {
  for (Card c : {13, 14, 15, 29, 63, 64, 200, 255}) {
    EXPECT_EQ(CardName(static_cast<Card>(c)), "??") << int{c};
  }
}

TEST(CardsTest, BadCardTextIsInvalidArgument) {
  for (const char* text : {"", "K", "1H", "KX", "kh", "10H", "KHS", " KH", "H K", "??"}) {
    absl::StatusOr<Card> card = ParseCard(text);
    ASSERT_FALSE(card.ok()) << "'" << text << "' parsed";
    EXPECT_EQ(card.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(card.status().message()), HasSubstr("is not a card"));
  }
}

TEST(CardsTest, CardSetTextRoundTripsLowestFirst) {
  absl::StatusOr<CardSet> set = ParseCards("AS KH 2C TD");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(Count(*set), 4);
  EXPECT_EQ(CardsText(*set), "2C TD KH AS");
  EXPECT_EQ(*ParseCards(CardsText(kAllCards)), kAllCards);
  EXPECT_EQ(*ParseCards(CardsText(kHeartsCards)), kHeartsCards);
  EXPECT_EQ(CardsText(0), "");
}

TEST(CardsTest, CardSetTextToleratesRepeatedSpaces) {
  EXPECT_EQ(*ParseCards("  AS   KH "), Bit(*ParseCard("AS")) | Bit(kKingOfHearts));
  EXPECT_EQ(*ParseCards(""), 0u);
}

TEST(CardsTest, DuplicateCardInSetIsRejected) {
  absl::StatusOr<CardSet> set = ParseCards("AS KH AS");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(set.status().message()), HasSubstr("AS is listed twice"));
}

TEST(CardsTest, BadCardInSetIsRejected) {
  absl::StatusOr<CardSet> set = ParseCards("AS KH 1D");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(set.status().message()), HasSubstr("'1D' is not a card"));
  EXPECT_FALSE(ParseCards("AS,KH").ok());
}

TEST(CardsTest, SuitAndRankMasks) {
  EXPECT_EQ(Count(kAllCards), 52);
  for (Suit s : {kClubs, kDiamonds, kHearts, kSpades}) {
    EXPECT_EQ(Count(SuitCards(s)), 13);
    EXPECT_EQ(SuitOf(Lowest(SuitCards(s))), s);
    EXPECT_EQ(RankOf(Highest(SuitCards(s))), kAce);
  }
  EXPECT_EQ(CardsText(kQueens), "QC QD QH QS");
  EXPECT_EQ(CardsText(kJacks), "JC JD JH JS");
  EXPECT_EQ(CardsText(kTwos), "2C 2D 2H 2S");
  EXPECT_EQ(Count(kDiamondsCards), 13);
  EXPECT_EQ(kAllCards & ~(SuitCards(kClubs) | SuitCards(kDiamonds) | kHeartsCards |
                          SuitCards(kSpades)),
            0u);
}

TEST(CardsTest, SetIterationGoesLowestFirst) {
  const CardSet set = *ParseCards("9S 2C KH");
  EXPECT_EQ(CardName(NthCard(set, 0)), "2C");
  EXPECT_EQ(CardName(NthCard(set, 1)), "KH");
  EXPECT_EQ(CardName(NthCard(set, 2)), "9S");
  EXPECT_EQ(CardName(Highest(set)), "9S");
  CardSet b = set;
  EXPECT_EQ(CardName(PopLowest(b)), "2C");
  EXPECT_EQ(Count(b), 2);
}

}  // namespace
}  // namespace trix::engine
