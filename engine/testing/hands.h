// Test data from text: cards, hands and rule sets written the way RULES.md and
// the conformance cases write them, and card lists played on a Deal or a Game.
// A typo in test data is a bug in the test, so the builders abort loudly instead
// of returning a status.
//
//   Hands hands = MakeHands("2C 3C ...", "...", "...", "...");
//   Deal deal(MakeRules(Team::kSolo, Format::kClassic), Contract::kQueens, 0, hands, {});
//   ASSERT_OK(PlayCards(deal, "2C 5C KC 9C"));
#ifndef TRIX_ENGINE_TESTING_HANDS_H_
#define TRIX_ENGINE_TESTING_HANDS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "engine/cards.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/rules.h"

namespace trix::engine {

// The card named `name` ("KH"); aborts on a bad name.
Card CardOf(absl::string_view name);
// Space separated card names; aborts on a bad or repeated name.
CardSet Cards(absl::string_view names);
// Four hands of 13 cards dealing the 52 cards once; aborts otherwise.
Hands MakeHands(absl::string_view seat0, absl::string_view seat1, absl::string_view seat2,
                absl::string_view seat3);
// Seat 0 holds every club, seat 1 every diamond, seat 2 every heart, seat 3 every
// spade.
Hands SuitHands();
// Seat (rank + suit) % 4 holds each card: every seat has some of every suit.
//   0: 2C 6C TC AC 5D 9D KD 4H 8H QH 3S 7S JS
//   1: 3C 7C JC 2D 6D TD AD 5H 9H KH 4S 8S QS
//   2: 4C 8C QC 3D 7D JD 2H 6H TH AH 5S 9S KS
//   3: 5C 9C KC 4D 8D QD 3H 7H JH 2S 6S TS AS
Hands StripedHands();
// For Complex: seat 0 holds QD and spades, seat 1 clubs and AD, seat 2 AC and
// hearts, seat 3 KH, AS and diamonds. Seat 1 leading 2C, seat 2 takes AC, AS and
// QD ("2C AC AS QD").
Hands QueenOfDiamondsHands();
// For King of Hearts (as in the conformance cases): seat 0 holds 2H and spades,
// seat 1 KH, 2S and clubs, seat 2 the other hearts, KC and AC, seat 3 diamonds.
Hands KingOfHeartsHands();
Rules MakeRules(Team team, Format format, const Options& options = {});
// The hands with `card` moved to `to` and `back` moved to its former holder.
Hands Swapped(const Hands& hands, Card card, int to, Card back);

// Plays the listed cards in order, each by the seat to play. Stops at the first
// card that cannot be played and returns its error, prefixed by its 0-based index.
absl::Status PlayCards(Deal& deal, absl::string_view plays);
absl::Status PlayCards(Game& game, absl::string_view plays);

// The seat holding `card`.
int HolderOf(const Hands& hands, Card card);

}  // namespace trix::engine

// Status checks that evaluate `expr` once and print the error on failure.
#define ASSERT_OK(expr)                             \
  do {                                              \
    const ::absl::Status trix_status_ = (expr);     \
    ASSERT_TRUE(trix_status_.ok()) << trix_status_; \
  } while (false)
#define EXPECT_OK(expr)                             \
  do {                                              \
    const ::absl::Status trix_status_ = (expr);     \
    EXPECT_TRUE(trix_status_.ok()) << trix_status_; \
  } while (false)

#endif  // TRIX_ENGINE_TESTING_HANDS_H_
