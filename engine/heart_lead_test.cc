// The kh_heart_lead house rule (RULES.md "House-rule options"): any, only if the
// hand holds nothing but hearts, or after hearts are broken by a heart discarded
// on a non-heart lead. It applies to King of Hearts only.
#include "absl/status/status.h"
#include "engine/deal.h"
#include "engine/testing/hands.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::HasSubstr;

// Seat 0 wins three aces, is then left with nothing but hearts and leads 2H;
// seat 1 takes KH with AH (hearts followed on a heart lead: nothing is broken)
// and leads with QH and clubs in hand; on its club lead seat 0 discards 3H.
Hands HeartLeadHands() {
  return MakeHands(
      "AC AD AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH", "QH AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
      "KH KC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", "KD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS");
}
constexpr char kAcesTricks[] = "AC 2C KC 2S  AD 3C 2D KD  AS 4C 3D 3S";
constexpr char kHeartTrick[] = "2H AH KH 4S";
constexpr char kBreakingTrick[] = "5C 4D 5S 3H";

Deal KingOfHearts(HeartLead lead, Contract contract = Contract::kKingOfHearts) {
  Options options;
  options.kh_heart_lead = lead;
  options.end_early = false;  // keep playing after KH falls
  const Format format =
      contract == Contract::kComplex ? Format::kComplex : Format::kClassic;
  return Deal(MakeRules(Team::kSolo, format, options), contract, 0, HeartLeadHands(), {});
}

void ExpectHeartLeadRejected(const Deal& deal, Card heart, const char* option) {
  absl::Status status = deal.CheckPlay(heart);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(std::string("may not lead a heart in King of Hearts "
                                    "(kh_heart_lead=") +
                        option + ")"));
}

TEST(HeartLeadTest, AnyAllowsAHeartLeadFromTheStart) {
  Deal deal = KingOfHearts(HeartLead::kAny);
  EXPECT_EQ(deal.LegalCards(), HeartLeadHands()[0]);
  EXPECT_OK(deal.CheckPlay(CardOf("2H")));
}

TEST(HeartLeadTest, OnlyIfAllHeartsForbidsAHeartFromAMixedHand) {
  Deal deal = KingOfHearts(HeartLead::kOnlyIfAllHearts);
  EXPECT_EQ(deal.LegalCards(), Cards("AC AD AS"));
  ExpectHeartLeadRejected(deal, CardOf("2H"), "only_if_all_hearts");
}

TEST(HeartLeadTest, OnlyIfAllHeartsAllowsAHandOfHearts) {
  Deal deal = KingOfHearts(HeartLead::kOnlyIfAllHearts);
  ASSERT_OK(PlayCards(deal, kAcesTricks));
  EXPECT_EQ(deal.to_play(), 0);
  EXPECT_EQ(deal.LegalCards(), deal.hands()[0]);
  ASSERT_OK(PlayCards(deal, kHeartTrick));
  EXPECT_EQ(deal.scores(), (Scores{0, -75, 0, 0}));
}

TEST(HeartLeadTest, OnlyIfAllHeartsIgnoresBrokenHearts) {
  Deal deal = KingOfHearts(HeartLead::kOnlyIfAllHearts);
  ASSERT_OK(PlayCards(deal, kAcesTricks));
  ASSERT_OK(PlayCards(deal, kHeartTrick));
  ASSERT_OK(PlayCards(deal, kBreakingTrick));
  EXPECT_TRUE(deal.hearts_broken());
  EXPECT_EQ(deal.to_play(), 1);
  EXPECT_EQ(deal.LegalCards(), Cards("6C 7C 8C 9C TC JC QC"));
  ExpectHeartLeadRejected(deal, CardOf("QH"), "only_if_all_hearts");
}

TEST(HeartLeadTest, AfterBrokenForbidsAHeartLeadAtFirst) {
  Deal deal = KingOfHearts(HeartLead::kAfterBroken);
  EXPECT_FALSE(deal.hearts_broken());
  EXPECT_EQ(deal.LegalCards(), Cards("AC AD AS"));
  ExpectHeartLeadRejected(deal, CardOf("2H"), "after_broken");
}

TEST(HeartLeadTest, AfterBrokenAllowsAHandOfHearts) {
  Deal deal = KingOfHearts(HeartLead::kAfterBroken);
  ASSERT_OK(PlayCards(deal, kAcesTricks));
  EXPECT_FALSE(deal.hearts_broken());
  EXPECT_EQ(deal.LegalCards(), deal.hands()[0]);
  EXPECT_OK(deal.CheckPlay(CardOf("2H")));
}

TEST(HeartLeadTest, HeartsFollowedOnAHeartLeadDoNotBreak) {
  Deal deal = KingOfHearts(HeartLead::kAfterBroken);
  ASSERT_OK(PlayCards(deal, kAcesTricks));
  ASSERT_OK(PlayCards(deal, kHeartTrick));
  EXPECT_FALSE(deal.hearts_broken());
  EXPECT_EQ(deal.to_play(), 1);
  EXPECT_EQ(deal.LegalCards(), Cards("5C 6C 7C 8C 9C TC JC QC"));
  ExpectHeartLeadRejected(deal, CardOf("QH"), "after_broken");
}

TEST(HeartLeadTest, AHeartDiscardedOnAnotherLeadBreaks) {
  Deal deal = KingOfHearts(HeartLead::kAfterBroken);
  ASSERT_OK(PlayCards(deal, kAcesTricks));
  ASSERT_OK(PlayCards(deal, kHeartTrick));
  ASSERT_OK(PlayCards(deal, "5C 4D 5S"));
  EXPECT_FALSE(deal.hearts_broken());  // discards of other suits break nothing
  ASSERT_OK(PlayCards(deal, "3H"));
  EXPECT_TRUE(deal.hearts_broken());
  EXPECT_EQ(deal.to_play(), 1);
  EXPECT_EQ(deal.LegalCards(), Cards("QH 6C 7C 8C 9C TC JC QC"));
  EXPECT_OK(deal.TryPlay(CardOf("QH")));
}

TEST(HeartLeadTest, OptionsDoNotApplyOutsideKingOfHearts) {
  for (HeartLead lead : {HeartLead::kOnlyIfAllHearts, HeartLead::kAfterBroken}) {
    for (Contract contract : {Contract::kQueens, Contract::kComplex, Contract::kDiamonds,
                              Contract::kTricks}) {
      Deal deal = KingOfHearts(lead, contract);
      EXPECT_EQ(deal.LegalCards(), HeartLeadHands()[0]) << ContractName(contract);
      EXPECT_OK(deal.TryPlay(CardOf("2H")));
    }
  }
}

}  // namespace
}  // namespace trix::engine
