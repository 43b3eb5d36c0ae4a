#include "services/ratings/store/postgres_rating_read_store.h"

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "services/pg/array.h"

namespace trix::ratings {
namespace {

constexpr char kRatingColumns[] = "player_id, mode, mu, sigma, display, games";

PlayerRating FromRow(const pqxx::row& r) {
  PlayerRating p;
  p.player_id = r[0].as<std::string>();
  p.mode = r[1].as<std::string>();
  p.skill = {r[2].as<double>(), r[3].as<double>()};
  p.display = r[4].as<int>();
  p.games = r[5].as<int>();
  return p;
}

pqxx::binarystring TextArray(const std::vector<std::string>& values) {
  pg::PgArray array(pg::PgType::kText);
  for (const std::string& v : values) array.AddString(v);
  return array.Finish();
}

HistoryEntry HistoryFromRow(const pqxx::row& r) {
  HistoryEntry e;
  e.outbox_id = r[0].as<int64_t>();
  e.game_id = r[1].as<std::string>();
  e.finished = absl::FromUnixMicros(static_cast<int64_t>(r[2].as<double>() * 1e6));
  e.seat = r[3].as<int>();
  e.place = r[4].as<int>();
  e.before = {r[5].as<double>(), r[6].as<double>()};
  e.after = {r[7].as<double>(), r[8].as<double>()};
  e.display_before = r[9].as<int>();
  e.display_after = r[10].as<int>();
  return e;
}

// The ratings `query` finds with its two parameters, on `pool`.
template <typename A, typename B>
absl::StatusOr<std::vector<PlayerRating>> RatingsOf(pg::ConnectionPool* pool,
                                                    const std::string& where, const A& a,
                                                    const B& b) {
  std::vector<PlayerRating> out;
  absl::Status s = pool->Run("reading ratings", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             absl::StrCat("SELECT ", kRatingColumns, " FROM ratings.player_ratings WHERE ", where),
             a, b)) {
      out.push_back(FromRow(r));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace

absl::StatusOr<std::vector<PlayerRating>> PostgresRatingReadStore::ReadPlayerRatings(
    const std::string& player_id, const std::vector<std::string>& modes) {
  return RatingsOf(pool_, "mode = ANY($2::text[]) AND player_id = $1", player_id,
                   TextArray(modes));
}

absl::StatusOr<std::vector<PlayerRating>> PostgresRatingReadStore::ReadRatings(
    const std::string& mode, const std::vector<std::string>& player_ids) {
  return RatingsOf(pool_, "mode = $1 AND player_id = ANY($2::text[])", mode,
                   TextArray(player_ids));
}

absl::StatusOr<std::vector<LadderEntry>> PostgresRatingReadStore::ReadLadder(
    const std::string& mode, int min_games, const LadderCursor& after, int limit) {
  std::vector<LadderEntry> out;
  absl::Status s = history_->Run("reading a leaderboard", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    // rank() counts the players with a higher display, so equal displays share one.
    for (const pqxx::row& r : tx.exec_params(
             absl::StrCat("SELECT * FROM (SELECT ", kRatingColumns,
                          ", rank() OVER (ORDER BY display DESC) FROM ratings.player_ratings "
                          "WHERE mode = $1 AND NOT bot AND games >= $2) ladder "
                          "WHERE display < $3::int8 OR (display = $3::int8 AND player_id > $4) "
                          "ORDER BY display DESC, player_id LIMIT $5"),
             mode, min_games, after.display, after.player_id, limit)) {
      out.push_back({r[6].as<int64_t>(), FromRow(r)});
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<HistoryEntry>> PostgresRatingReadStore::ReadHistory(
    const std::string& player_id, const std::string& mode, int64_t before, int limit) {
  std::vector<HistoryEntry> out;
  absl::Status s = history_->Run("reading rating history", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             "SELECT outbox_id, game_id, extract(epoch FROM finished)::float8, seat, place, "
             "mu_before, sigma_before, mu_after, sigma_after, display_before, display_after "
             "FROM ratings.rating_history WHERE player_id = $1 AND mode = $2 AND outbox_id < $3 "
             "ORDER BY outbox_id DESC LIMIT $4",
             player_id, mode, before, limit)) {
      out.push_back(HistoryFromRow(r));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace trix::ratings
