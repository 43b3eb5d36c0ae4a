#include "services/ratings/rate_case.h"

#include <cmath>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "services/ratings/openskill.h"

namespace trix::ratings {
namespace {

using nlohmann::json;

absl::StatusOr<double> Number(const json& j, absl::string_view what) {
  if (!j.is_number()) return absl::InvalidArgumentError(absl::StrCat(what, " is not a number"));
  return j.get<double>();
}

absl::Status ReadOptions(const json& j, RateOptions& o) {
  if (!j.is_object()) return absl::InvalidArgumentError("options is not an object");
  for (const auto& [key, value] : j.items()) {
    if (key == "limit_sigma" || key == "balance") {
      if (!value.is_boolean()) return absl::InvalidArgumentError(key + " is not a boolean");
      (key == "balance" ? o.balance : o.limit_sigma) = value.get<bool>();
      continue;
    }
    double* field = key == "tau"     ? &o.tau
                    : key == "mu"    ? &o.mu
                    : key == "sigma" ? &o.sigma
                    : key == "beta"  ? &o.beta
                    : key == "kappa" ? &o.kappa
                                     : nullptr;
    if (field == nullptr) return absl::InvalidArgumentError("unknown option " + key);
    absl::StatusOr<double> x = Number(value, key);
    if (!x.ok()) return x.status();
    *field = *x;
  }
  return absl::OkStatus();
}

absl::Status ReadNumbers(const json& j, absl::string_view what, std::vector<double>& out) {
  if (!j.is_array()) return absl::InvalidArgumentError(absl::StrCat(what, " is not an array"));
  for (const json& x : j) {
    absl::StatusOr<double> v = Number(x, what);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SkillTeam>> ReadTeams(const json& j, const RateOptions& o) {
  if (!j.is_array()) return absl::InvalidArgumentError("teams is not an array");
  std::vector<SkillTeam> teams;
  for (const json& team : j) {
    if (!team.is_array()) return absl::InvalidArgumentError("a team is not an array");
    SkillTeam players;
    for (const json& p : team) {
      if (!p.is_object()) return absl::InvalidArgumentError("a player is not an object");
      Skill s{o.mu, o.sigma};
      if (p.contains("mu")) {
        absl::StatusOr<double> mu = Number(p["mu"], "mu");
        if (!mu.ok()) return mu.status();
        s.mu = *mu;
      }
      if (p.contains("sigma")) {
        absl::StatusOr<double> sigma = Number(p["sigma"], "sigma");
        if (!sigma.ok()) return sigma.status();
        s.sigma = *sigma;
      }
      players.push_back(s);
    }
    teams.push_back(players);
  }
  return teams;
}

absl::StatusOr<std::vector<SkillTeam>> RateCase(const json& c) {
  if (!c.is_object()) return absl::InvalidArgumentError("a case is not an object");
  RateOptions o;
  if (c.contains("options")) {
    if (absl::Status s = ReadOptions(c["options"], o); !s.ok()) return s;
  }
  if (c.contains("ranks") && c.contains("scores")) {
    return absl::InvalidArgumentError("both ranks and scores");
  }
  if (c.contains("ranks")) {
    if (absl::Status s = ReadNumbers(c["ranks"], "ranks", o.ranks); !s.ok()) return s;
    if (o.ranks.empty()) return absl::InvalidArgumentError("ranks is empty");
  }
  if (c.contains("scores")) {
    if (absl::Status s = ReadNumbers(c["scores"], "scores", o.scores); !s.ok()) return s;
    if (o.scores.empty()) return absl::InvalidArgumentError("scores is empty");
  }
  if (!c.contains("teams")) return absl::InvalidArgumentError("no teams");
  absl::StatusOr<std::vector<SkillTeam>> teams = ReadTeams(c["teams"], o);
  if (!teams.ok()) return teams.status();
  absl::StatusOr<std::vector<SkillTeam>> rated = Rate(*teams, o);
  if (!rated.ok()) return rated.status();
  for (const SkillTeam& team : *rated) {
    for (const Skill& s : team) {
      if (!std::isfinite(s.mu) || !std::isfinite(s.sigma)) {
        return absl::InvalidArgumentError("the result is not finite (options out of range)");
      }
    }
  }
  return rated;
}

std::string Exact(double x) { return absl::StrFormat("%.17g", x); }

}  // namespace

std::string RateCaseLine(absl::string_view line) {
  const json c = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  const std::string id =
      c.is_object() && c.contains("id") ? c["id"].dump(-1, ' ', false, json::error_handler_t::replace)
                                        : "null";
  absl::StatusOr<std::vector<SkillTeam>> teams =
      c.is_discarded() ? absl::InvalidArgumentError("not JSON") : RateCase(c);
  if (!teams.ok()) {
    return absl::StrCat("{\"id\":", id, ",\"error\":",
                        json(std::string(teams.status().message())).dump(), "}");
  }
  std::string out = absl::StrCat("{\"id\":", id, ",\"teams\":[");
  for (size_t i = 0; i < teams->size(); ++i) {
    absl::StrAppend(&out, i ? ",[" : "[");
    for (size_t j = 0; j < (*teams)[i].size(); ++j) {
      const Skill& s = (*teams)[i][j];
      absl::StrAppend(&out, j ? "," : "", "{\"mu\":", Exact(s.mu), ",\"sigma\":", Exact(s.sigma),
                      "}");
    }
    absl::StrAppend(&out, "]");
  }
  absl::StrAppend(&out, "]}");
  return out;
}

}  // namespace trix::ratings
