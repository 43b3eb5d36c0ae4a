#include "engine/result.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trix::engine {
namespace {

// Percent of the pot for each place among n stakers.
constexpr int kShares[kNumSeats + 1][kNumSeats] = {
    {0, 0, 0, 0}, {100, 0, 0, 0}, {100, 0, 0, 0}, {70, 30, 0, 0}, {60, 30, 10, 0}};

int64_t PotOf(const Stakes& stakes) {
  int64_t pot = 0;
  for (int64_t stake : stakes) pot += std::max<int64_t>(stake, 0);
  return pot;
}

PotShares SoloShares(const Scores& totals, const Stakes& stakes) {
  PotShares shares{};
  int stakers = 0;
  for (int64_t stake : stakes) stakers += stake > 0;
  const int64_t pot = PotOf(stakes);
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] <= 0) continue;
    if (stakers == 1) {
      shares[s] = {stakes[s], 1};
      continue;
    }
    // Place among the stakers, and how many stakers share it.
    int above = 0, tied = 0;
    for (int o = 0; o < kNumSeats; ++o) {
      if (stakes[o] <= 0) continue;
      if (totals[o] > totals[s]) ++above;
      if (totals[o] == totals[s]) ++tied;
    }
    int percent = 0;
    for (int p = above; p < above + tied; ++p) percent += kShares[stakers][p];
    shares[s] = {pot * percent, 100 * tied};
  }
  return shares;
}

PotShares PartnerShares(const Stakes& stakes, int winner_team) {
  PotShares shares{};
  int winners_staking = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    winners_staking += stakes[s] > 0 && TeamOf(s) == winner_team;
  }
  const int64_t pot = PotOf(stakes);
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] <= 0) continue;
    if (winners_staking == 0) {
      shares[s] = {stakes[s], 1};  // draw, or no winning staker
    } else if (TeamOf(s) == winner_team) {
      shares[s] = {pot, winners_staking};
    }
  }
  return shares;
}

// The rounding rule of result.h. The exact `shares` add up to `pot`.
Payouts RoundShares(const PotShares& shares, const std::array<int, kNumSeats>& places,
                    int64_t pot) {
  Payouts payouts{};
  std::array<int, kNumSeats> rounded_down{};
  int n = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    payouts[s] = shares[s].numerator / shares[s].denominator;
    pot -= payouts[s];
    if (shares[s].numerator % shares[s].denominator != 0) rounded_down[n++] = s;
  }
  // Better placed first, then the lower seat (the seats are in seat order already).
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && places[rounded_down[j]] < places[rounded_down[j - 1]]; --j) {
      std::swap(rounded_down[j], rounded_down[j - 1]);
    }
  }
  // The fractions rounded off add up to `pot` units, fewer than `n`.
  for (int i = 0; i < n && pot > 0; ++i, --pot) ++payouts[rounded_down[i]];
  return payouts;
}

}  // namespace

absl::Status ValidateStakes(const Stakes& stakes, int64_t max_stake) {
  max_stake = std::min(max_stake, kMaxStake);
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] < 0 || stakes[s] > max_stake) {
      return absl::InvalidArgumentError(absl::StrCat(
          "seat ", s, ": a stake must be 0 to ", max_stake, " units, not ", stakes[s]));
    }
  }
  return absl::OkStatus();
}

GameResult ResultOf(const Variant& variant, const Scores& totals, const Stakes& stakes) {
  GameResult result;
  result.totals = totals;
  if (variant.team == Team::kSolo) {
    for (int s = 0; s < kNumSeats; ++s) {
      result.places[s] = 1;
      for (int o = 0; o < kNumSeats; ++o) result.places[s] += totals[o] > totals[s];
    }
    result.shares = SoloShares(totals, stakes);
  } else {
    result.team_totals = {totals[0] + totals[2], totals[1] + totals[3]};
    if (result.team_totals[0] != result.team_totals[1]) {
      result.winner_team = result.team_totals[0] > result.team_totals[1] ? 0 : 1;
    }
    for (int s = 0; s < kNumSeats; ++s) {
      result.places[s] =
          (result.winner_team < 0 || TeamOf(s) == result.winner_team) ? 1 : 2;
    }
    result.shares = PartnerShares(stakes, result.winner_team);
  }
  result.payouts = RoundShares(result.shares, result.places, PotOf(stakes));
  return result;
}

}  // namespace trix::engine
