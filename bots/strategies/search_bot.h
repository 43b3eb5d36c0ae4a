// SearchBot: determinized sampling (PIMC). For every decision it deals the hidden
// cards many times, each time consistently with everything the seat has seen
// (search_belief.h), values each option on each deal with every hand open
// (search_playout.h), and takes the option with the best average:
//   - a card: each legal card is played on the rebuilt deal, then the policy plays
//     it out; near the end of a trick contract the rest is searched exactly
//     (alpha-beta for two teams, max^n for four solo seats), and the Trix layout is
//     solved exactly with a memo once few cards are left;
//   - a contract: random deals of the other 39 cards are played out under each
//     contract left, and the contract that beats its own usual outcome (the average
//     over random hands, measured once) by the most is chosen;
//   - doubling: every selection of the seat's doublable cards is played out on the
//     same deals, the others doubling as the heuristic would.
// The objective is the seat's own score in solo (the deal's total is fixed, so this
// is also "own minus the others' average") and the team's in partner modes.
// Each decision stops at its sample count or its time budget, whichever is first;
// without its full history (joined mid-deal) it plays the heuristic's card.
//
//   SearchOptions options;
//   options.budget = absl::Milliseconds(50);
//   SearchBot bot(/*seed=*/7, options);
#ifndef TRIX_BOTS_STRATEGIES_SEARCH_BOT_H_
#define TRIX_BOTS_STRATEGIES_SEARCH_BOT_H_

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/time/time.h"
#include "bots/sdk/bot.h"
#include "bots/strategies/heuristic_bot.h"
#include "bots/strategies/search_belief.h"
#include "bots/strategies/search_playout.h"
#include "engine/random.h"

namespace trix::bots {

struct SearchOptions {
  // Per decision: sampled deals at most, and the time to stop sampling at.
  int samples = 400;
  int min_samples = 16;
  absl::Duration budget = absl::Milliseconds(60);
  // Trick contracts: search exactly once this many cards are left in the hands.
  int exact_trick_cards = 12;
  // Trix: solve exactly once this many cards are left, with this many nodes per
  // solve at most.
  int exact_trix_cards = 24;
  int64_t trix_nodes = 3000;
  // Contract choice and doubling: deals per option.
  int contract_samples = 500;
  int double_samples = 200;
};

// Milliseconds each decision took, by phase, for measurements.
struct SearchTimings {
  std::vector<double> contract, doubling, trick_card, trix_card;
};

class SearchBot : public Bot {
 public:
  explicit SearchBot(uint64_t seed, const SearchOptions& options = SearchOptions());
  void Restart(const SeatState& state) override;
  void Observe(const v1::Event& event, const SeatState& state) override;
  Decision Decide(const SeatState& state) override;

  const SearchTimings& timings() const { return timings_; }

 private:
  engine::Contract ChooseContract(const SeatState& state);
  engine::CardSet ChooseDoubles(const SeatState& state);
  engine::Card ChooseCard(const SeatState& state);
  // The final scores of `deal` (every hand known) as the search values them.
  engine::Scores Evaluate(const engine::Deal& deal, bool partner);
  // The usual value of `contract` to its owner, over random hands.
  double UsualValue(const engine::Rules& rules, engine::Contract contract);
  // A uniform deal of the cards other than `hand` to the other seats.
  engine::Hands RandomDeal(int seat, engine::CardSet hand);

  SearchOptions options_;
  engine::Rng rng_;
  search::DealHistory history_;
  search::TrixSolver trix_;
  HeuristicBot fallback_;
  std::map<int, double> usual_;  // by variant and contract
  SearchTimings timings_;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_SEARCH_BOT_H_
