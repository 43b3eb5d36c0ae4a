#include "tests/load/seat_policy.h"

#include "gtest/gtest.h"

namespace trix::load {
namespace {

TEST(DecideActionTest, PlaysOneOfTheLegalCards) {
  v1::Prompt prompt;
  prompt.set_phase(v1::PHASE_PLAYING);
  prompt.add_legal_cards("2C");
  prompt.add_legal_cards("QS");
  engine::Rng rng(7);
  for (int i = 0; i < 20; ++i) {
    Expected expected;
    absl::StatusOr<v1::ActRequest> act = DecideAction(prompt, 0, rng, &expected);
    ASSERT_TRUE(act.ok()) << act.status();
    const std::string& card = act->play_card().card();
    EXPECT_TRUE(card == "2C" || card == "QS") << card;
    EXPECT_EQ(expected.kind, Expected::Kind::kCard);
    EXPECT_EQ(expected.card, card);
  }
}

TEST(DecideActionTest, ChoosesAnOfferedContract) {
  v1::Prompt prompt;
  prompt.set_phase(v1::PHASE_CHOOSING_CONTRACT);
  prompt.add_available_contracts(v1::CONTRACT_TRIX);
  engine::Rng rng(1);
  Expected expected;
  const engine::CardSet hand =
      engine::ParseCards("AS KS QS 2H 3H 4H 5D 6D 7D 8C 9C TC JC").value();
  absl::StatusOr<v1::ActRequest> act = DecideAction(prompt, hand, rng, &expected);
  ASSERT_TRUE(act.ok()) << act.status();
  EXPECT_EQ(act->choose_contract().contract(), v1::CONTRACT_TRIX);
  EXPECT_EQ(expected.contract, v1::CONTRACT_TRIX);
}

TEST(DecideActionTest, DoublesASubsetAndIsReady) {
  v1::Prompt prompt;
  prompt.set_phase(v1::PHASE_DOUBLING);
  prompt.add_doublable("KH");
  prompt.add_doublable("QS");
  engine::Rng rng(3);
  Expected expected;
  absl::StatusOr<v1::ActRequest> act = DecideAction(prompt, 0, rng, &expected);
  ASSERT_TRUE(act.ok()) << act.status();
  EXPECT_TRUE(act->select_doubles().ready());
  EXPECT_LE(act->select_doubles().cards_size(), 2);
  EXPECT_EQ(expected.kind, Expected::Kind::kReady);
}

TEST(DecideActionTest, EmptyPromptIsAnError) {
  v1::Prompt prompt;
  prompt.set_phase(v1::PHASE_PLAYING);
  engine::Rng rng(3);
  Expected expected;
  EXPECT_EQ(DecideAction(prompt, 0, rng, &expected).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(OwnDecisionTest, MatchesOnlyTheSeatsOwnManualMove) {
  v1::Event event;
  event.mutable_card_played()->set_seat(2);
  event.mutable_card_played()->set_card("QS");
  const Expected qs{Expected::Kind::kCard, v1::CONTRACT_UNSPECIFIED, "QS"};
  EXPECT_TRUE(qs.Matches(event, 2));
  EXPECT_FALSE(qs.Matches(event, 1));
  event.set_automatic(true);  // the autopilot's card is not the seat's answer
  EXPECT_FALSE(qs.Matches(event, 2));

  v1::Event ready;
  ready.mutable_ready()->set_seat(0);
  EXPECT_TRUE(
      (Expected{Expected::Kind::kReady, v1::CONTRACT_UNSPECIFIED, ""}).Matches(ready, 0));
  v1::Event turn;
  turn.mutable_turn_started();
  EXPECT_FALSE(OwnDecision(turn, 0).has_value());
}

}  // namespace
}  // namespace trix::load
