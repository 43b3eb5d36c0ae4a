// Reads of the ratings: a player's rating in every mode, many players' ratings in
// one mode, a mode's ladder (paged), and a player's history in a mode (paged).
// A player who never played a mode has the model's default rating, 0 games, and is
// provisional. Bots are rated like people but left off the ladders.
//
//   RatingReader reader(&pool, {.provisional_games = 10});
//   absl::StatusOr<std::vector<PlayerRating>> all = reader.PlayerRatings("p1");
#ifndef TRIX_SERVICES_RATINGS_RATING_READER_H_
#define TRIX_SERVICES_RATINGS_RATING_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/ratings/display.h"
#include "services/ratings/openskill.h"
#include "services/storage/connection_pool.h"

namespace trix::ratings {

struct PlayerRating {
  std::string player_id;
  std::string mode;
  Skill skill;
  int32_t display = 0;
  int32_t games = 0;
  bool provisional = true;
};

struct LadderEntry {
  int64_t rank = 0;
  PlayerRating rating;
};

struct LadderPage {
  std::vector<LadderEntry> entries;
  std::string next_page_token;
};

struct HistoryEntry {
  std::string game_id;
  absl::Time finished;
  int seat = 0;
  int place = 0;
  Skill before, after;
  int32_t display_before = 0, display_after = 0;
};

struct HistoryPage {
  std::vector<HistoryEntry> changes;
  std::string next_page_token;
};

struct ReaderOptions {
  int provisional_games = kDefaultProvisionalGames;
  Skill newcomer;  // the model's mu and sigma
};

class RatingReader {
 public:
  // The ladders and the histories are read from `history` (a standby's pool, so
  // they lag by its replay lag), or from `pool` when it is null; a player's current
  // ratings always from `pool`.
  RatingReader(storage::ConnectionPool* pool, ReaderOptions options,
               storage::ConnectionPool* history = nullptr)
      : pool_(pool), history_(history != nullptr ? history : pool), options_(options) {}

  // Modes are names ("complex-partner"); an unknown one is INVALID_ARGUMENT.
  absl::StatusOr<std::vector<PlayerRating>> PlayerRatings(const std::string& player_id);
  absl::StatusOr<std::vector<PlayerRating>> Ratings(const std::string& mode,
                                                    const std::vector<std::string>& player_ids);
  // page_size 0 means 50, at most 500.
  absl::StatusOr<LadderPage> Leaderboard(const std::string& mode, int page_size,
                                         const std::string& page_token, bool include_provisional);
  absl::StatusOr<HistoryPage> History(const std::string& player_id, const std::string& mode,
                                      int page_size, const std::string& page_token);

 private:
  PlayerRating Newcomer(const std::string& player_id, const std::string& mode) const;

  storage::ConnectionPool* const pool_;
  storage::ConnectionPool* const history_;
  const ReaderOptions options_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_RATING_READER_H_
