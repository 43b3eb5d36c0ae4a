// What every game must keep, checked with GoogleTest expectations: the 52 cards
// are conserved, every deal hands out its contract's fixed total, every kingdom
// sums to zero, no seat or spectator is ever shown a card still hidden in another
// seat's hand, and a replayed log rebuilds the same game.
//
//   const size_t before = game.events().size();
//   ASSERT_OK(game.Apply(action));
//   ExpectCardsConserved(game);
//   ExpectNoHiddenCardShown(game, before);
#ifndef TRIX_ENGINE_TESTING_INVARIANTS_H_
#define TRIX_ENGINE_TESTING_INVARIANTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "engine/cards.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/rules.h"

namespace trix::engine {

// What a deal of `contract` hands out in all: -75, -100, -130, -195, -500, +500.
int32_t FixedTotal(Contract contract);
int32_t Sum(const Scores& scores);

// Each seat's hand now: as dealt while the contract is chosen or doubled, else
// what is left of it in the current (or just finished) deal.
Hands CurrentHands(const Game& game);
// Cards in hands that every viewer may see: doubles once revealed and, in
// partner Trix, the 2s shown.
CardSet PublicHandCards(const Game& game);

// Hands and played cards partition the 52 cards, and each hand is part of what
// its seat was dealt.
void ExpectCardsConserved(const Game& game);
// For every viewer (each seat and kSpectator): no event from `first_event` on
// that VisibleTo() lets it see, and nothing in Observe(game, viewer), names a card
// of another seat's hand that is not public; a seat's own hand is shown to it
// exactly when the rules say (not before the contract is announced).
void ExpectNoHiddenCardShown(const Game& game, size_t first_event);
// Every finished deal sums to its contract's fixed total, every finished kingdom
// to zero, and the totals to the sum of the deal scores.
void ExpectScoresAddUp(const Game& game);
// Applies `action` and expects it rejected with `code` and a message containing
// `message`, and the game left exactly as it was.
void ExpectRejected(Game& game, const Action& action, absl::StatusCode code,
                    absl::string_view message);
// Same phase, events, log, totals and deal scores.
void ExpectSameGame(const Game& expected, const Game& actual);

std::string DescribeEvent(const Event& event);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_TESTING_INVARIANTS_H_
