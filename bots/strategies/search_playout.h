// How the search strategy values a position once every hand is known (one sampled
// deal): a fast playout policy for all four seats, exact search near the end of a
// trick contract (alpha-beta for two teams, max^n for four solo seats), and an
// exact memoised solver of the Trix layout with a node budget.
//
// Everything here runs on copies of engine::Deal, the engine's own rule book, with
// no heap in the loops. Values are the points still to come from a position: the
// objective of a seat is its own score (solo) or its team's (partner). In solo the
// deal's total is fixed, so a seat's own score orders outcomes exactly as "own
// minus the others' average" does.
//
//   Deal d = ...;  // every hand known
//   Scores left = Playout(d);                   // the policy plays to the end
//   Scores exact = SolveTricks(d, /*partner=*/true);
#ifndef TRIX_BOTS_STRATEGIES_SEARCH_PLAYOUT_H_
#define TRIX_BOTS_STRATEGIES_SEARCH_PLAYOUT_H_

#include <cstdint>
#include <vector>

#include "engine/cards.h"
#include "engine/deal.h"

namespace trix::bots::search {

// What a seat wants: its own points, or its team's.
inline int32_t SeatValue(const engine::Scores& scores, int seat, bool partner) {
  return partner ? scores[seat] + scores[engine::PartnerOf(seat)] : scores[seat];
}

// The playout policy's card for the seat to play (the deal is not over). It sees
// every hand, but plays as a careful player does from its own: duck under the
// winning card, shed the costliest card when void, lead low from suits where
// others hold higher cards; in Trix, play where its own cards follow and keep the
// cards the others wait for.
engine::Card PolicyCard(const engine::Deal& deal, bool partner);

// Plays the deal to its end with PolicyCard; returns the scores from here on.
engine::Scores Playout(engine::Deal deal, bool partner);

// The exact outcome of a trick-contract deal (scores from here on), every seat
// playing its best for itself (solo) or its team (partner). Use only near the end.
engine::Scores SolveTricks(const engine::Deal& deal, bool partner);

// Exact Trix: memoised max^n over the layout (scores from here on). When
// `node_budget` nodes are spent, the positions still open are valued by playouts.
// The memo holds for one deal's hands: call NewHands() before solving positions of
// another (sampled) deal.
class TrixSolver {
 public:
  explicit TrixSolver(int log2_table = 15);
  void NewHands();
  engine::Scores Solve(const engine::Deal& deal, bool partner, int64_t node_budget);
  int64_t nodes() const { return nodes_; }

 private:
  struct Entry {
    uint64_t key = 0;
    uint32_t stamp = 0;
    engine::Scores value{};
  };
  engine::Scores Search(const engine::Deal& deal);
  Entry& Slot(uint64_t key);

  std::vector<Entry> table_;
  uint64_t mask_;
  uint32_t stamp_ = 0;
  bool partner_ = false;
  int64_t nodes_ = 0;
  int64_t budget_ = 0;
};

}  // namespace trix::bots::search

#endif  // TRIX_BOTS_STRATEGIES_SEARCH_PLAYOUT_H_
