// What trix-table-demo plays: which tables (modes, who sits where, who stakes, which
// strategy plays each seat) and the CreateTable requests that open them. Kept apart
// from the process and network plumbing of table_demo_main.cc so it reads as the demo's
// script.
//
// Alice, Bob and Carol stand for people (bot = false, so they may stake); a
// trix-bot process plays for each of them as their app would. Alice sits at every
// table so that ListPlayerGames has something to list. Partner tables put the
// heuristic strategy on seats 0+2 against random on 1+3.
#ifndef TRIX_BOTS_DEMO_TABLE_PLAN_H_
#define TRIX_BOTS_DEMO_TABLE_PLAN_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trix/v1/table.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;

struct PlannedSeat {
  std::string player_id;
  std::string name;
  std::string strategy;  // "heuristic" or "random"
  bool bot = true;
  int64_t stake = 0;
};

struct PlannedTable {
  int index = 0;
  std::string mode;  // "complex-partner", ...
  bool staked = false;
  uint64_t seed = 0;
  std::array<PlannedSeat, 4> seats;
  // Filled once created.
  std::string id;
  std::vector<std::string> tokens;
};

struct TablePlan {
  int games = 3;
  std::vector<std::string> modes = {"complex-partner", "classic-solo", "complex-solo"};
  int staked = 1;  // index of the staked game; -1 for none
  int kingdoms = 4;
  v1::Clocks clocks;
  std::string run_id;  // makes player ids unique to this run
  uint64_t seed = 0;   // deals; 0 lets the server pick
};

absl::StatusOr<std::vector<PlannedTable>> PlanTables(const TablePlan& plan);
v1::CreateTableRequest CreateRequest(const TablePlan& plan, const PlannedTable& table);
// "  seat 0  Alice      heuristic  stake 100" lines.
std::vector<std::string> SeatingLines(const PlannedTable& table);

}  // namespace trix::bots

#endif  // TRIX_BOTS_DEMO_TABLE_PLAN_H_
