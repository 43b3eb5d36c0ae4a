#include "services/table/codec.h"

#include <string>

#include "engine/random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::table {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CodecTest, CardsRoundTripSorted) {
  CardNames names;
  AddCards(engine::ParseCards("AS 2C TD").value(), &names);
  EXPECT_THAT(names, ElementsAre("2C", "TD", "AS"));
  EXPECT_EQ(CardSetFromProto(names).value(), engine::ParseCards("AS 2C TD").value());
}

TEST(CodecTest, MalformedCardsAreInvalidArgument) {
  EXPECT_EQ(CardFromProto("1X").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CardFromProto("").status().code(), absl::StatusCode::kInvalidArgument);
  absl::Status long_card = CardFromProto(std::string(100000, 'A')).status();
  EXPECT_EQ(long_card.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(long_card.message().size(), 200u);  // the garbage is not echoed
  CardNames twice;
  twice.Add("QS");
  twice.Add("QS");
  EXPECT_THAT(CardSetFromProto(twice).status().message(), HasSubstr("twice"));
  CardNames many;
  for (int i = 0; i < 14; ++i) many.Add("2C");
  EXPECT_EQ(CardSetFromProto(many).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CodecTest, Contracts) {
  for (int c = 0; c < engine::kNumContracts; ++c) {
    const auto contract = static_cast<engine::Contract>(c);
    EXPECT_EQ(ContractFromProto(ContractToProto(contract)).value(), contract);
  }
  EXPECT_EQ(ContractFromProto(v1::CONTRACT_UNSPECIFIED).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ContractFromProto(static_cast<v1::Contract>(99)).status().code(),
            absl::StatusCode::kInvalidArgument);
  google::protobuf::RepeatedField<int> list;
  AddContracts((1u << 0) | (1u << 4), &list);
  EXPECT_THAT(list, ElementsAre(v1::CONTRACT_KING_OF_HEARTS, v1::CONTRACT_TRIX));
}

TEST(CodecTest, RulesDefaultsAndErrors) {
  v1::Mode mode;
  mode.set_team(v1::TEAM_PARTNER);
  mode.set_format(v1::FORMAT_COMPLEX);
  engine::Rules rules = RulesFromProto(mode, v1::HouseRules()).value();
  EXPECT_EQ(rules.variant.team, engine::Team::kPartner);
  EXPECT_TRUE(rules.options.doubling);
  EXPECT_EQ(rules.options.kingdoms, 4);
  EXPECT_EQ(ModeName(mode), "complex-partner");
  EXPECT_EQ(ModeFromName("complex-partner").SerializeAsString(),
            mode.SerializeAsString());
  EXPECT_EQ(ModeFromName("nonsense").team(), v1::TEAM_UNSPECIFIED);

  v1::HouseRules house;
  house.set_kingdoms(5);
  EXPECT_EQ(RulesFromProto(mode, house).status().code(),
            absl::StatusCode::kInvalidArgument);
  house.set_kingdoms(1);
  house.set_doubling(false);
  house.set_kh_heart_lead(v1::HEART_LEAD_AFTER_BROKEN);
  rules = RulesFromProto(mode, house).value();
  EXPECT_FALSE(rules.options.doubling);
  EXPECT_EQ(rules.options.kh_heart_lead, engine::HeartLead::kAfterBroken);
  mode.set_team(v1::TEAM_UNSPECIFIED);
  EXPECT_EQ(RulesFromProto(mode, house).status().code(),
            absl::StatusCode::kInvalidArgument);
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
  EXPECT_EQ(ResultFromJson("not json").status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace trix::table
