#include "services/ratings/rating_reader.h"

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/ratings/game_result.h"
#include "services/ratings/store/rating_read_store.h"

namespace trix::ratings {
namespace {

absl::Status CheckMode(const std::string& mode) {
  if (!IsKnownMode(mode)) return absl::InvalidArgumentError("mode is required (a known mode)");
  return absl::OkStatus();
}

absl::StatusOr<int> PageSize(int page_size) {
  if (page_size < 0 || page_size > 500) {
    return absl::InvalidArgumentError("page_size must be 0 to 500");
  }
  return page_size == 0 ? 50 : page_size;
}

}  // namespace

PlayerRating RatingReader::Newcomer(const std::string& player_id, const std::string& mode) const {
  PlayerRating r;
  r.player_id = player_id;
  r.mode = mode;
  r.skill = options_.newcomer;
  r.display = DisplayOf(r.skill);
  r.provisional = options_.provisional_games > 0;
  return r;
}

PlayerRating RatingReader::Stored(PlayerRating rating) const {
  rating.provisional = rating.games < options_.provisional_games;
  return rating;
}

absl::StatusOr<std::vector<PlayerRating>> RatingReader::PlayerRatings(
    const std::string& player_id) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  std::vector<PlayerRating> out;
  for (const char* mode : kModeNames) out.push_back(Newcomer(player_id, mode));
  absl::StatusOr<std::vector<PlayerRating>> stored = store_->ReadPlayerRatings(
      player_id, std::vector<std::string>(kModeNames.begin(), kModeNames.end()));
  if (!stored.ok()) return stored.status();
  for (const PlayerRating& p : *stored) {
    for (PlayerRating& o : out) {
      if (o.mode == p.mode) o = Stored(p);
    }
  }
  return out;
}

absl::StatusOr<std::vector<PlayerRating>> RatingReader::Ratings(
    const std::string& mode, const std::vector<std::string>& player_ids) {
  if (absl::Status s = CheckMode(mode); !s.ok()) return s;
  if (player_ids.size() > 1000) return absl::InvalidArgumentError("at most 1,000 player_ids");
  for (const std::string& id : player_ids) {
    if (id.empty()) return absl::InvalidArgumentError("an empty player_id");
  }
  absl::StatusOr<std::vector<PlayerRating>> stored = store_->ReadRatings(mode, player_ids);
  if (!stored.ok()) return stored.status();
  std::map<std::string, PlayerRating> found;
  for (const PlayerRating& p : *stored) found[p.player_id] = Stored(p);
  std::vector<PlayerRating> out;
  for (const std::string& id : player_ids) {
    auto it = found.find(id);
    out.push_back(it == found.end() ? Newcomer(id, mode) : it->second);
  }
  return out;
}

absl::StatusOr<LadderPage> RatingReader::Leaderboard(const std::string& mode, int page_size,
                                                     const std::string& page_token,
                                                     bool include_provisional) {
  if (absl::Status s = CheckMode(mode); !s.ok()) return s;
  absl::StatusOr<int> size = PageSize(page_size);
  if (!size.ok()) return size.status();
  // The token is the last entry shown: "<display>/<player id>".
  LadderCursor after{INT32_MAX + int64_t{1}, ""};
  if (!page_token.empty()) {
    std::pair<std::string, std::string> parts = absl::StrSplit(page_token, absl::MaxSplits('/', 1));
    if (!absl::SimpleAtoi(parts.first, &after.display) || parts.second.empty()) {
      return absl::InvalidArgumentError("bad page_token");
    }
    after.player_id = parts.second;
  }
  const int min_games = include_provisional ? 0 : options_.provisional_games;
  absl::StatusOr<std::vector<LadderEntry>> ladder =
      store_->ReadLadder(mode, min_games, after, *size + 1);
  if (!ladder.ok()) return ladder.status();
  LadderPage page;
  for (int i = 0; i < static_cast<int>(ladder->size()) && i < *size; ++i) {
    page.entries.push_back({(*ladder)[i].rank, Stored((*ladder)[i].rating)});
  }
  if (static_cast<int>(ladder->size()) > *size) {
    const PlayerRating& last = page.entries.back().rating;
    page.next_page_token = absl::StrCat(last.display, "/", last.player_id);
  }
  return page;
}

absl::StatusOr<HistoryPage> RatingReader::History(const std::string& player_id,
                                                  const std::string& mode, int page_size,
                                                  const std::string& page_token) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  if (absl::Status s = CheckMode(mode); !s.ok()) return s;
  absl::StatusOr<int> size = PageSize(page_size);
  if (!size.ok()) return size.status();
  int64_t before = INT64_MAX;
  if (!page_token.empty() && !absl::SimpleAtoi(page_token, &before)) {
    return absl::InvalidArgumentError("bad page_token");
  }
  absl::StatusOr<std::vector<HistoryEntry>> changes =
      store_->ReadHistory(player_id, mode, before, *size + 1);
  if (!changes.ok()) return changes.status();
  HistoryPage page;
  page.changes = std::move(*changes);
  if (static_cast<int>(page.changes.size()) > *size) {
    page.changes.resize(*size);
    page.next_page_token = absl::StrCat(page.changes.back().outbox_id);
  }
  return page;
}

}  // namespace trix::ratings
