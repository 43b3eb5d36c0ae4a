// What the local demo plays, as a game's players would: who queues for which mode
// through matchmaking, alone or as a party, free or at a stake, and which strategy
// plays each person's seat (a trix-bot process stands in for each person's app).
// Kept apart from the process and network plumbing of demo_main.cc so that it
// reads as the demo's script.
//
// The default script makes three tables: Alice and Bob queue as a party for
// complex-partner and sit opposite, two bot accounts fill the other seats (the
// watched table); Carol, Dave, Erin and Frank queue for complex-solo at a stake (a
// staked table seats people only, and the pot is settled in the ledger); Grace
// queues alone for `solo_mode` and bots fill the rest. Three bot accounts serve the
// bot seats: Heuristic, Searcher (search) and Rookie (random).
#ifndef TRIX_BOTS_DEMO_DEMO_PLAN_H_
#define TRIX_BOTS_DEMO_DEMO_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trix/v1/matchmaking.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;

struct DemoPerson {
  std::string player_id;
  std::string name;
  std::string strategy;  // what plays the person's seat
  std::string mode;      // "complex-partner", ...
  int64_t stake = 0;
  int partner = -1;      // index of the party's other member, or -1
  int game = 0;          // which of the plan's games the person queues for
};

struct DemoBot {
  std::string name;      // the bot account's name (unique per run)
  std::string strategy;
};

struct DemoPlan {
  std::vector<DemoPerson> people;
  std::vector<DemoBot> bots;
  std::vector<std::string> game_modes;  // by game index
  int64_t credit = 1000;                // credited to every person first
};

struct DemoOptions {
  std::string run_id;                   // makes player ids and bot names unique
  std::string partner_mode = "complex-partner";
  std::string solo_mode = "complex-solo";
  int64_t stake = 100;                  // 0: the staked game is played free
  std::string person_strategy = "heuristic";
};

absl::StatusOr<DemoPlan> PlanDemo(const DemoOptions& options);
// The FindTable request of one person (party id filled by the caller).
v1::FindTableRequest FindRequest(const DemoPlan& plan, int person);

}  // namespace trix::bots

#endif  // TRIX_BOTS_DEMO_DEMO_PLAN_H_
