#include "services/table/codec.h"

#include <string>

#include "engine/random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::table {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The rest of the card, contract and mode tests are in proto/wire/wire_test.cc.
TEST(CodecTest, SeatCardsHoldAtMostAHand) {
  CardNames many;
  for (int i = 0; i < 14; ++i) many.Add("2C");
  EXPECT_EQ(SeatCardsFromProto(many).status().code(), absl::StatusCode::kInvalidArgument);
  CardNames twice;
  twice.Add("QS");
  twice.Add("QS");
  EXPECT_THAT(SeatCardsFromProto(twice).status().message(), HasSubstr("twice"));
}

TEST(CodecTest, StoredModeNames) {
  v1::Mode mode;
  mode.set_team(v1::TEAM_PARTNER);
  mode.set_format(v1::FORMAT_COMPLEX);
  EXPECT_EQ(ModeFromStoredName("complex-partner").SerializeAsString(),
            mode.SerializeAsString());
  EXPECT_EQ(ModeFromStoredName("nonsense").team(), v1::TEAM_UNSPECIFIED);
}

TEST(CodecTest, ActionsRoundTripThroughTheLog) {
  const engine::Hands hands = engine::ShuffledHands(7, 0);
  engine::Action deal = engine::Action::Deal(hands);
  engine::Action back = ActionFromLog(ActionToLog(deal)).value();
  EXPECT_EQ(back.type, engine::ActionType::kDeal);
  EXPECT_EQ(back.hands, hands);

  engine::Action play = engine::Action::PlayCard(2, engine::ParseCard("QS").value());
  play.autopilot = true;
  back = ActionFromLog(ActionToLog(play)).value();
  EXPECT_EQ(back.card, play.card);
  EXPECT_EQ(back.seat, 2);
  EXPECT_TRUE(back.autopilot);

  engine::Action select =
      engine::Action::SelectDoubles(1, engine::ParseCards("KH QS").value());
  EXPECT_EQ(ActionFromLog(ActionToLog(select)).value().cards, select.cards);
  engine::Action choose = engine::Action::ChooseContract(3, engine::Contract::kTrix);
  EXPECT_EQ(ActionFromLog(ActionToLog(choose)).value().contract, engine::Contract::kTrix);
}

TEST(CodecTest, CorruptLogIsDataLoss) {
  v1::internal::LoggedAction bad;
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
  bad.set_kind(v1::internal::ACTION_KIND_PLAY_CARD);
  bad.set_seat(7);
  bad.set_card("QS");
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
  bad.set_seat(1);
  bad.set_card("QQ");
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
  bad.set_kind(v1::internal::ACTION_KIND_DEAL);
  bad.add_hands("AS");
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
}

TEST(CodecTest, ResultJsonRoundTrip) {
  engine::GameResult result;
  result.totals = {100, -50, 200, -250};
  result.places = {1, 2, 1, 2};
  result.team_totals = {300, -300};
  result.winner_team = 0;
  result.payouts = {150, 0, 150, 0};
  const std::string json = ResultJson({engine::Team::kPartner, engine::Format::kComplex},
                                      result, {100, 100, 0, 100});
  v1::GameResult back = ResultFromJson(json).value();
  EXPECT_THAT(back.totals(), ElementsAre(100, -50, 200, -250));
  EXPECT_THAT(back.team_totals(), ElementsAre(300, -300));
  EXPECT_EQ(back.winner_team(), 0);
  EXPECT_THAT(back.payouts(), ElementsAre(150, 0, 150, 0));
  // Money is whole units in the stored row too (the ledger settles from it).
  EXPECT_THAT(json, HasSubstr("\"payouts\":[150,0,150,0]"));
  EXPECT_THAT(ResultFromJson(R"({"payouts": [400.0, 0.0, 0, 0]})").value().payouts(),
              ElementsAre(400, 0, 0, 0));
  EXPECT_EQ(ResultFromJson("not json").status().code(), absl::StatusCode::kDataLoss);
}

TEST(CodecTest, ASoloResultHasNoTeamFields) {
  engine::GameResult result;
  result.totals = {100, -50, 200, -250};
  result.places = {2, 3, 1, 4};
  const v1::GameResult out =
      ResultToProto({engine::Team::kSolo, engine::Format::kComplex}, result, {});
  EXPECT_THAT(out.places(), ElementsAre(2, 3, 1, 4));
  EXPECT_TRUE(out.team_totals().empty());
  EXPECT_FALSE(out.has_winner_team());
}

}  // namespace
}  // namespace trix::table
