// The end of a game: places, team totals, the winner, and the split of a staked
// pot, as RULES.md ("Winning", "Staked tables") defines them.
//
//   GameResult r = ResultOf(variant, game.totals(), {100, 0, 300, 0});
//   r.payouts[seat];  // what each seat receives from the pot
#ifndef TRIX_ENGINE_RESULT_H_
#define TRIX_ENGINE_RESULT_H_

#include <array>
#include <cstdint>

#include "engine/deal.h"
#include "engine/rules.h"

namespace trix::engine {

using Stakes = std::array<int64_t, kNumSeats>;

struct GameResult {
  Scores totals{};
  // Solo: 1-based places, tied seats share the better place. Partner: the
  // winning team's seats are 1, the others 2; a draw puts everyone at 1.
  std::array<int, kNumSeats> places{};
  std::array<int32_t, 2> team_totals{};  // partner modes
  int winner_team = -1;                  // partner modes; -1 on a 0-0 draw
  std::array<double, kNumSeats> payouts{};
};

GameResult ResultOf(const Variant& variant, const Scores& totals, const Stakes& stakes);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_RESULT_H_
