// Finished games written straight into the table service's outbox (a games row and
// its game_results row, as the table service's last transaction writes them), for
// tests and the load tool. The payload is the row the table service writes
// (proto/wire/outbox_row.h) for a finished game, or for a voided table when
// void_reason is set; a seat whose payout is not a JSON integer (6.5, or 10.0)
// makes it a row as written while payouts were floating point. Solo games' totals agree with their
// places (the better placed scored more), as the engine's payout rule reads them.
//
//   OutboxGame g = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4});
//   g.seats[0].stake = 100; ...
//   WriteOutboxGames(connection, {g});
//   HoldStakes(ledger, OutboxGame::StakedSolo("g2"));
#ifndef TRIX_SERVICES_RATINGS_TESTING_OUTBOX_GAMES_H_
#define TRIX_SERVICES_RATINGS_TESTING_OUTBOX_GAMES_H_

#include <array>
#include <cstdint>
#include <pqxx/connection>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "services/ratings/ledger.h"

namespace trix::ratings {

struct OutboxSeat {
  std::string player_id;
  bool bot = false;
  int64_t stake = 0;
  int64_t total = 0;
  int place = 1;
  nlohmann::json payout = 0;  // a JSON number: tests send non-integral ones too
};

struct OutboxGame {
  std::string game_id;
  std::string mode = "complex-solo";
  int64_t finished_unix_ms = 1700000000000;
  std::array<OutboxSeat, 4> seats;
  // Set: the row of a voided table instead (no result; the contract's shape).
  std::string void_reason;
  bool unrated = false;  // a game created unrated (FinishedGame.unrated)

  static OutboxGame Solo(std::string id, std::array<std::string, 4> players,
                         std::array<int, 4> places);
  // a, b, c and d placed 1..4 at a solo table, each staking 100: paid 240, 120, 40
  // and 0 (60/30/10/0 of the pot).
  static OutboxGame StakedSolo(std::string id);
  // Partner: seats 0+2 against 1+3; winner 0 or 1, or -1 for a draw.
  static OutboxGame Partner(std::string id, std::array<std::string, 4> players, int winner);

  std::string Payload() const;
};

// Each staked seat's player credited `credit` and the seat's stake held and
// attached to the game's table and seat through `ledger`, under the request ids
// "<game id>-<seat>"; the first error stops it.
absl::Status HoldStakes(Ledger& ledger, const OutboxGame& game, int64_t credit = 1000);

// Inserts the games (one statement each for games and game_results, in order).
// Throws what libpqxx throws.
void WriteOutboxGames(pqxx::connection& connection, const std::vector<OutboxGame>& games);

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_OUTBOX_GAMES_H_
