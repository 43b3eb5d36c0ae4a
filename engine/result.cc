#include "engine/result.h"

namespace trix::engine {
namespace {

// Percent of the pot for each place among n stakers.
constexpr int kShares[kNumSeats + 1][kNumSeats] = {
    {0, 0, 0, 0}, {100, 0, 0, 0}, {100, 0, 0, 0}, {70, 30, 0, 0}, {60, 30, 10, 0}};

void SplitSolo(const Scores& totals, const Stakes& stakes, GameResult& result) {
  int stakers = 0;
  double pot = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] > 0) {
      ++stakers;
      pot += static_cast<double>(stakes[s]);
    }
  }
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] <= 0) continue;
    if (stakers == 1) {
      result.payouts[s] = static_cast<double>(stakes[s]);
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
    result.payouts[s] = pot * percent / 100.0 / tied;
  }
}

void SplitPartner(const Stakes& stakes, GameResult& result) {
  double pot = 0;
  int winners_staking = 0;
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] > 0) pot += static_cast<double>(stakes[s]);
    if (stakes[s] > 0 && TeamOf(s) == result.winner_team) ++winners_staking;
  }
  for (int s = 0; s < kNumSeats; ++s) {
    if (stakes[s] <= 0) continue;
    if (winners_staking == 0) {
      result.payouts[s] = static_cast<double>(stakes[s]);  // draw, or no winning staker
    } else if (TeamOf(s) == result.winner_team) {
      result.payouts[s] = pot / winners_staking;
    }
  }
}

}  // namespace

GameResult ResultOf(const Variant& variant, const Scores& totals, const Stakes& stakes) {
  GameResult result;
  result.totals = totals;
  if (variant.team == Team::kSolo) {
    for (int s = 0; s < kNumSeats; ++s) {
      result.places[s] = 1;
      for (int o = 0; o < kNumSeats; ++o) result.places[s] += totals[o] > totals[s];
    }
    SplitSolo(totals, stakes, result);
    return result;
  }
  result.team_totals = {totals[0] + totals[2], totals[1] + totals[3]};
  if (result.team_totals[0] != result.team_totals[1]) {
    result.winner_team = result.team_totals[0] > result.team_totals[1] ? 0 : 1;
  }
  for (int s = 0; s < kNumSeats; ++s) {
    result.places[s] = (result.winner_team < 0 || TeamOf(s) == result.winner_team) ? 1 : 2;
  }
  SplitPartner(stakes, result);
  return result;
}

}  // namespace trix::engine
