// The records of a game as the table service keeps them: its seats, its log
// entries, its end, and what the store gives back. The table service owns their
// meaning; its store (services/table/store) keeps them without reading the opaque
// payloads.
#ifndef TRIX_SERVICES_TABLE_RECORDS_H_
#define TRIX_SERVICES_TABLE_RECORDS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace trix::table {

struct SeatRecord {
  std::string player_id;
  std::string display_name;
  bool bot = false;
  int64_t stake = 0;
  std::string token_hash;       // SHA-256 of the seat token, hex; never the token
};

// One entry of a game's log, in order.
struct LogEntry {
  int64_t index = 0;            // 0-based, dense: the n-th entry of the game
  int seat = -1;                // the acting seat, -1 for the server
  std::string request_id;       // the client's key, "" for server entries
  std::string payload;          // opaque: what happened
  std::string response;         // opaque: the answer given, repeated for a retry
  absl::Time time;
};

struct NewGame {
  std::string game_id;
  std::string request_id;       // CreateTable idempotency key
  std::string mode;             // "complex-partner", ...
  std::string config;           // opaque: the table's settings (rules, clocks, seed)
  std::array<SeatRecord, 4> seats;
  // The log's first entries (the first deal, from index 0), written with the
  // game, and the decision clock after them.
  std::vector<LogEntry> entries;
  std::optional<absl::Time> deadline;
};

// The end of a game, written in the same transaction as its last entries.
struct GameEnd {
  std::string result;           // opaque (JSON): totals, places, teams, payouts
  std::array<int32_t, 4> totals{};
  std::array<int32_t, 4> places{};
  std::string outbox_payload;   // what the ratings service consumes (JSON)
  // Ended with no result (a voided table): the seats keep no total or place
  // (NULL), whatever `totals` and `places` hold.
  bool voided = false;
};

struct AppendRequest {
  std::string game_id;
  std::vector<LogEntry> entries;  // consecutive indexes, continuing the log
  // The decision clock after these entries: the moment the autopilot acts, or
  // nullopt when no clock runs.
  std::optional<absl::Time> deadline;
  std::optional<GameEnd> end;
};

struct StoredGame {
  NewGame game;
  absl::Time created;
  std::vector<LogEntry> entries;
  std::optional<absl::Time> deadline;
  bool finished = false;
  std::string result;           // when finished
};

struct GameListing {
  std::string game_id;
  std::string mode;
  int seat = -1;
  int32_t total = 0;
  int32_t place = 0;
  std::string result;
  absl::Time created;
  std::optional<absl::Time> finished;
  // Opaque: pass the last listing's cursor as ListFinished's `before` for the
  // next page. Empty for active games.
  std::string cursor;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_RECORDS_H_
