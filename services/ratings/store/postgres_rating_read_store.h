// RatingReadStore on PostgreSQL (migrations/0007): a player's current ratings from
// the primary's pool, the ladders and the histories from the history's (a
// standby's, so they lag by its replay lag).
#ifndef TRIX_SERVICES_RATINGS_STORE_POSTGRES_RATING_READ_STORE_H_
#define TRIX_SERVICES_RATINGS_STORE_POSTGRES_RATING_READ_STORE_H_

#include "services/ratings/store/rating_read_store.h"
#include "services/pg/connection_pool.h"

namespace trix::ratings {

class PostgresRatingReadStore : public RatingReadStore {
 public:
  // The pools outlive the store; `history` null: `pool`.
  explicit PostgresRatingReadStore(pg::ConnectionPool* pool,
                                   pg::ConnectionPool* history = nullptr)
      : pool_(pool), history_(history != nullptr ? history : pool) {}

  absl::StatusOr<std::vector<PlayerRating>> ReadPlayerRatings(
      const std::string& player_id, const std::vector<std::string>& modes) override;
  absl::StatusOr<std::vector<PlayerRating>> ReadRatings(
      const std::string& mode, const std::vector<std::string>& player_ids) override;
  absl::StatusOr<std::vector<LadderEntry>> ReadLadder(const std::string& mode, int min_games,
                                                      const LadderCursor& after,
                                                      int limit) override;
  absl::StatusOr<std::vector<HistoryEntry>> ReadHistory(const std::string& player_id,
                                                        const std::string& mode,
                                                        int64_t before, int limit) override;

 private:
  pg::ConnectionPool* const pool_;
  pg::ConnectionPool* const history_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_POSTGRES_RATING_READ_STORE_H_
