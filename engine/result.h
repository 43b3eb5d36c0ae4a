// The end of a game: places, team totals, the winner, and the split of a staked
// pot, as docs/rules.md ("Winning", "Staked tables") defines them.
//
// Money is integers: a stake and a payout count the table's smallest currency unit.
// The rules split a pot by percentages, so a seat's exact share can be a fraction
// (three stakers tied for first of three share 100% / 3 each). PotShares gives the
// exact shares as fractions, and ResultOf rounds them to whole units with one
// deterministic rule, so that the payouts always add up to the pot exactly:
//   1. every seat gets its exact share rounded down;
//   2. the units left over (fewer than the seats whose share was rounded down) go
//      one each to those seats, the better placed first (a lower place), then the
//      lower seat number.
// A seat is therefore paid its exact share rounded down or up, never further off.
//
//   if (absl::Status s = ValidateStakes(stakes, max_stake); !s.ok()) return s;
//   GameResult r = ResultOf(variant, game.totals(), {100, 0, 300, 0});
//   r.payouts[seat];       // whole units each seat receives from the pot
//   r.shares[seat].value();  // the exact split (what the rule cases compare)
#ifndef TRIX_ENGINE_RESULT_H_
#define TRIX_ENGINE_RESULT_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/deal.h"
#include "engine/rules.h"

namespace trix::engine {

using Stakes = std::array<int64_t, kNumSeats>;
using Payouts = std::array<int64_t, kNumSeats>;

// The largest stake the engine accepts: four of them times 100 (percent) still fit
// an int64_t with room to spare. Tables set their own, lower maximum.
inline constexpr int64_t kMaxStake = 1'000'000'000'000'000;  // 10^15 units

// OK when every stake is 0 (not staking) to `max_stake` (at most kMaxStake);
// INVALID_ARGUMENT naming the seat otherwise.
absl::Status ValidateStakes(const Stakes& stakes, int64_t max_stake = kMaxStake);

// A seat's exact share of the pot: numerator / denominator units.
struct PotShare {
  int64_t numerator = 0;
  int64_t denominator = 1;  // > 0
  double value() const { return static_cast<double>(numerator) / denominator; }
};
using PotShares = std::array<PotShare, kNumSeats>;

struct GameResult {
  Scores totals{};
  // Solo: 1-based places, tied seats share the better place. Partner: the
  // winning team's seats are 1, the others 2; a draw puts everyone at 1.
  std::array<int, kNumSeats> places{};
  std::array<int32_t, 2> team_totals{};  // partner modes
  int winner_team = -1;                  // partner modes; -1 on a 0-0 draw
  PotShares shares{};                    // the exact split of the pot
  Payouts payouts{};                     // the split in whole units (sums to the pot)
};

// Expects stakes that ValidateStakes accepts.
GameResult ResultOf(const Variant& variant, const Scores& totals, const Stakes& stakes);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_RESULT_H_
