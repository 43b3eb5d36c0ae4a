#include "proto/wire/wire.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::wire {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

CardNames Names(std::initializer_list<const char*> names) {
  CardNames out;
  for (const char* n : names) out.Add(n);
  return out;
}

TEST(WireTest, CardSetsRoundTripSorted) {
  absl::StatusOr<engine::CardSet> set = CardSetFromProto(Names({"QS", "2C", "KH"}));
  ASSERT_TRUE(set.ok()) << set.status();
  CardNames back;
  AddCards(*set, &back);
  ASSERT_EQ(back.size(), 3);
  EXPECT_EQ(back[0], "2C");
  EXPECT_EQ(back[1], "KH");
  EXPECT_EQ(back[2], "QS");

  CardNames names;
  AddCards(engine::ParseCards("AS 2C TD").value(), &names);
  EXPECT_THAT(names, ElementsAre("2C", "TD", "AS"));
  EXPECT_EQ(CardSetFromProto(names).value(), engine::ParseCards("AS 2C TD").value());
}

TEST(WireTest, UnknownOrRepeatedCardsAreInvalid) {
  EXPECT_EQ(CardSetFromProto(Names({"ZZ"})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CardSetFromProto(Names({"QS", "QS"})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CardSetFromProto(Names({""})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(CardSetFromProto(Names({"QS", "QS"})).status().message(),
              HasSubstr("twice"));

  EXPECT_EQ(CardFromProto("1X").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CardFromProto("").status().code(), absl::StatusCode::kInvalidArgument);
  absl::Status long_card = CardFromProto(std::string(100000, 'A')).status();
  EXPECT_EQ(long_card.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(long_card.message().size(), 200u);  // the garbage is not echoed
}

TEST(WireTest, ContractsMapBothWays) {
  for (int c = 0; c < engine::kNumContracts; ++c) {
    const auto contract = static_cast<engine::Contract>(c);
    EXPECT_EQ(ContractFromProto(ContractToProto(contract)).value(), contract);
    EXPECT_EQ(ContractOrNoneFromProto(ContractToProto(contract)).value(), contract);
  }
  EXPECT_EQ(ContractToProto(engine::Contract::kKingOfHearts),
            v1::CONTRACT_KING_OF_HEARTS);
  EXPECT_EQ(ContractToProto(engine::Contract::kComplex), v1::CONTRACT_COMPLEX);
  EXPECT_EQ(ContractFromProto(v1::CONTRACT_UNSPECIFIED).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ContractFromProto(static_cast<v1::Contract>(99)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ContractOrNoneFromProto(0).value(), engine::kNoContract);
  EXPECT_EQ(ContractOrNoneFromProto(42).status().code(),
            absl::StatusCode::kInvalidArgument);

  google::protobuf::RepeatedField<int> list;
  AddContracts((1u << 0) | (1u << 4), &list);
  EXPECT_THAT(list, ElementsAre(v1::CONTRACT_KING_OF_HEARTS, v1::CONTRACT_TRIX));
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
  absl::StatusOr<engine::Rules> r = RulesFromProto(mode, rules);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->options.doubling);
  EXPECT_EQ(r->options.kingdoms, 4);
  rules.set_kingdoms(9);
  EXPECT_FALSE(RulesFromProto(mode, rules).ok());
  EXPECT_FALSE(RulesFromProto(v1::Mode(), v1::HouseRules()).ok());
}

TEST(WireTest, RulesDefaultsAndErrors) {
  v1::Mode mode;
  mode.set_team(v1::TEAM_PARTNER);
  mode.set_format(v1::FORMAT_COMPLEX);
  engine::Rules rules = RulesFromProto(mode, v1::HouseRules()).value();
  EXPECT_EQ(rules.variant.team, engine::Team::kPartner);
  EXPECT_TRUE(rules.options.doubling);
  EXPECT_EQ(rules.options.kingdoms, 4);
  EXPECT_EQ(ModeName(mode), "complex-partner");
  EXPECT_EQ(ModeFromName("complex-partner").value().SerializeAsString(),
            mode.SerializeAsString());

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

}  // namespace
}  // namespace trix::wire
