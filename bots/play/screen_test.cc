#include "bots/play/screen.h"

#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/play/person_bot.h"
#include "bots/play/play_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ScreenTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { states_ = new RecordedStates(PlayRecordedGame()); }
  static void TearDownTestSuite() { delete states_; }

  static std::string Draw(const SeatState& s, bool open, bool color = false) {
    Chooser chooser;
    if (open) chooser.Begin(s);
    ScreenInfo info;
    info.color = color;
    return absl::StrJoin(ScreenLines(s, chooser, info, absl::Now()), "\n");
  }
  // The hand's line for `suit`.
  static std::string SuitLine(const std::string& screen, const std::string& suit) {
    const size_t hand = screen.find("Your hand:");
    const size_t at = screen.find("  " + suit, hand);
    return screen.substr(at, screen.find('\n', at) - at);
  }
  static RecordedStates* states_;
};
RecordedStates* ScreenTest::states_ = nullptr;

TEST_F(ScreenTest, EveryLegalCardIsHighlightedAndNoOtherTheFirstUnderTheCursor) {
  ASSERT_TRUE(states_->playing_trick);
  const SeatState& s = *states_->playing_trick;
  const std::string screen = Draw(s, /*open=*/true);
  EXPECT_THAT(screen, HasSubstr("Your turn: play a card"));
  const engine::Card first = engine::Lowest(s.options.legal);
  for (engine::CardSet hand = s.hand; hand;) {
    const engine::Card c = engine::PopLowest(hand);
    const std::string name = engine::CardName(c);
    if (c == first) {
      EXPECT_THAT(screen, HasSubstr(">" + name + "<"));
    } else if (s.options.legal & engine::Bit(c)) {
      EXPECT_THAT(screen, HasSubstr("[" + name + "]"));
    } else {
      EXPECT_THAT(screen, HasSubstr(" " + name + " "));
      EXPECT_THAT(screen, Not(HasSubstr("[" + name + "]")));
      EXPECT_THAT(screen, Not(HasSubstr(">" + name + "<")));
    }
  }
  // Sorted by suit: each suit's line holds that suit's cards only.
  const std::string spades = SuitLine(screen, "Spades");
  for (engine::CardSet hand = s.hand & ~engine::SuitCards(engine::kSpades); hand;) {
    EXPECT_THAT(spades, Not(HasSubstr(engine::CardName(engine::PopLowest(hand)))));
  }
}

TEST_F(ScreenTest, WithoutADecisionNothingIsHighlighted) {
  const SeatState& s = *states_->playing_trick;
  const std::string screen = Draw(s, /*open=*/false);
  EXPECT_THAT(screen, Not(HasSubstr("[")));
  EXPECT_THAT(screen, Not(HasSubstr("Your turn")));
}

TEST_F(ScreenTest, ColourMarksTheCursorInReverseVideo) {
  const SeatState& s = *states_->playing_trick;
  const std::string screen = Draw(s, /*open=*/true, /*color=*/true);
  const std::string first = engine::CardName(engine::Lowest(s.options.legal));
  EXPECT_THAT(screen, HasSubstr("\x1b[7m>" + first + "<\x1b[0m"));
  EXPECT_EQ(StripAnsi(screen), Draw(s, /*open=*/true));
}

TEST_F(ScreenTest, TheTrickIsDrawnInPlayOrder) {
  ASSERT_TRUE(states_->following);
  const SeatState& s = *states_->following;
  const std::string screen = Draw(s, /*open=*/true);
  std::vector<std::string> plays;
  for (int i = 0; i < 4; ++i) {
    const int seat = (s.leader + i) % 4;
    if (s.trick[seat] != engine::kNoCard)
      plays.push_back(absl::StrCat(SeatName(s, seat), " ", engine::CardName(s.trick[seat])));
  }
  ASSERT_FALSE(plays.empty());
  EXPECT_THAT(screen, HasSubstr("Trick: " + absl::StrJoin(plays, " · ")));
  EXPECT_THAT(screen, HasSubstr("<- to act"));  // this seat's clock runs
}

TEST_F(ScreenTest, TheTrixLayoutIsDrawnRowByRow) {
  ASSERT_TRUE(states_->playing_trix);
  const SeatState& s = *states_->playing_trix;
  const std::string screen = Draw(s, /*open=*/true);
  EXPECT_THAT(screen, HasSubstr("contract: Trix"));
  const char* const suits[] = {"Clubs", "Diamonds", "Hearts", "Spades"};
  for (int suit = 0; suit < 4; ++suit) {
    engine::CardSet row = s.layout & engine::SuitCards(static_cast<engine::Suit>(suit));
    std::vector<std::string> cards;
    while (row) cards.push_back(engine::CardName(engine::PopLowest(row)));
    const std::string text = cards.empty() ? "-" : absl::StrJoin(cards, " ");
    EXPECT_THAT(screen, HasSubstr(absl::StrFormat("  %-9s %s\n", suits[suit], text)));
  }
}

TEST_F(ScreenTest, TheContractMenuIsNumberedAndDoublingShowsTheSelection) {
  ASSERT_TRUE(states_->choosing);
  std::string screen = Draw(*states_->choosing, /*open=*/true);
  EXPECT_THAT(screen, HasSubstr("Your turn: choose a contract"));
  EXPECT_THAT(screen, HasSubstr(">1 "));
  EXPECT_THAT(screen, HasSubstr("[2 "));

  ASSERT_TRUE(states_->doubling);
  const SeatState& s = *states_->doubling;
  Chooser chooser;
  chooser.Begin(s);
  chooser.Handle({Key::kSpace});
  chooser.Handle({Key::kRight});
  ScreenInfo info;
  info.color = false;
  screen = absl::StrJoin(ScreenLines(s, chooser, info, absl::Now()), "\n");
  const std::string first = engine::CardName(chooser.cards()[0]);
  const std::string second = engine::CardName(chooser.cards()[1]);
  EXPECT_THAT(screen, HasSubstr("*" + first + "*"));
  EXPECT_THAT(screen, HasSubstr(">" + second + "<"));
  EXPECT_THAT(screen, HasSubstr("selected: " + first));
}

TEST_F(ScreenTest, TheClockCountsDownFromThePromptsDeadline) {
  SeatState s = *states_->playing_trick;
  const absl::Time now = absl::FromUnixSeconds(1000000);
  s.options.deadline = s.deadline = now + absl::Milliseconds(11200);
  Chooser chooser;
  chooser.Begin(s);
  ScreenInfo info;
  info.color = false;
  EXPECT_THAT(absl::StrJoin(ScreenLines(s, chooser, info, now), "\n"),
              HasSubstr("[12s left]"));
  EXPECT_THAT(absl::StrJoin(ScreenLines(s, chooser, info, now + absl::Seconds(5)), "\n"),
              HasSubstr("[7s left]"));
  EXPECT_THAT(absl::StrJoin(ScreenLines(s, chooser, info, now + absl::Seconds(60)), "\n"),
              HasSubstr("[0s left]"));
}

TEST_F(ScreenTest, TheEndShowsEverySeatsFinalScore) {
  const SeatState& s = states_->final_state;
  ASSERT_TRUE(s.game_over);
  const std::string screen = Draw(s, /*open=*/false);
  EXPECT_THAT(screen, HasSubstr("GAME OVER"));
  ASSERT_EQ(s.result.totals_size(), 4);
  for (int seat = 0; seat < 4; ++seat) {
    EXPECT_THAT(screen, HasSubstr(absl::StrFormat("  seat %d  %-30s %+6d", seat,
                                                  SeatName(s, seat), s.result.totals(seat))));
    // The seats' table agrees.
    EXPECT_EQ(s.seats[seat].total, s.result.totals(seat));
  }
  EXPECT_THAT(screen, HasSubstr(absl::StrFormat("You (seat 0) scored %+d.", s.result.totals(0))));
  EXPECT_THAT(screen, Not(HasSubstr("Your hand")));
}

// The person's Enter, typed on another thread, is the seat's decision.
TEST_F(ScreenTest, PersonBotAnswersWithTheKeysTyped) {
  SeatState s = *states_->playing_trick;
  s.options.deadline = absl::InfiniteFuture();
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PersonBot person(out, ScreenInfo{}, nullptr);
  person.Restart(s);
  std::optional<Decision> decision;
  std::thread seat([&] { decision = person.Decide(s); });
  ASSERT_TRUE(person.AwaitDeciding(absl::Minutes(1)));
  // Right then Enter, in pieces as a terminal may send them.
  person.Keys("\x1b[");
  person.Keys("C\r");
  seat.join();
  ASSERT_TRUE(decision);
  std::vector<engine::Card> legal;
  for (engine::CardSet l = s.options.legal; l;) legal.push_back(engine::PopLowest(l));
  EXPECT_EQ(decision->kind, Decision::Kind::kPlayCard);
  EXPECT_EQ(decision->card, legal[1]);
  std::fclose(out);
}

}  // namespace
}  // namespace trix::bots
