#include "services/matchmaking/store/postgres_bot_streams.h"

#include <pqxx/pqxx>

#include "services/pg/array.h"

namespace trix::matchmaking {
namespace {

using pg::PgArray;
using pg::PgType;

PgArray Texts(const std::vector<std::string>& values) {
  PgArray a(PgType::kText);
  for (const std::string& v : values) a.AddString(v);
  return a;
}

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

}  // namespace

PostgresBotStreams::PostgresBotStreams(pg::ConnectionPool* db, std::string replica,
                       absl::Duration live_for)
    : db_(db), replica_(std::move(replica)), live_for_(live_for) {}

absl::Status PostgresBotStreams::Open(const std::string& stream_id, const BotAccount& bot,
                              const std::set<std::string>& modes, int room) {
  return db_->Run("recording a bot stream", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_bot_streams (stream_id, replica, bot_id, modes, room) "
        "VALUES ($1, $2, $3, $4::text[], $5)",
        stream_id, replica_, bot.bot_id, Texts({modes.begin(), modes.end()}).Finish(),
        room);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresBotStreams::Close(const std::string& stream_id) {
  return db_->Run("removing a bot stream", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0("DELETE FROM mm_bot_streams WHERE stream_id = $1", stream_id);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresBotStreams::Heartbeat(
    const std::vector<std::pair<std::string, int>>& rooms) {
  PgArray ids(PgType::kText), room(PgType::kInt4);
  for (const auto& [id, r] : rooms) {
    ids.AddString(id);
    room.AddInt(r);
  }
  return db_->Run("renewing bot streams", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "UPDATE mm_bot_streams AS s SET room = u.room, heartbeat = now() "
        "FROM unnest($1::text[], $2::integer[]) AS u (stream_id, room) "
        "WHERE s.stream_id = u.stream_id AND s.replica = $3",
        ids.Finish(), room.Finish(), replica_);
    tx.exec0("DELETE FROM mm_bot_streams WHERE heartbeat < now() - interval '1 minute'");
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<BotSeat>> PostgresBotStreams::ReserveElsewhere(
    const std::string& mode, const std::vector<std::string>& taken, const std::string& level) {
  std::optional<BotSeat> seat;
  absl::Status s = db_->Run("reserving a bot seat", [&](pqxx::connection& c) {
    seat.reset();
    pqxx::work tx(c);
    // The account given a seat least recently first, as on each replica
    // (bot_roster.h). SKIP LOCKED: a stream another matcher is taking a seat from
    // right now is passed over rather than waited for.
    const pqxx::result r = tx.exec_params(
        "UPDATE mm_bot_streams AS s SET room = s.room - 1, given = now() "
        "FROM mm_bots AS b WHERE s.stream_id = ("
        "  SELECT t.stream_id FROM mm_bot_streams AS t"
        "  WHERE t.replica <> $1 AND $2 = ANY (t.modes) AND t.room > 0"
        "    AND t.heartbeat > now() - make_interval(secs => $3)"
        "    AND NOT (t.bot_id = ANY ($4::text[]))"
        "    AND ($5 = '' OR EXISTS (SELECT 1 FROM mm_bots AS l"
        "                            WHERE l.bot_id = t.bot_id AND l.level = $5))"
        "  ORDER BY (SELECT max(g.given) FROM mm_bot_streams AS g"
        "            WHERE g.bot_id = t.bot_id) NULLS FIRST, t.room DESC"
        "  LIMIT 1 FOR UPDATE OF t SKIP LOCKED)"
        " AND b.bot_id = s.bot_id AND NOT b.revoked "
        "RETURNING s.bot_id, b.name, s.stream_id, b.level",
        replica_, mode, Seconds(live_for_), Texts(taken).Finish(), level);
    if (!r.empty()) {
      seat = BotSeat{r[0][0].as<std::string>(), r[0][1].as<std::string>(),
                     r[0][2].as<std::string>(), r[0][3].as<std::string>()};
    }
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return seat;
}

absl::StatusOr<std::map<std::string, std::string>> PostgresBotStreams::KeysInForce(
    const std::vector<std::string>& bot_ids) {
  std::map<std::string, std::string> keys;
  absl::Status s = db_->Run("reading bot keys", [&](pqxx::connection& c) {
    keys.clear();
    pqxx::read_transaction tx(c);
    for (const auto& row : tx.exec_params(
             "SELECT bot_id, key_hash FROM mm_bots "
             "WHERE bot_id = ANY ($1::text[]) AND NOT revoked",
             Texts(bot_ids).Finish())) {
      keys[row[0].as<std::string>()] = row[1].as<std::string>();
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return keys;
}

}  // namespace trix::matchmaking
