#include "bots/sdk/wire.h"

#include "bots/sdk/bot.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

CardNames Names(std::initializer_list<const char*> names) {
  CardNames out;
  for (const char* n : names) out.Add(n);
  return out;
}

TEST(WireTest, CardSetsRoundTripSorted) {
  absl::StatusOr<engine::CardSet> set = CardSetFromWire(Names({"QS", "2C", "KH"}));
  ASSERT_TRUE(set.ok()) << set.status();
  CardNames back;
  AddCards(*set, &back);
  ASSERT_EQ(back.size(), 3);
  EXPECT_EQ(back[0], "2C");
  EXPECT_EQ(back[1], "KH");
  EXPECT_EQ(back[2], "QS");
}

TEST(WireTest, UnknownOrRepeatedCardsAreInvalid) {
  EXPECT_EQ(CardSetFromWire(Names({"ZZ"})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CardSetFromWire(Names({"QS", "QS"})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CardSetFromWire(Names({""})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(WireTest, ContractsMapBothWays) {
  for (int c = 0; c < engine::kNumContracts; ++c) {
    const auto contract = static_cast<engine::Contract>(c);
    EXPECT_EQ(ContractFromWire(ContractToWire(contract)).value(), contract);
  }
  EXPECT_EQ(ContractToWire(engine::Contract::kKingOfHearts), v1::CONTRACT_KING_OF_HEARTS);
  EXPECT_EQ(ContractToWire(engine::Contract::kComplex), v1::CONTRACT_COMPLEX);
  EXPECT_EQ(ContractFromWire(0).value(), engine::kNoContract);
  EXPECT_EQ(ContractFromWire(42).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(WireTest, ModesByName) {
  absl::StatusOr<v1::Mode> mode = ModeFromName("complex-partner");
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(mode->team(), v1::TEAM_PARTNER);
  EXPECT_EQ(mode->format(), v1::FORMAT_COMPLEX);
  EXPECT_EQ(ModeName(*mode), "complex-partner");
  EXPECT_FALSE(ModeFromName("complex").ok());
  EXPECT_FALSE(ModeFromName("simple-solo").ok());
}

TEST(WireTest, HouseRulesDefaultAndValidate) {
  v1::Mode mode = ModeFromName("classic-solo").value();
  v1::HouseRules rules;
  absl::StatusOr<engine::Rules> r = RulesFromWire(mode, rules);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->options.doubling);
  EXPECT_EQ(r->options.kingdoms, 4);
  rules.set_kingdoms(9);
  EXPECT_FALSE(RulesFromWire(mode, rules).ok());
  EXPECT_FALSE(RulesFromWire(v1::Mode(), v1::HouseRules()).ok());
}

TEST(DecisionTest, OnlyOptionsAreAllowed) {
  SeatOptions o;
  o.pending = true;
  o.phase = engine::Phase::kPlaying;
  o.legal = engine::ParseCards("2C 3C").value();
  EXPECT_TRUE(IsAllowed(Decision::PlayCard(engine::ParseCard("3C").value()), o));
  EXPECT_FALSE(IsAllowed(Decision::PlayCard(engine::ParseCard("4C").value()), o));
  EXPECT_FALSE(IsAllowed(Decision::PlayCard(engine::kNoCard), o));
  EXPECT_FALSE(IsAllowed(Decision::ChooseContract(engine::Contract::kTrix), o));
  EXPECT_EQ(FirstOption(o).card, engine::ParseCard("2C").value());

  o.phase = engine::Phase::kDoubling;
  o.doublable = engine::ParseCards("KH QS").value();
  EXPECT_TRUE(IsAllowed(Decision::SelectDoubles(engine::ParseCards("QS").value()), o));
  EXPECT_TRUE(IsAllowed(Decision::SelectDoubles(0), o));
  EXPECT_FALSE(IsAllowed(Decision::SelectDoubles(engine::ParseCards("QD").value()), o));

  o.pending = false;
  EXPECT_FALSE(IsAllowed(Decision::SelectDoubles(0), o));
}

TEST(DecisionTest, FillsTheAction) {
  v1::ActRequest request;
  FillAction(Decision::SelectDoubles(engine::ParseCards("QS KH").value()), &request);
  ASSERT_TRUE(request.has_select_doubles());
  EXPECT_EQ(request.select_doubles().cards_size(), 2);
  EXPECT_TRUE(request.select_doubles().ready());
  request.Clear();
  FillAction(Decision::ChooseContract(engine::Contract::kTrix), &request);
  EXPECT_EQ(request.choose_contract().contract(), v1::CONTRACT_TRIX);
}

}  // namespace
}  // namespace trix::bots
