// The rating reads' storage (rating_reader.h), behind an interface so that the
// reader's rules can run without PostgreSQL (testing/memory_rating_read_store.h):
// the stored ratings (ratings.player_ratings) and their history
// (ratings.rating_history), as the outbox consumer wrote them. Each call is one
// read-only transaction. The ratings come back without `provisional`: the reader
// decides it.
//
//   absl::StatusOr<std::vector<PlayerRating>> r = store.ReadRatings("complex-solo", {"p1"});
#ifndef TRIX_SERVICES_RATINGS_STORE_RATING_READ_STORE_H_
#define TRIX_SERVICES_RATINGS_STORE_RATING_READ_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "services/ratings/rating_reader.h"

namespace trix::ratings {

// Where a ladder page starts: after the entry (display, player_id) in the
// ladder's order (display descending, then player id).
struct LadderCursor {
  int64_t display = 0;
  std::string player_id;
};

class RatingReadStore {
 public:
  virtual ~RatingReadStore() = default;

  // The player's stored ratings in `modes` (a mode never played is missing).
  virtual absl::StatusOr<std::vector<PlayerRating>> ReadPlayerRatings(
      const std::string& player_id, const std::vector<std::string>& modes) = 0;
  // The stored ratings of `player_ids` in `mode` (those never rated are missing).
  virtual absl::StatusOr<std::vector<PlayerRating>> ReadRatings(
      const std::string& mode, const std::vector<std::string>& player_ids) = 0;
  // Up to `limit` entries of the mode's ladder after `after`: people (no bots)
  // with at least `min_games` games, each ranked among them by display (equal
  // displays share a rank). From the history's storage (a standby's may lag).
  virtual absl::StatusOr<std::vector<LadderEntry>> ReadLadder(const std::string& mode,
                                                              int min_games,
                                                              const LadderCursor& after,
                                                              int limit) = 0;
  // Up to `limit` of the player's rating changes in the mode below outbox id
  // `before`, newest first. From the history's storage.
  virtual absl::StatusOr<std::vector<HistoryEntry>> ReadHistory(const std::string& player_id,
                                                                const std::string& mode,
                                                                int64_t before, int limit) = 0;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_RATING_READ_STORE_H_
