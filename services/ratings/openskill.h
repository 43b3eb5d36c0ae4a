// The Weng-Lin Bayesian rating update with the Plackett-Luce model, exactly as
// OpenSkill defines it (openskill.js 5.0.1 `rate()`, which openskill.py 6.2.0
// matches bit for bit). Every floating-point operation is done in the reference's
// order, so results agree to the last bit, not merely to a tolerance.
//
// A game is a list of teams (a solo Trix game: four teams of one; a partner game:
// two teams of two). Rate() applies tau to every sigma, orders the teams by rank
// (stable, ties keep input order), runs the model, and restores input order.
//
//   RateOptions o;
//   o.ranks = {1, 2, 2, 4};                 // lower is better; equal is a tie
//   absl::StatusOr<std::vector<Team>> after = Rate(before, o);
#ifndef TRIX_SERVICES_RATINGS_OPENSKILL_H_
#define TRIX_SERVICES_RATINGS_OPENSKILL_H_

#include <vector>

#include "absl/status/statusor.h"

namespace trix::ratings {

struct Skill {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
};
using SkillTeam = std::vector<Skill>;

// The model's settings (OpenSkill's names and defaults). mu and sigma are only the
// rating of a newcomer; the update itself does not read them.
struct RateOptions {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
  double beta = 25.0 / 6.0;
  double kappa = 0.0001;
  double tau = 25.0 / 300.0;  // 0 turns the dynamics off
  bool limit_sigma = false;   // sigma never rises (only when tau is not 0)
  bool balance = false;       // weaker team mates weigh more in the team rating
  double z = 3.0;             // the ordinal's z, alpha and target (balance uses them)
  double alpha = 1.0;
  double target = 0.0;
  // At most one of ranks (lower is better) and scores (higher is better), one per
  // team; neither means the teams are given in finishing order.
  std::vector<double> ranks;
  std::vector<double> scores;
};

// The update of a game; INVALID_ARGUMENT for no teams, an empty team, a rank or
// score count that is not the team count, or a number that is not finite (or a
// sigma that is not positive).
absl::StatusOr<std::vector<SkillTeam>> Rate(const std::vector<SkillTeam>& teams,
                                            const RateOptions& options);

// The Plackett-Luce model alone: teams already in finishing order, `ranks`
// non-decreasing (empty: every team its own place), no tau. Inputs are trusted.
std::vector<SkillTeam> PlackettLuce(const std::vector<SkillTeam>& teams,
                                    const std::vector<double>& ranks,
                                    const RateOptions& options);

// OpenSkill's ordinal: target + alpha * (mu - z * sigma).
double Ordinal(const Skill& skill, double z = 3.0, double alpha = 1.0, double target = 0.0);

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_OPENSKILL_H_
