// RatingReadStore in memory, for tests of the rating reads without PostgreSQL; the
// contract test (store/rating_read_store_contract_test.cc) runs the same cases on
// it and on PostgresRatingReadStore. Put and AddHistory stand for what the outbox
// consumer writes.
//
//   MemoryRatingReadStore store;
//   store.Put({.player_id = "p1", .mode = "complex-solo", .display = 1500, .games = 12});
//   RatingReader reader(&store, {});
#ifndef TRIX_SERVICES_RATINGS_TESTING_MEMORY_RATING_READ_STORE_H_
#define TRIX_SERVICES_RATINGS_TESTING_MEMORY_RATING_READ_STORE_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "services/ratings/store/rating_read_store.h"

namespace trix::ratings {

class MemoryRatingReadStore : public RatingReadStore {
 public:
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

  // A stored rating (its provisional flag is not kept), a bot's or a person's.
  void Put(const PlayerRating& rating, bool bot = false);
  // A change of the player's rating in the mode (entry.outbox_id its key).
  void AddHistory(const std::string& player_id, const std::string& mode,
                  const HistoryEntry& entry);

 private:
  struct Row {
    PlayerRating rating;
    bool bot = false;
  };
  // The player's stored rating in the mode onto `out`, if there is one.
  void AddIfStored(const std::string& mode, const std::string& player_id,
                   std::vector<PlayerRating>& out);
  // The rows the ladder of `mode` ranks, in its order.
  std::vector<Row> LadderOf(const std::string& mode, int min_games);

  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, Row> ratings_;  // by mode, player
  std::map<std::tuple<std::string, std::string, int64_t>, HistoryEntry> history_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_MEMORY_RATING_READ_STORE_H_
