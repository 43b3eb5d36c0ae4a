#include "services/ratings/openskill.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace trix::ratings {
namespace {

struct TeamRating {
  double mu = 0;
  double sigma_sq = 0;
  int rank = 0;
};

// openskill.js util.ts `rankings`: each team's rank becomes the index of the first
// team with the same rank (input sorted).
std::vector<int> Rankings(size_t n, const std::vector<double>& ranks) {
  std::vector<int> out(n);
  int s = 0;
  for (size_t j = 0; j < n; ++j) {
    const double prev = j == 0 ? 0 : (ranks.empty() ? j - 1.0 : ranks[j - 1]);
    const double cur = ranks.empty() ? static_cast<double>(j) : ranks[j];
    if (j > 0 && prev < cur) s = static_cast<int>(j);
    out[j] = s;
  }
  return out;
}

std::vector<TeamRating> TeamRatings(const std::vector<SkillTeam>& game,
                                    const std::vector<double>& ranks,
                                    const RateOptions& o) {
  const std::vector<int> rank = Rankings(game.size(), ranks);
  std::vector<TeamRating> out(game.size());
  for (size_t i = 0; i < game.size(); ++i) {
    TeamRating& t = out[i];
    t.rank = rank[i];
    if (!o.balance) {
      for (const Skill& p : game[i]) {
        t.mu += p.mu;
        t.sigma_sq += p.sigma * p.sigma;
      }
      continue;
    }
    std::vector<double> ordinals;
    for (const Skill& p : game[i]) ordinals.push_back(o.target + o.alpha * (p.mu - o.z * p.sigma));
    const double max_ordinal = *std::max_element(ordinals.begin(), ordinals.end());
    const double denom = max_ordinal + o.kappa;
    for (size_t j = 0; j < game[i].size(); ++j) {
      const double factor = 1 + (max_ordinal - ordinals[j]) / denom;
      t.mu += game[i][j].mu * factor;
      const double s = game[i][j].sigma * factor;
      t.sigma_sq += s * s;
    }
  }
  return out;
}

absl::Status CheckFinite(double x, absl::string_view what) {
  if (!std::isfinite(x)) return absl::InvalidArgumentError(absl::StrCat(what, " is not finite"));
  return absl::OkStatus();
}

absl::Status Validate(const std::vector<SkillTeam>& teams, const RateOptions& o) {
  if (teams.empty()) return absl::InvalidArgumentError("no teams");
  if (!o.ranks.empty() && !o.scores.empty()) {
    return absl::InvalidArgumentError("both ranks and scores");
  }
  for (const auto* v : {&o.ranks, &o.scores}) {
    if (!v->empty() && v->size() != teams.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(v->size(), " ranks or scores for ", teams.size(), " teams"));
    }
    for (double x : *v) {
      if (absl::Status s = CheckFinite(x, "a rank or score"); !s.ok()) return s;
    }
  }
  for (double x : {o.beta, o.kappa, o.tau, o.z, o.alpha, o.target}) {
    if (absl::Status s = CheckFinite(x, "an option"); !s.ok()) return s;
  }
  for (const SkillTeam& team : teams) {
    if (team.empty()) return absl::InvalidArgumentError("an empty team");
    for (const Skill& p : team) {
      if (absl::Status s = CheckFinite(p.mu, "mu"); !s.ok()) return s;
      if (absl::Status s = CheckFinite(p.sigma, "sigma"); !s.ok()) return s;
      if (p.sigma <= 0) return absl::InvalidArgumentError("sigma is not positive");
    }
  }
  return absl::OkStatus();
}

}  // namespace

double Ordinal(const Skill& skill, double z, double alpha, double target) {
  return target + alpha * (skill.mu - z * skill.sigma);
}

std::vector<SkillTeam> PlackettLuce(const std::vector<SkillTeam>& game,
                                    const std::vector<double>& ranks,
                                    const RateOptions& o) {
  const std::vector<TeamRating> teams = TeamRatings(game, ranks, o);
  const size_t n = teams.size();
  const double beta_sq = o.beta * o.beta;
  double c_sum = 0;
  for (const TeamRating& t : teams) c_sum += t.sigma_sq + beta_sq;
  const double c = std::sqrt(c_sum);

  std::vector<double> sum_q(n, 0.0);
  std::vector<int> a(n, 0);
  for (size_t q = 0; q < n; ++q) {
    for (size_t i = 0; i < n; ++i) {
      if (teams[i].rank >= teams[q].rank) sum_q[q] += std::exp(teams[i].mu / c);
      if (teams[i].rank == teams[q].rank) ++a[q];
    }
  }

  std::vector<SkillTeam> out(n);
  for (size_t i = 0; i < n; ++i) {
    const TeamRating& ti = teams[i];
    const double i_mu_over_ce = std::exp(ti.mu / c);
    double omega_sum = 0;
    double delta_sum = 0;
    for (size_t q = 0; q < n; ++q) {
      if (teams[q].rank > ti.rank) continue;
      const double quotient = i_mu_over_ce / sum_q[q];
      omega_sum += (i == q ? 1 - quotient : -quotient) / a[q];
      delta_sum += (quotient * (1 - quotient)) / a[q];
    }
    const double i_gamma = std::sqrt(ti.sigma_sq) / c;
    const double i_omega = omega_sum * (ti.sigma_sq / c);
    const double i_delta = delta_sum * (ti.sigma_sq / (c * c)) * i_gamma;
    for (const Skill& p : game[i]) {
      const double share = p.sigma * p.sigma / ti.sigma_sq;
      out[i].push_back({p.mu + share * i_omega,
                        p.sigma * std::sqrt(std::max(1 - share * i_delta, o.kappa))});
    }
  }
  return out;
}

absl::StatusOr<std::vector<SkillTeam>> Rate(const std::vector<SkillTeam>& teams,
                                            const RateOptions& o) {
  if (absl::Status s = Validate(teams, o); !s.ok()) return s;
  const size_t n = teams.size();
  const double tau_sq = o.tau * o.tau;
  std::vector<SkillTeam> processed = teams;
  for (SkillTeam& team : processed) {
    for (Skill& p : team) p.sigma = std::sqrt(p.sigma * p.sigma + tau_sq);
  }
  std::vector<double> rank(n);
  for (size_t i = 0; i < n; ++i) {
    rank[i] = !o.ranks.empty() ? o.ranks[i] : !o.scores.empty() ? -o.scores[i] : i + 1.0;
  }
  // sort-unwind: a stable sort of the teams by rank, remembering where each came from.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return rank[x] < rank[y]; });
  std::vector<SkillTeam> ordered;
  std::vector<double> sorted_rank;
  for (size_t k : order) {
    ordered.push_back(processed[k]);
    sorted_rank.push_back(rank[k]);
  }
  std::vector<SkillTeam> rated = PlackettLuce(ordered, sorted_rank, o);
  std::vector<SkillTeam> out(n);
  for (size_t k = 0; k < n; ++k) out[order[k]] = std::move(rated[k]);
  if (o.tau != 0 && o.limit_sigma) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < out[i].size(); ++j) {
        out[i][j].sigma = std::min(out[i][j].sigma, teams[i][j].sigma);
      }
    }
  }
  return out;
}

}  // namespace trix::ratings
