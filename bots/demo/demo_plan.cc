#include "bots/demo/demo_plan.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "proto/wire/wire.h"

namespace trix::bots {

absl::StatusOr<DemoPlan> PlanDemo(const DemoOptions& o) {
  for (const std::string& mode : {o.partner_mode, o.solo_mode}) {
    if (!wire::ModeFromName(mode).ok()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown mode \"", mode, "\""));
    }
  }
  if (wire::ModeFromName(o.partner_mode)->team() != v1::TEAM_PARTNER) {
    return absl::InvalidArgumentError("the party's mode must be a partner mode");
  }
  if (o.stake < 0) return absl::InvalidArgumentError("the stake must not be negative");
  DemoPlan plan;
  plan.game_modes = {o.partner_mode, o.solo_mode, o.solo_mode};
  auto person = [&](const std::string& name, int game, int64_t stake) {
    DemoPerson p;
    p.player_id = absl::StrCat(absl::AsciiStrToLower(name), "-", o.run_id);
    p.name = name;
    p.strategy = o.person_strategy;
    p.mode = plan.game_modes[game];
    p.stake = stake;
    p.game = game;
    plan.people.push_back(p);
  };
  person("Alice", 0, 0);
  person("Bob", 0, 0);
  plan.people[0].partner = 1;
  plan.people[1].partner = 0;
  for (const char* name : {"Carol", "Dave", "Erin", "Frank"}) person(name, 1, o.stake);
  person("Grace", 2, 0);
  // Matchmaking seats one bot account at most once per table (each is rated as
  // one player), so Grace's table needs three accounts.
  plan.bots = {{absl::StrCat("Heuristic-", o.run_id), "heuristic"},
               {absl::StrCat("Searcher-", o.run_id), "search"},
               {absl::StrCat("Rookie-", o.run_id), "random"}};
  return plan;
}

v1::FindTableRequest FindRequest(const DemoPlan& plan, int index) {
  const DemoPerson& p = plan.people[index];
  v1::FindTableRequest request;
  request.set_request_id(absl::StrCat("find-", p.player_id));
  request.set_player_id(p.player_id);
  request.set_display_name(p.name);
  *request.mutable_mode() = *wire::ModeFromName(p.mode);
  request.set_stake(p.stake);
  return request;
}

}  // namespace trix::bots
