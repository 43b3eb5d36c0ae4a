// The arena's counterpart through the real services: strategies A and B play a
// mode through matchmaking as external processes. Each game is a party of
// two "people", each seat played by its own trix-bot process (`--table`,
// `--token`) of one strategy, whose two empty seats matchmaking's bot fill gives
// to two bot accounts served by `trix-bot --matchmaking` processes of the other
// strategy (matchmaking seats an account at most once per table, so each strategy
// has two accounts). The first half of the games has A's people against B's bots,
// the second half the reverse, so that whatever differs between a party's seats
// and bot-filled ones cancels. Parties queue one at a time (two parties waiting
// together would be grouped at one table), several tables play at once. In a
// partner mode the party sits as partners and each strategy's total is its team's;
// in a solo mode it is the sum of its two seats' totals.
//
// Each finished game's result is read from the table service's record (the seats
// checked: the party opposite each other, the phase's two bot accounts in the
// other seats, no autopilot) and the ratings service is asked that it rated the
// game. Matchmaking deals every table from its own random seed: unlike the
// in-process arena, deals cannot be duplicated, so luck is not cancelled and the
// intervals are wider for the same number of games.
//
//   ServiceMatchOptions options{.matchmaking = "127.0.0.1:50053",
//                               .ratings = "127.0.0.1:50052", .service_token = t,
//                               .games = 40, .a = "search", .b = "heuristic"};
//   absl::StatusOr<ServiceMatchReport> report = PlayServiceMatch(options);
//   report->Margin();  // A's team total less B's, per game
#ifndef TRIX_BOTS_ARENA_SERVICE_MATCH_H_
#define TRIX_BOTS_ARENA_SERVICE_MATCH_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bots/arena/arena.h"
#include "bots/strategies/strategy.h"
#include "nlohmann/json.hpp"
#include "trix/v1/ratings.pb.h"
#include "trix/v1/table.pb.h"

namespace trix::arena {

struct ServiceMatchOptions {
  std::string matchmaking = "127.0.0.1:50053";
  std::string ratings = "127.0.0.1:50052";
  std::string service_token;
  std::string mode = "complex-partner";  // any mode
  int games = 40;  // half with A's people, half (rounded down) with B's
  int tables = 8;  // games played at once
  std::string a = "search";
  std::string b = "heuristic";
  bots::SearchOptions search;  // given to every trix-bot process
  std::string bot_binary;      // trix-bot
  std::string log_dir = "/tmp/trix-service-match";
  std::string run_id;          // names the accounts and players; unique per run
  absl::Duration timeout = absl::Hours(2);
  absl::Duration bot_connect_wait = absl::Seconds(2);
  int max_discarded = 10;      // games not played as planned, replayed; then fail
};

// One game played as planned, booked per strategy (A = 0, B = 1).
struct ServiceGame {
  std::string table_id;
  int people_side = 0;                // whose seats the party held
  std::array<int, 2> team_points{};   // each strategy's team total
  bool rated = false;                 // the ratings service rated it
  double seconds = 0;                 // from the party's assignment to the result
};

struct BotAccountRating {
  std::string name;
  std::string strategy;
  std::string bot_id;
  v1::Rating rating;
};

struct ServiceMatchReport {
  ServiceMatchOptions options;
  std::vector<ServiceGame> games;
  std::vector<BotAccountRating> bots;
  int discarded = 0;  // games that were not as planned (replayed)
  double seconds = 0;

  // A strategy's team total per game; with `people` 0 or 1, only the games in
  // which it held the party's seats (1) or the bot-filled ones (0).
  Estimate Points(int side, int people = -1) const;
  // A's team total less B's, per game.
  Estimate Margin() const;
  int Rated() const;
};

absl::StatusOr<ServiceMatchReport> PlayServiceMatch(const ServiceMatchOptions& options);

// Books a finished game's record: the party (`people`, its two player ids) must
// hold opposite seats and two distinct accounts of `bot_ids` the others.
absl::StatusOr<ServiceGame> BookGame(const v1::GameRecord& record,
                                     const std::array<std::string, 2>& people,
                                     const std::vector<std::string>& bot_ids,
                                     int people_side);

std::string ServiceReportText(const ServiceMatchReport& report);
nlohmann::json ServiceReportJson(const ServiceMatchReport& report);

}  // namespace trix::arena

#endif  // TRIX_BOTS_ARENA_SERVICE_MATCH_H_
