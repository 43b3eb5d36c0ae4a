// What one outbox batch does, decided without the database: the pure middle of
// the consumer's read pending -> plan -> write (consumer.h).
//
// ParsePending reads the pending rows: each row not applied before (nor earlier in
// the same batch) is parsed into a finished game or kept with why it is not one.
// PlayersOf names the players whose ratings the plan needs; PlanBatch rates the
// games in outbox order from those ratings (the model's default for a player never
// rated), and plans each game's history rows and settlement (the ledger lines of
// a staked game, as if every stake were held by its seat's hold; the release of a
// voided table's holds). The write step settles each game as planned, checking the
// holds the database has (Ledger::Settle).
//
//   std::vector<PendingGame> games = ParsePending(rows, applied);
//   std::map<PlayerKey, StoredRating> ratings = ...;   // of PlayersOf(games)
//   BatchPlan plan = PlanBatch(games, ratings, model);
#ifndef TRIX_SERVICES_RATINGS_CONSUMER_PLAN_H_
#define TRIX_SERVICES_RATINGS_CONSUMER_PLAN_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/ratings/game_result.h"
#include "services/ratings/ledger.h"
#include "services/ratings/openskill.h"

namespace trix::ratings {

// Why a finished game is not rated when one player holds two of its seats.
inline constexpr char kPlayerInTwoSeats[] = "a player sat in two seats";

// A game_results row as read: its outbox id, its game and the payload.
struct OutboxRow {
  int64_t id = 0;
  std::string game_id;
  std::string payload;
};

using PlayerKey = std::pair<std::string, std::string>;  // mode, player id

// A player's rating as stored in ratings.player_ratings.
struct StoredRating {
  Skill skill;
  int games = 0;
};

// A player's rating through the batch.
struct PlayerState {
  Skill skill;
  int games = 0;
  bool bot = false;
  bool changed = false;  // rated in this batch: to be written
  bool stored = false;   // a row exists (UPDATE, not INSERT)
};

// One seat's rating history row of a rated game.
struct HistoryRow {
  std::string player_id, mode, game_id;
  int64_t outbox_id = 0;
  absl::Time finished;
  int seat = 0, place = 0;
  Skill before, after;
};

// A pending row not applied before: parsed, or why it is not a finished game.
struct PendingGame {
  OutboxRow row;
  absl::StatusOr<FinishedGame> game;
};

// What the batch does with one game.
struct GamePlan {
  OutboxRow row;
  absl::StatusOr<FinishedGame> game;  // not ok: quarantined, recorded unrated
  bool rated = false;
  // A finished game not rated: kPlayerInTwoSeats or the model's error ("" for a
  // voided one, and for one created unrated).
  std::string unrated_why;
  // Outcome "unstaked": nothing to settle; "unsettled" with the reason for a
  // quarantined row. Any other is written by Ledger::Settle.
  SettlementPlan settlement;
};

struct BatchPlan {
  std::vector<GamePlan> games;    // the rows not applied before, in id order
  std::vector<int64_t> consumed;  // every row of the batch, applied before or not
  std::map<PlayerKey, PlayerState> players;  // everyone in a game that rates
  std::vector<HistoryRow> history;
  int rated = 0, quarantined = 0;
};

// The rows (in id order) not among `applied` and not a game id met earlier in the
// batch, each parsed (its game_id the row's).
std::vector<PendingGame> ParsePending(const std::vector<OutboxRow>& rows,
                                      const std::set<std::string>& applied);

// The players of the parsed games that rate (FinishedGame::rates), by mode.
std::set<PlayerKey> PlayersOf(const std::vector<PendingGame>& games);

// The batch of `rows` and their `games` (ParsePending) rated from `ratings` (the
// stored ratings of PlayersOf(games); a player missing has the model's default).
BatchPlan PlanBatch(const std::vector<OutboxRow>& rows, std::vector<PendingGame> games,
                    const std::map<PlayerKey, StoredRating>& ratings,
                    const RateOptions& model);

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_CONSUMER_PLAN_H_
