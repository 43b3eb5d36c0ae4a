#include "services/ratings/consumer_plan.h"

#include <utility>

namespace trix::ratings {
namespace {

// Rates `g`'s seats (OpenSkill, `model` with the game's ranks) from and into
// `plan.players`, adding their history rows. "" when rated, else why not: a player
// in two seats, or a rating that failed.
std::string RateGame(const FinishedGame& g, const RateOptions& model, BatchPlan& plan) {
  std::set<std::string> distinct;
  for (const FinishedSeat& s : g.seats) distinct.insert(s.player_id);
  if (distinct.size() != kSeats) return kPlayerInTwoSeats;
  const RatedGame shape = RatedGameOf(g);
  std::vector<SkillTeam> teams;
  for (const std::vector<int>& team : shape.teams) {
    SkillTeam t;
    for (int seat : team)
      t.push_back(plan.players[{g.mode, g.seats[seat].player_id}].skill);
    teams.push_back(t);
  }
  RateOptions o = model;
  o.ranks = shape.ranks;
  absl::StatusOr<std::vector<SkillTeam>> after = Rate(teams, o);
  if (!after.ok()) return after.status().ToString();
  for (size_t t = 0; t < shape.teams.size(); ++t) {
    for (size_t k = 0; k < shape.teams[t].size(); ++k) {
      const FinishedSeat& s = g.seats[shape.teams[t][k]];
      PlayerState& p = plan.players[{g.mode, s.player_id}];
      const Skill before = p.skill;
      p.skill = (*after)[t][k];
      ++p.games;
      p.changed = true;
      plan.history.push_back({s.player_id, g.mode, g.game_id, g.outbox_id, g.finished,
                              s.seat, s.place, before, p.skill});
    }
  }
  return "";
}

// Everyone in the games, from their stored rating or the model's default.
void SeatPlayers(const std::vector<PendingGame>& games,
                 const std::map<PlayerKey, StoredRating>& ratings,
                 const RateOptions& model, std::map<PlayerKey, PlayerState>& players) {
  for (const PendingGame& pending : games) {
    if (!pending.game.ok() || !pending.game->rates()) continue;
    for (const FinishedSeat& s : pending.game->seats) {
      const PlayerKey key{pending.game->mode, s.player_id};
      PlayerState& p = players[key];
      p.skill = {model.mu, model.sigma};
      p.bot = s.bot;
      const auto stored = ratings.find(key);
      if (stored == ratings.end()) continue;
      p.skill = stored->second.skill;
      p.games = stored->second.games;
      p.stored = true;
    }
  }
}

// One game's plan: quarantined, voided (its holds released), or settled and, unless
// created unrated, rated.
GamePlan PlanGame(PendingGame pending, const RateOptions& model, BatchPlan& plan) {
  GamePlan out{std::move(pending.row), std::move(pending.game)};
  if (!out.game.ok()) {
    ++plan.quarantined;
    out.settlement.settlement = {"unsettled", std::string(out.game.status().message())};
    return out;
  }
  const FinishedGame& g = *out.game;
  if (g.rates()) {
    out.unrated_why = RateGame(g, model, plan);
    out.rated = out.unrated_why.empty();
    ++(out.rated ? plan.rated : plan.quarantined);
  }
  out.settlement = PlanSettlement(g, ExpectedHolds(g));
  return out;
}

}  // namespace

std::vector<PendingGame> ParsePending(const std::vector<OutboxRow>& rows,
                                      const std::set<std::string>& applied) {
  std::vector<PendingGame> games;
  std::set<std::string> seen = applied;
  for (const OutboxRow& row : rows) {
    if (!seen.insert(row.game_id).second) continue;
    absl::StatusOr<FinishedGame> game = ParseFinishedGame(row.id, row.payload);
    if (game.ok())
      game->game_id = row.game_id;  // the outbox row's key is the game's identity
    games.push_back({row, std::move(game)});
  }
  return games;
}

std::set<PlayerKey> PlayersOf(const std::vector<PendingGame>& games) {
  std::set<PlayerKey> players;
  for (const PendingGame& pending : games) {
    if (!pending.game.ok() || !pending.game->rates()) continue;
    for (const FinishedSeat& s : pending.game->seats)
      players.insert({pending.game->mode, s.player_id});
  }
  return players;
}

BatchPlan PlanBatch(const std::vector<OutboxRow>& rows, std::vector<PendingGame> games,
                    const std::map<PlayerKey, StoredRating>& ratings,
                    const RateOptions& model) {
  BatchPlan plan;
  for (const OutboxRow& row : rows) plan.consumed.push_back(row.id);
  SeatPlayers(games, ratings, model, plan.players);
  for (PendingGame& pending : games)
    plan.games.push_back(PlanGame(std::move(pending), model, plan));
  return plan;
}

}  // namespace trix::ratings
