#include "services/ratings/testing/memory_rating_read_store.h"

#include <algorithm>

namespace trix::ratings {

void MemoryRatingReadStore::AddIfStored(const std::string& mode, const std::string& player_id,
                                        std::vector<PlayerRating>& out) {
  const auto row = ratings_.find({mode, player_id});
  if (row != ratings_.end()) out.push_back(row->second.rating);
}

absl::StatusOr<std::vector<PlayerRating>> MemoryRatingReadStore::ReadPlayerRatings(
    const std::string& player_id, const std::vector<std::string>& modes) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PlayerRating> out;
  for (const std::string& mode : modes) AddIfStored(mode, player_id, out);
  return out;
}

absl::StatusOr<std::vector<PlayerRating>> MemoryRatingReadStore::ReadRatings(
    const std::string& mode, const std::vector<std::string>& player_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PlayerRating> out;
  for (const std::string& id : player_ids) AddIfStored(mode, id, out);
  return out;
}

std::vector<MemoryRatingReadStore::Row> MemoryRatingReadStore::LadderOf(
    const std::string& mode, int min_games) {
  std::vector<Row> rows;
  for (const auto& [key, row] : ratings_) {
    if (key.first == mode && !row.bot && row.rating.games >= min_games) rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_pair(-a.rating.display, a.rating.player_id) <
           std::make_pair(-b.rating.display, b.rating.player_id);
  });
  return rows;
}

absl::StatusOr<std::vector<LadderEntry>> MemoryRatingReadStore::ReadLadder(
    const std::string& mode, int min_games, const LadderCursor& after, int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::vector<Row> rows = LadderOf(mode, min_games);
  std::vector<LadderEntry> out;
  int64_t rank = 0;
  for (size_t i = 0; i < rows.size() && static_cast<int>(out.size()) < limit; ++i) {
    const PlayerRating& r = rows[i].rating;
    // Equal displays share the rank of the first of them.
    if (i == 0 || r.display != rows[i - 1].rating.display) rank = static_cast<int64_t>(i) + 1;
    if (r.display > after.display ||
        (r.display == after.display && r.player_id <= after.player_id)) {
      continue;
    }
    out.push_back({rank, r});
  }
  return out;
}

absl::StatusOr<std::vector<HistoryEntry>> MemoryRatingReadStore::ReadHistory(
    const std::string& player_id, const std::string& mode, int64_t before, int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<HistoryEntry> out;
  for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
    const auto& [p, m, outbox_id] = it->first;
    if (static_cast<int>(out.size()) == limit) break;
    if (p == player_id && m == mode && outbox_id < before) out.push_back(it->second);
  }
  return out;
}

void MemoryRatingReadStore::Put(const PlayerRating& rating, bool bot) {
  std::lock_guard<std::mutex> lock(mu_);
  ratings_[{rating.mode, rating.player_id}] = {rating, bot};
}

void MemoryRatingReadStore::AddHistory(const std::string& player_id, const std::string& mode,
                                       const HistoryEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  history_[{player_id, mode, entry.outbox_id}] = entry;
}

}  // namespace trix::ratings
