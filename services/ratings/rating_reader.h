// Reads of the ratings: a player's rating in every mode, many players' ratings in
// one mode, a mode's ladder (paged), and a player's history in a mode (paged).
// A player who never played a mode has the model's default rating, 0 games, and is
// provisional. Bots are rated like people but left off the ladders. The rules live
// here; the stored ratings and history in a RatingReadStore
// (store/rating_read_store.h: PostgreSQL, or in memory for tests).
//
//   PostgresRatingReadStore store(&pool);
//   RatingReader reader(&store, {.provisional_games = 10});
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
  int64_t outbox_id = 0;  // the game's: a player's history is in outbox order
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

class RatingReadStore;

class RatingReader {
 public:
  // `store` outlives the reader.
  RatingReader(RatingReadStore* store, ReaderOptions options)
      : store_(store), options_(options) {}

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
  // A stored rating with its provisional flag.
  PlayerRating Stored(PlayerRating rating) const;

  RatingReadStore* const store_;
  const ReaderOptions options_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_RATING_READER_H_
