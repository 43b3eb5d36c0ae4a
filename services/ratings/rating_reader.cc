#include "services/ratings/rating_reader.h"

#include <map>
#include <pqxx/pqxx>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/ratings/game_result.h"
#include "services/storage/pg_array.h"

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

constexpr char kRatingColumns[] = "player_id, mode, mu, sigma, display, games";

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

namespace {
PlayerRating FromRow(const pqxx::row& r, int provisional_games) {
  PlayerRating p;
  p.player_id = r[0].as<std::string>();
  p.mode = r[1].as<std::string>();
  p.skill = {r[2].as<double>(), r[3].as<double>()};
  p.display = r[4].as<int>();
  p.games = r[5].as<int>();
  p.provisional = p.games < provisional_games;
  return p;
}
}  // namespace

absl::StatusOr<std::vector<PlayerRating>> RatingReader::PlayerRatings(
    const std::string& player_id) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  std::vector<PlayerRating> out;
  for (const char* mode : kModeNames) out.push_back(Newcomer(player_id, mode));
  storage::PgArray modes(storage::PgType::kText);
  for (const char* mode : kModeNames) modes.AddString(mode);
  absl::Status s = pool_->Run("reading ratings", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             absl::StrCat("SELECT ", kRatingColumns,
                          " FROM ratings.player_ratings WHERE mode = ANY($2::text[]) "
                          "AND player_id = $1"),
             player_id, modes.Finish())) {
      PlayerRating p = FromRow(r, options_.provisional_games);
      for (PlayerRating& o : out) {
        if (o.mode == p.mode) o = p;
      }
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<PlayerRating>> RatingReader::Ratings(
    const std::string& mode, const std::vector<std::string>& player_ids) {
  if (absl::Status s = CheckMode(mode); !s.ok()) return s;
  if (player_ids.size() > 1000) return absl::InvalidArgumentError("at most 1,000 player_ids");
  storage::PgArray ids(storage::PgType::kText);
  for (const std::string& id : player_ids) {
    if (id.empty()) return absl::InvalidArgumentError("an empty player_id");
    ids.AddString(id);
  }
  std::map<std::string, PlayerRating> found;
  absl::Status s = pool_->Run("reading ratings", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             absl::StrCat("SELECT ", kRatingColumns,
                          " FROM ratings.player_ratings WHERE mode = $1 AND "
                          "player_id = ANY($2::text[])"),
             mode, ids.Finish())) {
      PlayerRating p = FromRow(r, options_.provisional_games);
      found[p.player_id] = p;
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
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
  int64_t after_display = INT32_MAX + int64_t{1};
  std::string after_player;
  if (!page_token.empty()) {
    std::pair<std::string, std::string> parts = absl::StrSplit(page_token, absl::MaxSplits('/', 1));
    if (!absl::SimpleAtoi(parts.first, &after_display) || parts.second.empty()) {
      return absl::InvalidArgumentError("bad page_token");
    }
    after_player = parts.second;
  }
  const int min_games = include_provisional ? 0 : options_.provisional_games;
  LadderPage page;
  absl::Status s = history_->Run("reading a leaderboard", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    // rank() counts the players with a higher display, so equal displays share one.
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT * FROM (SELECT ", kRatingColumns,
                     ", rank() OVER (ORDER BY display DESC) FROM ratings.player_ratings "
                     "WHERE mode = $1 AND NOT bot AND games >= $2) ladder "
                     "WHERE display < $3::int8 OR (display = $3::int8 AND player_id > $4) "
                     "ORDER BY display DESC, player_id LIMIT $5"),
        mode, min_games, after_display, after_player, *size + 1);
    for (int i = 0; i < static_cast<int>(r.size()) && i < *size; ++i) {
      page.entries.push_back({r[i][6].as<int64_t>(), FromRow(r[i], options_.provisional_games)});
    }
    if (static_cast<int>(r.size()) > *size) {
      const PlayerRating& last = page.entries.back().rating;
      page.next_page_token = absl::StrCat(last.display, "/", last.player_id);
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
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
  HistoryPage page;
  absl::Status s = history_->Run("reading rating history", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        "SELECT outbox_id, game_id, extract(epoch FROM finished)::float8, seat, place, "
        "mu_before, sigma_before, mu_after, sigma_after, display_before, display_after "
        "FROM ratings.rating_history WHERE player_id = $1 AND mode = $2 AND outbox_id < $3 "
        "ORDER BY outbox_id DESC LIMIT $4",
        player_id, mode, before, *size + 1);
    for (int i = 0; i < static_cast<int>(r.size()) && i < *size; ++i) {
      HistoryEntry e;
      e.game_id = r[i][1].as<std::string>();
      e.finished = absl::FromUnixMicros(static_cast<int64_t>(r[i][2].as<double>() * 1e6));
      e.seat = r[i][3].as<int>();
      e.place = r[i][4].as<int>();
      e.before = {r[i][5].as<double>(), r[i][6].as<double>()};
      e.after = {r[i][7].as<double>(), r[i][8].as<double>()};
      e.display_before = r[i][9].as<int>();
      e.display_after = r[i][10].as<int>();
      page.changes.push_back(e);
    }
    if (static_cast<int>(r.size()) > *size) {
      page.next_page_token = absl::StrCat(r[*size - 1][0].as<int64_t>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return page;
}

}  // namespace trix::ratings
