// Booking of the games of a match through the services, and its report.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "bots/arena/service_match.h"

namespace trix::arena {
namespace {

std::string EstimateText(const Estimate& e) {
  return absl::StrFormat("%+8.1f ± %6.1f (%d)", e.mean, e.half_width, e.n);
}

nlohmann::json EstimateJson(const Estimate& e) {
  return {{"mean", e.mean},
          {"ci95_low", e.mean - e.half_width},
          {"ci95_high", e.mean + e.half_width},
          {"n", e.n}};
}

}  // namespace

absl::StatusOr<ServiceGame> BookGame(const v1::GameRecord& record,
                                     const std::array<std::string, 2>& people,
                                     const std::vector<std::string>& bot_ids,
                                     int people_side) {
  const v1::GameResult& r = record.result();
  if (record.seats_size() != 4 || r.totals_size() != 4) {
    return absl::FailedPreconditionError(
        absl::StrCat("game ", record.game_id(), " has no result"));
  }
  const bool partner = r.team_totals_size() == 2;
  int party_team = -1;
  std::array<int, 2> seat_totals{};  // the people's seats, the bots'
  std::vector<std::string> bots_seated;
  for (int s = 0; s < 4; ++s) {
    const v1::SeatAssignment& seat = record.seats(s);
    const bool person = seat.player_id() == people[0] || seat.player_id() == people[1];
    seat_totals[person ? 0 : 1] += r.totals(s);
    if (person) {
      if (partner && party_team >= 0 && party_team != s % 2) {
        return absl::FailedPreconditionError("the party does not sit as partners");
      }
      party_team = s % 2;
      continue;
    }
    const bool ours =
        std::find(bot_ids.begin(), bot_ids.end(), seat.player_id()) != bot_ids.end();
    if (!seat.bot() || !ours ||
        std::find(bots_seated.begin(), bots_seated.end(), seat.player_id()) !=
            bots_seated.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "seat ", s, " is held by ", seat.player_id(), ", not one of the bot accounts"));
    }
    bots_seated.push_back(seat.player_id());
  }
  if (party_team < 0 || bots_seated.size() != 2) {
    return absl::FailedPreconditionError("the party is not at the table");
  }
  ServiceGame game;
  game.table_id = record.game_id();
  game.people_side = people_side;
  game.team_points[people_side] = partner ? r.team_totals(party_team) : seat_totals[0];
  game.team_points[1 - people_side] = partner ? r.team_totals(1 - party_team) : seat_totals[1];
  return game;
}

Estimate ServiceMatchReport::Points(int side, int people) const {
  std::vector<double> samples;
  for (const ServiceGame& g : games) {
    if (people >= 0 && (g.people_side == side) != (people == 1)) continue;
    samples.push_back(g.team_points[side]);
  }
  return EstimateOf(samples);
}

Estimate ServiceMatchReport::Margin() const {
  std::vector<double> samples;
  for (const ServiceGame& g : games) samples.push_back(g.team_points[0] - g.team_points[1]);
  return EstimateOf(samples);
}

int ServiceMatchReport::Rated() const {
  return static_cast<int>(
      std::count_if(games.begin(), games.end(), [](const ServiceGame& g) { return g.rated; }));
}

std::string ServiceReportText(const ServiceMatchReport& report) {
  const ServiceMatchOptions& o = report.options;
  const int n = static_cast<int>(report.games.size());
  std::string out = absl::StrFormat(
      "%s through matchmaking: A=%s vs B=%s, %d games (%d rated, %d discarded and "
      "replayed), %d tables at once, %.1f s (%.1f s/game/table)\n",
      o.mode, o.a, o.b, n, report.Rated(), report.discarded, o.tables, report.seconds,
      n ? report.seconds * o.tables / n : 0.0);
  if (o.a == "search" || o.b == "search") {
    absl::StrAppend(&out, "search: ", o.search.samples, " samples, ",
                    absl::FormatDuration(o.search.budget), " per decision at most\n");
  }
  absl::StrAppend(&out,
                  "every seat an external trix-bot process; the party (two people) holds "
                  "one team, matchmaking's bot fill the other;\n"
                  "deals are the table service's own random seeds: they cannot be "
                  "duplicated through matchmaking, so luck is not cancelled\n");
  absl::StrAppend(&out, "team total per game, mean ± 95% CI (games)\n");
  absl::StrAppend(&out, absl::StrFormat("%-12s %26s %26s %26s\n", "", "all games",
                                        "as the party", "as bot accounts"));
  for (int side = 0; side < 2; ++side) {
    absl::StrAppend(&out, absl::StrFormat("%-12s %26s %26s %26s\n",
                                          absl::StrCat(side ? "B " : "A ", side ? o.b : o.a),
                                          EstimateText(report.Points(side)),
                                          EstimateText(report.Points(side, 1)),
                                          EstimateText(report.Points(side, 0))));
  }
  const Estimate margin = report.Margin();
  absl::StrAppend(&out, absl::StrFormat("%-12s %26s\n", "A - B", EstimateText(margin)));
  absl::StrAppend(&out, "result: ",
                  margin.Contains(0) ? "no significant difference"
                                     : (margin.mean > 0 ? "A better" : "B better"),
                  "\n");
  absl::StrAppend(&out, "bot accounts' ratings (ratings service, ", o.mode, ")\n");
  for (const BotAccountRating& b : report.bots) {
    absl::StrAppend(&out, absl::StrFormat(
                              "  %-24s %-10s display %5d  mu %6.2f  sigma %5.2f  %d games\n",
                              b.name, b.strategy, b.rating.display(), b.rating.mu(),
                              b.rating.sigma(), b.rating.games()));
  }
  return out;
}

nlohmann::json ServiceReportJson(const ServiceMatchReport& report) {
  const ServiceMatchOptions& o = report.options;
  nlohmann::json out = {{"mode", o.mode},
                        {"a", o.a},
                        {"b", o.b},
                        {"games", report.games.size()},
                        {"rated", report.Rated()},
                        {"discarded", report.discarded},
                        {"tables", o.tables},
                        {"seconds", report.seconds},
                        {"duplicate_deals", false},
                        {"per", "team and game"}};
  out["search"] = {{"samples", o.search.samples},
                   {"budget_ms", absl::ToDoubleMilliseconds(o.search.budget)}};
  for (int side = 0; side < 2; ++side) {
    out["points"][side ? "b" : "a"] = {{"all", EstimateJson(report.Points(side))},
                                       {"as_party", EstimateJson(report.Points(side, 1))},
                                       {"as_bots", EstimateJson(report.Points(side, 0))}};
  }
  out["points"]["margin"] = EstimateJson(report.Margin());
  for (const ServiceGame& g : report.games) {
    out["game_list"].push_back({{"table_id", g.table_id},
                                {"party", g.people_side ? "b" : "a"},
                                {"a", g.team_points[0]},
                                {"b", g.team_points[1]},
                                {"rated", g.rated},
                                {"seconds", g.seconds}});
  }
  for (const BotAccountRating& b : report.bots) {
    out["bot_accounts"].push_back({{"name", b.name},
                                   {"strategy", b.strategy},
                                   {"bot_id", b.bot_id},
                                   {"display", b.rating.display()},
                                   {"mu", b.rating.mu()},
                                   {"sigma", b.rating.sigma()},
                                   {"games", b.rating.games()}});
  }
  return out;
}

}  // namespace trix::arena
