#include "bots/play/keys.h"

#include "bots/play/play_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

std::vector<Key> KindsOf(const std::vector<KeyPress>& keys) {
  std::vector<Key> kinds;
  for (const KeyPress& k : keys) kinds.push_back(k.key);
  return kinds;
}

TEST(KeyDecoderTest, CursorKeysInBothModesLettersDigitsEnterSpace) {
  KeyDecoder decoder;
  const std::vector<KeyPress> keys = decoder.Feed("\x1b[D\x1bOC\x1b[A\x1b[Bhl7\r\n Q");
  EXPECT_THAT(KindsOf(keys),
              testing::ElementsAre(Key::kLeft, Key::kRight, Key::kUp, Key::kDown,
                                   Key::kLeft, Key::kRight, Key::kDigit, Key::kEnter,
                                   Key::kEnter, Key::kSpace, Key::kChar));
  EXPECT_EQ(keys[6].digit, 7);
  EXPECT_EQ(keys[10].ch, 'q');  // letters in lower case
}

TEST(KeyDecoderTest, AnEscapeSequenceSplitOverReadsIsOneKey) {
  KeyDecoder decoder;
  EXPECT_TRUE(decoder.Feed("\x1b").empty());
  EXPECT_TRUE(decoder.Feed("[1;5").empty());
  EXPECT_THAT(KindsOf(decoder.Feed("Cx")), testing::ElementsAre(Key::kRight, Key::kChar));
}

class ChooserTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { states_ = new RecordedStates(PlayRecordedGame()); }
  static void TearDownTestSuite() { delete states_; }
  static RecordedStates* states_;
};
RecordedStates* ChooserTest::states_ = nullptr;

KeyPress Press(Key key) { return {key}; }
KeyPress Digit(int d) { return {Key::kDigit, d}; }
KeyPress Char(char c) { return {Key::kChar, 0, c}; }

TEST_F(ChooserTest, AContractIsChosenByItsNumberInMenuOrder) {
  ASSERT_TRUE(states_->choosing);
  const SeatState& s = *states_->choosing;
  Chooser chooser;
  chooser.Begin(s);
  std::vector<engine::Contract> menu;
  for (engine::Contract c : engine::ContractsOf(s.rules.variant.format)) {
    if (s.options.contracts & (1u << static_cast<int>(c))) menu.push_back(c);
  }
  ASSERT_GE(menu.size(), 2u);
  EXPECT_EQ(chooser.contracts(), menu);
  EXPECT_FALSE(chooser.Handle(Digit(9)).decision);  // not on the menu: nothing
  EXPECT_FALSE(chooser.Handle(Digit(0)).decision);
  const Chooser::Outcome out = chooser.Handle(Digit(2));
  ASSERT_TRUE(out.decision);
  EXPECT_EQ(out.decision->kind, Decision::Kind::kChooseContract);
  EXPECT_EQ(out.decision->contract, menu[1]);
  EXPECT_TRUE(IsAllowed(*out.decision, s.options));
  EXPECT_FALSE(chooser.open());
}

TEST_F(ChooserTest, EnterTakesTheContractUnderTheCursor) {
  const SeatState& s = *states_->choosing;
  Chooser chooser;
  chooser.Begin(s);
  const std::vector<engine::Contract> menu = chooser.contracts();
  EXPECT_FALSE(chooser.Handle(Press(Key::kRight)).decision);
  const Chooser::Outcome out = chooser.Handle(Press(Key::kEnter));
  ASSERT_TRUE(out.decision);
  EXPECT_EQ(out.decision->contract, menu[1]);
}

TEST_F(ChooserTest, TheCursorMovesOverLegalCardsInHandOrderAndWraps) {
  ASSERT_TRUE(states_->playing_trick);
  const SeatState& s = *states_->playing_trick;
  Chooser chooser;
  chooser.Begin(s);
  std::vector<engine::Card> legal;
  for (engine::CardSet l = s.options.legal; l;) legal.push_back(engine::PopLowest(l));
  EXPECT_EQ(chooser.cards(), legal);
  EXPECT_EQ(chooser.cursor_card(), legal[0]);
  chooser.Handle(Press(Key::kLeft));  // wraps to the last
  EXPECT_EQ(chooser.cursor_card(), legal.back());
  chooser.Handle(Press(Key::kRight));
  chooser.Handle(Press(Key::kRight));
  EXPECT_EQ(chooser.cursor_card(), legal[1]);
  // A number moves the cursor but does not play.
  EXPECT_FALSE(chooser.Handle(Digit(1)).decision);
  EXPECT_EQ(chooser.cursor_card(), legal[0]);
  chooser.Handle(Press(Key::kDown));
  const Chooser::Outcome out = chooser.Handle(Press(Key::kEnter));
  ASSERT_TRUE(out.decision);
  EXPECT_EQ(out.decision->kind, Decision::Kind::kPlayCard);
  EXPECT_EQ(out.decision->card, legal[1]);
  EXPECT_TRUE(IsAllowed(*out.decision, s.options));
}

TEST_F(ChooserTest, DoublingTogglesCardsAndEnterCommitsTheSelection) {
  ASSERT_TRUE(states_->doubling);
  const SeatState& s = *states_->doubling;
  Chooser chooser;
  chooser.Begin(s);
  ASSERT_GE(chooser.cards().size(), 2u);
  const engine::Card first = chooser.cards()[0];
  const engine::Card second = chooser.cards()[1];
  chooser.Handle(Press(Key::kSpace));
  chooser.Handle(Press(Key::kRight));
  chooser.Handle(Press(Key::kSpace));
  EXPECT_EQ(chooser.selection(), engine::Bit(first) | engine::Bit(second));
  chooser.Handle(Press(Key::kSpace));  // off again
  EXPECT_EQ(chooser.selection(), engine::Bit(first));
  const Chooser::Outcome out = chooser.Handle(Press(Key::kEnter));
  ASSERT_TRUE(out.decision);
  EXPECT_EQ(out.decision->kind, Decision::Kind::kSelectDoubles);
  EXPECT_EQ(out.decision->doubles, engine::Bit(first));
  EXPECT_TRUE(out.decision->ready);
  EXPECT_TRUE(IsAllowed(*out.decision, s.options));
}

TEST_F(ChooserTest, LeavingNeedsAYesAndKeysDoNothingWhenNoDecisionIsOpen) {
  Chooser chooser;
  EXPECT_FALSE(chooser.Handle(Press(Key::kEnter)).decision);
  EXPECT_FALSE(chooser.Handle(Char('q')).leave);
  EXPECT_TRUE(chooser.confirming_leave());
  EXPECT_FALSE(chooser.Handle(Char('n')).leave);
  EXPECT_FALSE(chooser.confirming_leave());
  chooser.Handle(Char('q'));
  EXPECT_TRUE(chooser.Handle(Char('y')).leave);

  // While confirming, Enter does not play.
  chooser.Begin(*states_->playing_trick);
  chooser.Handle(Char('q'));
  const Chooser::Outcome out = chooser.Handle(Press(Key::kEnter));
  EXPECT_FALSE(out.decision);
  EXPECT_FALSE(out.leave);
  EXPECT_TRUE(chooser.open());
}

}  // namespace
}  // namespace trix::bots
