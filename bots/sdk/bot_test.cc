#include "bots/sdk/bot.h"

#include "gtest/gtest.h"

namespace trix::bots {
namespace {

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
