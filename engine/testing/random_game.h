// Games played by chance for property and robustness tests: random rule sets,
// random legal actions (random contracts, random doubles, random cards), and the
// autopilot finishing a deal for tests that only care about its setup.
//
//   Rng rng(seed);
//   Game game(RandomRules(rng));
//   while (game.phase() != Phase::kGameOver) {
//     ASSERT_OK(game.Apply(RandomLegalAction(game, seed, rng)));
//   }
#ifndef TRIX_ENGINE_TESTING_RANDOM_GAME_H_
#define TRIX_ENGINE_TESTING_RANDOM_GAME_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/random.h"
#include "engine/rules.h"

namespace trix::engine {

// Every house-rule option drawn at random (kingdoms 1..4).
Options RandomOptions(Rng& rng);
// One of the four modes with random options.
Rules RandomRules(Rng& rng);

// A legal action drawn at random for the game as it stands (which must not be
// over): the hands ShuffledHands(seed, deals_started()) while dealing, an
// available contract, a random seat not yet ready selecting a random subset of its
// doublable cards or declaring ready, or a legal card of the seat to play.
Action RandomLegalAction(const Game& game, uint64_t seed, Rng& rng);

// Random doubles for a deal: each holder doubles a random subset of its
// doublable cards.
Hands RandomDoubles(const Hands& hands, Contract contract, const Options& options,
                    Rng& rng);
// Plays random legal cards until the deal is over; returns them in order.
std::vector<Card> PlayOutRandomly(Deal& deal, Rng& rng);

// Deals `hands` and, when the owner has a choice, picks `contract` for it.
absl::Status DealAndChoose(Game& game, const Hands& hands, Contract contract);
// Every seat not yet ready declares ready (doubling phase only).
absl::Status AllReady(Game& game);
// Plays the rest of the current deal with the autopilot (readying every seat while
// doubling). Returns the first error, which would be an engine bug.
absl::Status FinishDealByAutopilot(Game& game);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_TESTING_RANDOM_GAME_H_
