#include "engine/rules.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RulesTest, ContractsPerFormat) {
  EXPECT_THAT(ContractsOf(Format::kClassic),
              ElementsAre(Contract::kKingOfHearts, Contract::kQueens, Contract::kDiamonds,
                          Contract::kTricks, Contract::kTrix));
  EXPECT_THAT(ContractsOf(Format::kComplex),
              ElementsAre(Contract::kComplex, Contract::kTrix));
  EXPECT_TRUE(InFormat(Contract::kTrix, Format::kComplex));
  EXPECT_FALSE(InFormat(Contract::kQueens, Format::kComplex));
  EXPECT_FALSE(InFormat(Contract::kComplex, Format::kClassic));
  EXPECT_FALSE(InFormat(kNoContract, Format::kClassic));
}

TEST(RulesTest, DealsPerGameFollowKingdoms) {
  for (int kingdoms = 1; kingdoms <= 4; ++kingdoms) {
    Options options;
    options.kingdoms = kingdoms;
    EXPECT_EQ(DealsPerGame({{Team::kSolo, Format::kClassic}, options}), 5 * kingdoms);
    EXPECT_EQ(DealsPerGame({{Team::kPartner, Format::kComplex}, options}), 2 * kingdoms);
  }
  EXPECT_EQ(DealsPerGame(Rules{}), 20);
}

TEST(RulesTest, ValidateOptionsAcceptsOneToFourKingdoms) {
  for (int kingdoms = 1; kingdoms <= 4; ++kingdoms) {
    Options options;
    options.kingdoms = kingdoms;
    EXPECT_TRUE(ValidateOptions(options).ok()) << kingdoms;
  }
}

TEST(RulesTest, ValidateOptionsRejectsOtherKingdomCounts) {
  for (int kingdoms : {0, 5, -1, 100}) {
    Options options;
    options.kingdoms = kingdoms;
    absl::Status status = ValidateOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << kingdoms;
    EXPECT_THAT(std::string(status.message()), HasSubstr("kingdoms must be 1 to 4"));
  }
}

TEST(RulesTest, DoublableCardsPerContract) {
  const Options on;
  EXPECT_EQ(DoublableCards(Contract::kKingOfHearts, on), Bit(kKingOfHearts));
  EXPECT_EQ(DoublableCards(Contract::kQueens, on), kQueens);
  EXPECT_EQ(DoublableCards(Contract::kComplex, on), kQueens | Bit(kKingOfHearts));
  EXPECT_EQ(DoublableCards(Contract::kDiamonds, on), 0u);
  EXPECT_EQ(DoublableCards(Contract::kTricks, on), 0u);
  EXPECT_EQ(DoublableCards(Contract::kTrix, on), 0u);
}

TEST(RulesTest, DoublingOffMakesNothingDoublable) {
  Options off;
  off.doubling = false;
  for (int c = 0; c < kNumContracts; ++c) {
    EXPECT_EQ(DoublableCards(static_cast<Contract>(c), off), 0u) << c;
  }
}

TEST(RulesTest, WireNamesRoundTrip) {
  for (int c = 0; c < kNumContracts; ++c) {
    const Contract contract = static_cast<Contract>(c);
    EXPECT_EQ(*ParseContract(ContractName(contract)), contract);
  }
  EXPECT_EQ(ContractName(Contract::kKingOfHearts), "king_of_hearts");
  EXPECT_EQ(ContractName(kNoContract), "none");
  EXPECT_EQ(*ParseTeam("partner"), Team::kPartner);
  EXPECT_EQ(*ParseFormat("complex"), Format::kComplex);
  EXPECT_EQ(*ParseHeartLead("after_broken"), HeartLead::kAfterBroken);
  EXPECT_EQ(HeartLeadName(HeartLead::kOnlyIfAllHearts), "only_if_all_hearts");
  EXPECT_EQ(ModeName({Team::kPartner, Format::kComplex}), "complex-partner");
  EXPECT_EQ(ModeName({Team::kSolo, Format::kClassic}), "classic-solo");
}

TEST(RulesTest, UnknownWireNamesAreRejected) {
  absl::StatusOr<Contract> contract = ParseContract("hearts");
  EXPECT_EQ(contract.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(contract.status().message()),
              HasSubstr("unknown contract 'hearts'"));
  EXPECT_FALSE(ParseTeam("trio").ok());
  EXPECT_FALSE(ParseFormat("").ok());
  EXPECT_FALSE(ParseHeartLead("never").ok());
}

TEST(RulesTest, PartnersSitOpposite) {
  EXPECT_EQ(TeamOf(0), 0);
  EXPECT_EQ(TeamOf(2), 0);
  EXPECT_EQ(TeamOf(1), 1);
  EXPECT_EQ(TeamOf(3), 1);
  EXPECT_EQ(PartnerOf(0), 2);
  EXPECT_EQ(PartnerOf(3), 1);
}

}  // namespace
}  // namespace trix::engine
