#include "bots/demo/table_plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

const char* const kBotNames[] = {"Dima", "Elias", "Farah", "Ghassan", "Hala", "Imad",
                                 "Jana", "Karim", "Lina",  "Maher",   "Nour", "Omar"};

}  // namespace

absl::StatusOr<std::vector<PlannedTable>> PlanTables(const TablePlan& plan) {
  if (plan.games < 1 || plan.games > 50) {
    return absl::InvalidArgumentError("the number of games must be 1..50");
  }
  if (plan.modes.empty()) return absl::InvalidArgumentError("no modes given");
  for (const std::string& mode : plan.modes) {
    if (absl::StatusOr<v1::Mode> m = wire::ModeFromName(mode); !m.ok()) return m.status();
  }
  std::vector<PlannedTable> tables;
  int bot_name = 0;
  for (int g = 0; g < plan.games; ++g) {
    PlannedTable t;
    t.index = g;
    t.mode = plan.modes[g % plan.modes.size()];
    t.staked = g == plan.staked;
    t.seed = plan.seed == 0 ? 0 : plan.seed + g;
    const std::string run = plan.run_id;
    // Seats 0 and 2 play heuristic, 1 and 3 random: in partner modes a team each.
    const char* const strategy[4] = {"heuristic", "random", "heuristic", "random"};
    t.seats[0] = {absl::StrCat("alice-", run), "Alice", strategy[0], false, 0};
    for (int s = 1; s < 4; ++s) {
      const char* name = kBotNames[bot_name++ % 12];
      t.seats[s] = {absl::StrCat("bot-", name, "-", run), name, strategy[s], true, 0};
    }
    if (t.staked) {
      // People stake, bots never do: Alice 100, Bob 50, Carol 300 (pot 450).
      t.seats[0].stake = 100;
      t.seats[1] = {absl::StrCat("bob-", run), "Bob", strategy[1], false, 50};
      t.seats[2] = {absl::StrCat("carol-", run), "Carol", strategy[2], false, 300};
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

v1::CreateTableRequest CreateRequest(const TablePlan& plan, const PlannedTable& table) {
  v1::CreateTableRequest request;
  request.set_request_id(absl::StrCat("demo-", plan.run_id, "-", table.index));
  request.set_public_spectating(true);  // the demo's table printer watches it
  *request.mutable_mode() = wire::ModeFromName(table.mode).value();
  request.mutable_rules()->set_kingdoms(plan.kingdoms);
  *request.mutable_clocks() = plan.clocks;
  for (const PlannedSeat& seat : table.seats) {
    v1::SeatAssignment* out = request.add_seats();
    out->set_player_id(seat.player_id);
    out->set_display_name(seat.name);
    out->set_bot(seat.bot);
    out->set_stake(seat.stake);
  }
  if (table.seed != 0) request.set_seed(table.seed);
  return request;
}

std::vector<std::string> SeatingLines(const PlannedTable& table) {
  std::vector<std::string> lines;
  for (int s = 0; s < 4; ++s) {
    const PlannedSeat& seat = table.seats[s];
    std::string line = absl::StrFormat("    seat %d  %-8s %-9s %-6s", s, seat.name,
                                       seat.strategy, seat.bot ? "bot" : "person");
    if (seat.stake > 0) absl::StrAppend(&line, "  stake ", seat.stake);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace trix::bots
