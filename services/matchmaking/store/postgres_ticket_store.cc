#include "services/matchmaking/store/postgres_ticket_store.h"

#include <pqxx/pqxx>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/pg/array.h"

namespace trix::matchmaking {
namespace {

using pg::PgArray;
using pg::PgType;

absl::Time FromEpoch(const pqxx::field& f) {
  return absl::FromUnixMicros(static_cast<int64_t>(f.as<double>() * 1e6));
}

std::vector<std::string> ReadTextArray(const pqxx::field& f) {
  std::vector<std::string> out;
  pqxx::array_parser parser = f.as_array();
  for (auto [kind, value] = parser.get_next(); kind != pqxx::array_parser::done;
       std::tie(kind, value) = parser.get_next()) {
    if (kind == pqxx::array_parser::string_value) out.push_back(value);
  }
  return out;
}

// The live tickets of players $1: the admission's lock (with ORDER BY ticket_id FOR
// UPDATE) and its read of what it did not queue.
constexpr char kLiveTicketsOf[] =
    "SELECT player_id, ticket_id FROM mm_tickets WHERE player_id = ANY($1::text[]) "
    "AND status IN ('waiting', 'placing')";

}  // namespace

TicketRow ReadTicket(const pqxx::row& r) {
  TicketRow t;
  t.ticket_id = r[0].as<std::string>();
  t.request_id = r[1].as<std::string>();
  t.player_id = r[2].as<std::string>();
  t.display_name = r[3].as<std::string>();
  t.pool = r[4].as<std::string>();
  t.team = r[5].as<int>();
  t.format = r[6].as<int>();
  t.stake = r[7].as<int64_t>();
  t.rating = r[8].as<int>();
  t.provisional = r[9].as<bool>();
  t.party_id = r[10].as<std::string>();
  t.hold_id = r[11].as<std::string>();
  t.status = r[12].as<std::string>();
  t.queued = FromEpoch(r[13]);
  t.seq = r[14].as<int64_t>();
  return t;
}

PgArray TextArray(const std::vector<std::string>& values) {
  PgArray a(PgType::kText);
  for (const std::string& v : values) a.AddString(v);
  return a;
}

PostgresTicketStore::PostgresTicketStore(std::string url, int connections,
                                         SeatTokens seat_tokens)
    : pool_(std::move(url), connections, "mamlaka matchmaking"),
      seat_tokens_(std::move(seat_tokens)) {}

AssignmentRow PostgresTicketStore::ReadAssignment(const pqxx::row& r) const {
  AssignmentRow a;
  a.table_id = r[0].as<std::string>();
  a.seat = r[1].as<int>();
  a.player_id = r[2].as<std::string>();
  a.ticket_id = r[3].as<std::string>();
  a.bot = r[4].as<bool>();
  a.address = r[5].as<std::string>();
  a.team = r[7].as<int>();
  a.format = r[8].as<int>();
  a.stake = r[9].as<int64_t>();
  a.possible = FromEpoch(r[10]);
  a.matched = FromEpoch(r[11]);
  a.bot_stream = r[12].as<std::string>();
  // A row without its placement was written by a release that stored the token;
  // it goes within a day (SweepEnded).
  a.placement_id = r[13].as<std::string>();
  a.seat_token = a.placement_id.empty() ? r[6].as<std::string>()
                                        : seat_tokens_.For(a.placement_id, a.seat);
  return a;
}

void PostgresTicketStore::ReadLiveOf(pqxx::transaction_base& tx,
                             const std::vector<std::string>& players,
                             absl::flat_hash_map<std::string, std::string>* live,
                             absl::flat_hash_map<std::string, AssignmentRow>* seat) const {
  const pqxx::binarystring ids = TextArray(players).Finish();
  for (const pqxx::row& r : tx.exec_params(kLiveTicketsOf, ids)) {
    (*live)[r[0].as<std::string>()] = r[1].as<std::string>();
  }
  for (const pqxx::row& r : tx.exec_params(
           absl::StrCat("SELECT ", kAssignmentColumns, " FROM mm_assignments "
                        "WHERE player_id = ANY($1::text[]) AND NOT finished "
                        "ORDER BY matched"),
           ids)) {
    AssignmentRow a = ReadAssignment(r);
    (*seat)[a.player_id] = std::move(a);  // the newest wins
  }
}

namespace {

// An admission's new tickets as the INSERT's columns: each player's last row.
struct TicketColumns {
  PgArray ids{PgType::kText}, requests{PgType::kText}, players{PgType::kText},
      names{PgType::kText}, pools{PgType::kText}, teams{PgType::kInt4},
      formats{PgType::kInt4}, stakes{PgType::kInt8}, ratings{PgType::kInt4},
      provisional{PgType::kBool}, parties{PgType::kText}, holds{PgType::kText};
};

TicketColumns ColumnsOf(const std::vector<TicketRow>& rows,
                        const absl::flat_hash_map<std::string, size_t>& last) {
  TicketColumns n;
  for (size_t i = 0; i < rows.size(); ++i) {
    const TicketRow& t = rows[i];
    if (last.at(t.player_id) != i) continue;
    n.ids.AddString(t.ticket_id);
    n.requests.AddString(t.request_id);
    n.players.AddString(t.player_id);
    n.names.AddString(t.display_name);
    n.pools.AddString(t.pool);
    n.teams.AddInt(t.team);
    n.formats.AddInt(t.format);
    n.stakes.AddInt(t.stake);
    n.ratings.AddInt(t.rating);
    n.provisional.AddBool(t.provisional);
    if (t.party_id.empty()) n.parties.AddNull(); else n.parties.AddString(t.party_id);
    if (t.hold_id.empty()) n.holds.AddNull(); else n.holds.AddString(t.hold_id);
  }
  return n;
}

// The players' live tickets, locked in ticket order (as the matcher's claims and
// commits lock them): a commit of their assignments either finished before (and
// the statements below see its assignments) or waits for this one (and the ticket
// it places is resumed below, not replaced). Locked, they stay live until this
// transaction ends, unless superseded here: a waiting ticket of another request.
void LockAndSupersede(pqxx::work& tx, const TicketColumns& n, Admitted& admitted,
                      absl::flat_hash_map<std::string, std::string>& live) {
  for (const pqxx::row& r :
       tx.exec_params(absl::StrCat(kLiveTicketsOf, " ORDER BY ticket_id FOR UPDATE"),
                      n.players.Finish())) {
    live[r[0].as<std::string>()] = r[1].as<std::string>();
  }
  const pqxx::result old = tx.exec_params(
      absl::StrCat("UPDATE mm_tickets t SET status = 'superseded', changed = now() "
                   "FROM unnest($1::text[], $2::text[]) AS n(player_id, request_id) "
                   "WHERE t.status = 'waiting' AND t.player_id = n.player_id "
                   "AND t.request_id <> n.request_id RETURNING ",
                   "t.ticket_id, t.request_id, t.player_id, t.display_name, t.pool, "
                   "t.team, t.format, t.stake, t.rating, t.provisional, "
                   "coalesce(t.party_id, ''), coalesce(t.hold_id, ''), t.status, "
                   "extract(epoch from t.queued)::float8, t.seq"),
      n.players.Finish(), n.requests.Finish());
  for (const pqxx::row& r : old) {
    admitted.superseded.push_back(ReadTicket(r));
    live.erase(admitted.superseded.back().player_id);
  }
}

// A ticket for each player with no live ticket and no live seat.
void InsertTickets(pqxx::work& tx, const TicketColumns& n,
                   absl::flat_hash_map<std::string, std::string>& live) {
  for (const pqxx::row& r : tx.exec_params(
           "INSERT INTO mm_tickets (ticket_id, request_id, player_id, display_name, "
           "pool, team, format, stake, rating, provisional, party_id, hold_id) "
           "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], "
           "$5::text[], $6::int4[], $7::int4[], $8::int8[], $9::int4[], $10::bool[], "
           "$11::text[], $12::text[]) AS n (ticket_id, request_id, player_id) "
           "WHERE NOT EXISTS (SELECT 1 FROM mm_assignments AS a "
           "WHERE a.player_id = n.player_id AND NOT a.finished) "
           "ON CONFLICT (player_id) WHERE status IN ('waiting', 'placing') DO NOTHING "
           "RETURNING player_id, ticket_id",
           n.ids.Finish(), n.requests.Finish(), n.players.Finish(), n.names.Finish(),
           n.pools.Finish(), n.teams.Finish(), n.formats.Finish(), n.stakes.Finish(),
           n.ratings.Finish(), n.provisional.Finish(), n.parties.Finish(),
           n.holds.Finish())) {
    live[r[0].as<std::string>()] = r[1].as<std::string>();
  }
}

// What each row of the batch came to, in its order: seated meanwhile, superseded
// (by a later row of its player, or lost), or its player's live ticket (resumed
// when it is not the row's own).
void AddOutcomes(const std::vector<TicketRow>& rows,
                 const absl::flat_hash_map<std::string, size_t>& last,
                 const absl::flat_hash_map<std::string, std::string>& live,
                 const absl::flat_hash_map<std::string, AssignmentRow>& seat,
                 Admitted& admitted) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const TicketRow& t = rows[i];
    AdmitOutcome o;
    auto it = live.find(t.player_id);
    auto held = seat.find(t.player_id);
    const bool players_last = last.at(t.player_id) == i;
    if (players_last && it == live.end() && held != seat.end()) {
      o.ticket_id = t.ticket_id;
      o.assigned = held->second;
      admitted.outcomes.push_back(std::move(o));
      continue;
    }
    if (!players_last || it == live.end()) {
      TicketRow lost = t;
      lost.status = "superseded";
      admitted.superseded.push_back(lost);
      o.ticket_id = t.ticket_id;
      o.resumed = false;
      admitted.outcomes.push_back(o);
      continue;
    }
    o.ticket_id = it->second;
    o.resumed = it->second != t.ticket_id;
    admitted.outcomes.push_back(o);
  }
}

// Runs one UPDATE ... RETURNING 1 in a transaction of its own: whether it
// changed a row.
template <typename... Params>
absl::StatusOr<bool> ChangesARow(pg::ConnectionPool& pool, absl::string_view context,
                                 const char* sql, const Params&... params) {
  bool changed = false;
  absl::Status s = pool.Run(context, [&](pqxx::connection& c) {
    pqxx::work tx(c);
    changed = !tx.exec_params(sql, params...).empty();
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return changed;
}

}  // namespace

absl::StatusOr<Admitted> PostgresTicketStore::Admit(const std::vector<TicketRow>& rows) {
  Admitted admitted;
  // The last row of each player wins within the batch.
  absl::flat_hash_map<std::string, size_t> last;
  for (size_t i = 0; i < rows.size(); ++i) last[rows[i].player_id] = i;
  const TicketColumns n = ColumnsOf(rows, last);
  absl::flat_hash_map<std::string, std::string> live;  // player -> ticket
  absl::flat_hash_map<std::string, AssignmentRow> seat;  // player -> live seat
  absl::Status s = pool_.Run("admitting tickets", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    admitted.superseded.clear();  // a retry starts again
    live.clear();
    seat.clear();
    LockAndSupersede(tx, n, admitted, live);
    InsertTickets(tx, n, live);
    // Each player now has the live ticket locked or inserted above, except one
    // seated (who got no ticket) or one whose other request queued a ticket since
    // the lock: only theirs are read.
    std::vector<std::string> unqueued;
    for (const auto& [player, i] : last) {
      if (!live.contains(player)) unqueued.push_back(player);
    }
    if (!unqueued.empty()) ReadLiveOf(tx, unqueued, &live, &seat);
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  AddOutcomes(rows, last, live, seat, admitted);
  return admitted;
}

absl::StatusOr<std::vector<TicketRow>> PostgresTicketStore::Cancel(
    const std::vector<std::string>& ids) {
  std::vector<TicketRow> cancelled;
  absl::Status s = pool_.Run("cancelling tickets", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("UPDATE mm_tickets SET status = 'cancelled', changed = now() "
                     "WHERE ticket_id = ANY($1::text[]) AND status = 'waiting' RETURNING ",
                     kTicketColumns),
        TextArray(ids).Finish());
    for (const pqxx::row& row : r) cancelled.push_back(ReadTicket(row));
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return cancelled;
}

absl::StatusOr<bool> PostgresTicketStore::CarryHold(const std::string& ticket_id,
                                            const std::string& hold_id, int64_t stake) {
  return ChangesARow(pool_, "giving a ticket a hold",
                     "UPDATE mm_tickets SET hold_id = $2 WHERE ticket_id = $1 "
                     "AND status = 'waiting' AND stake = $3 RETURNING 1",
                     ticket_id, hold_id, stake);
}

absl::StatusOr<bool> PostgresTicketStore::SupersedeWaiting(const std::string& ticket_id) {
  return ChangesARow(pool_, "superseding a ticket",
                     "UPDATE mm_tickets SET status = 'superseded', changed = now() "
                     "WHERE ticket_id = $1 AND status = 'waiting' RETURNING 1",
                     ticket_id);
}

absl::StatusOr<std::vector<TicketRow>> PostgresTicketStore::HeldTicketsOf(
    const std::vector<std::string>& player_ids) {
  std::vector<TicketRow> rows;
  absl::Status s = pool_.Run("reading held tickets", [&](pqxx::connection& c) {
    rows.clear();
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kTicketColumns,
                     " FROM mm_tickets WHERE player_id = ANY($1::text[]) "
                     "AND status IN ('waiting', 'placing') AND hold_id IS NOT NULL"),
        TextArray(player_ids).Finish());
    for (const pqxx::row& row : r) rows.push_back(ReadTicket(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<TicketRow>> PostgresTicketStore::Tickets(
    const std::vector<std::string>& ids) {
  std::vector<TicketRow> rows;
  absl::Status s = pool_.Run("reading tickets", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kTicketColumns,
                     " FROM mm_tickets WHERE ticket_id = ANY($1::text[])"),
        TextArray(ids).Finish());
    for (const pqxx::row& row : r) rows.push_back(ReadTicket(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> PostgresTicketStore::LiveAssignments(
    const std::string& player_id) {
  std::vector<AssignmentRow> rows;
  absl::Status s = pool_.Run("reading assignments", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kAssignmentColumns,
                     " FROM mm_assignments WHERE player_id = $1 AND NOT finished "
                     "ORDER BY matched DESC"),
        player_id);
    for (const pqxx::row& row : r) rows.push_back(ReadAssignment(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> PostgresTicketStore::LiveAssignmentsOf(
    const std::vector<std::string>& player_ids) {
  std::vector<AssignmentRow> rows;
  absl::Status s = pool_.Run("reading assignments", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kAssignmentColumns,
                     " FROM mm_assignments WHERE player_id = ANY($1::text[]) "
                     "AND NOT finished"),
        TextArray(player_ids).Finish());
    for (const pqxx::row& row : r) rows.push_back(ReadAssignment(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> PostgresTicketStore::LiveAssignmentsOfStreams(
    const std::vector<std::string>& stream_ids) {
  std::vector<AssignmentRow> rows;
  absl::Status s = pool_.Run("reading bot assignments", [&](pqxx::connection& c) {
    rows.clear();
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kAssignmentColumns,
                     " FROM mm_assignments WHERE bot_stream = ANY($1::text[]) "
                     "AND NOT finished"),
        TextArray(stream_ids).Finish());
    for (const pqxx::row& row : r) rows.push_back(ReadAssignment(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> PostgresTicketStore::LiveStakedAssignments() {
  std::vector<AssignmentRow> rows;
  absl::Status s = pool_.Run("reading staked assignments", [&](pqxx::connection& c) {
    rows.clear();  // a retried read starts again
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec(absl::StrCat(
        "SELECT ", kAssignmentColumns,
        " FROM mm_assignments WHERE NOT finished AND stake > 0 AND ticket_id IS NOT NULL"));
    for (const pqxx::row& row : r) rows.push_back(ReadAssignment(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<AssignmentRow>> PostgresTicketStore::AssignmentsOfTickets(
    const std::vector<std::string>& ticket_ids) {
  std::vector<AssignmentRow> rows;
  absl::Status s = pool_.Run("reading assignments", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kAssignmentColumns,
                     " FROM mm_assignments WHERE ticket_id = ANY($1::text[])"),
        TextArray(ticket_ids).Finish());
    for (const pqxx::row& row : r) rows.push_back(ReadAssignment(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return rows;
}

absl::Status PostgresTicketStore::MarkFinished(const std::string& table_id) {
  return pool_.Run("finishing assignments", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0("UPDATE mm_assignments SET finished = true WHERE table_id = $1",
                    table_id);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> PostgresTicketStore::SweepEnded(absl::Duration keep, int limit) {
  int64_t swept = 0;
  absl::Status s = pool_.Run("sweeping ended tickets", [&](pqxx::connection& c) {
    // One statement; rows another replica's sweep holds are skipped, not waited for.
    pqxx::nontransaction tx(c);
    const int64_t keep_us = absl::ToInt64Microseconds(keep);
    swept = tx.exec_params1(
                  "WITH t AS (DELETE FROM mm_tickets WHERE ticket_id IN "
                  "(SELECT ticket_id FROM mm_tickets "
                  "WHERE status IN ('matched', 'cancelled', 'superseded') "
                  "AND changed < now() - $1 * interval '1 microsecond' "
                  "LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1), "
                  "a AS (DELETE FROM mm_assignments WHERE (table_id, seat) IN "
                  "(SELECT table_id, seat FROM mm_assignments "
                  "WHERE matched < now() - $1 * interval '1 microsecond' "
                  "AND (finished OR matched < now() - interval '1 day') "
                  "LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1), "
                  "p AS (DELETE FROM mm_parties WHERE party_id IN "
                  "(SELECT party_id FROM mm_parties "
                  "WHERE expires < now() - $1 * interval '1 microsecond' "
                  "LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1) "
                  "SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM a) + "
                  "(SELECT count(*) FROM p)",
                  keep_us, limit)[0]
                .as<int64_t>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return swept;
}

namespace {

// FAILED_PRECONDITION naming the live party `player_id` is in, if any. The
// player's advisory lock, held to the end of `tx`, orders their party calls, so
// two at once cannot both find them in none.
absl::Status NotInALiveParty(pqxx::transaction_base& tx, const std::string& player_id,
                             const std::string& except_party = "") {
  tx.exec_params("SELECT pg_advisory_xact_lock(hashtext('mm-party:' || $1))", player_id);
  const pqxx::result r = tx.exec_params(
      "SELECT party_id FROM mm_parties WHERE members @> ARRAY[$1::text] "
      "AND expires > now() AND party_id <> $2 LIMIT 1",
      player_id, except_party);
  if (r.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("the player is in party ", r[0][0].as<std::string>(),
                   " already; leave it first (LeaveParty)"));
}

}  // namespace

absl::Status PostgresTicketStore::CreateParty(const PartyRow& party) {
  return pool_.Run("creating a party", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    if (absl::Status s = NotInALiveParty(tx, party.members.front()); !s.ok()) return s;
    tx.exec_params0(
        "INSERT INTO mm_parties (party_id, code, members, expires) "
        "VALUES ($1, $2, $3::text[], to_timestamp($4))",
        party.party_id, party.code, TextArray(party.members).Finish(),
        absl::ToDoubleSeconds(party.expires - absl::UnixEpoch()));
    tx.commit();
    return absl::OkStatus();
  });
}

namespace {
PartyRow ReadParty(const pqxx::row& r) {
  return {.party_id = r[0].as<std::string>(),
          .code = r[1].as<std::string>(),
          .members = ReadTextArray(r[2]),
          .expires = FromEpoch(r[3])};
}
constexpr char kPartyColumns[] =
    "party_id, code, members, extract(epoch from expires)::float8";
}  // namespace

absl::StatusOr<PartyRow> PostgresTicketStore::JoinParty(const std::string& code,
                                                const std::string& player_id) {
  PartyRow party;
  absl::Status s = pool_.Run("joining a party", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kPartyColumns, ", expires < now() FROM mm_parties "
                     "WHERE code = $1 FOR UPDATE"),
        code);
    if (r.empty()) return absl::NotFoundError("no party has this code");
    party = ReadParty(r[0]);
    if (r[0][4].as<bool>()) return absl::FailedPreconditionError("the party expired");
    for (const std::string& m : party.members) {
      if (m == player_id) return absl::OkStatus();  // joined already
    }
    if (party.members.size() >= 2) {
      return absl::FailedPreconditionError("the party is full");
    }
    if (absl::Status s = NotInALiveParty(tx, player_id, party.party_id); !s.ok()) return s;
    party.members.push_back(player_id);
    tx.exec_params0("UPDATE mm_parties SET members = $2::text[] WHERE party_id = $1",
                    party.party_id, TextArray(party.members).Finish());
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return party;
}

absl::StatusOr<PartyRow> PostgresTicketStore::Party(const std::string& party_id) {
  PartyRow party;
  absl::Status s = pool_.Run("reading a party", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kPartyColumns, ", expires < now() FROM mm_parties "
                     "WHERE party_id = $1"),
        party_id);
    if (r.empty()) return absl::NotFoundError("no such party");
    party = ReadParty(r[0]);
    if (r[0][4].as<bool>()) return absl::FailedPreconditionError("the party expired");
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return party;
}

absl::Status PostgresTicketStore::LeaveParty(const std::string& party_id,
                                     const std::string& player_id) {
  return pool_.Run("leaving a party", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        "UPDATE mm_parties SET members = array_remove(members, $2) "
        "WHERE party_id = $1 AND $2 = ANY(members) RETURNING cardinality(members)",
        party_id, player_id);
    if (r.empty()) {
      if (tx.exec_params("SELECT 1 FROM mm_parties WHERE party_id = $1", party_id).empty()) {
        return absl::NotFoundError("no such party");
      }
      return absl::PermissionDeniedError("the player is not a member of this party");
    }
    if (r[0][0].as<int>() == 0) {
      tx.exec_params0("DELETE FROM mm_parties WHERE party_id = $1", party_id);
    }
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresTicketStore::RegisterBot(const BotAccount& bot, const std::string& key_hash) {
  return pool_.Run("registering a bot", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        "INSERT INTO mm_bots (bot_id, name, owner, modes, key_hash, level) "
        "VALUES ($1, $2, $3, $4::text[], $5, $6) ON CONFLICT (name) DO NOTHING "
        "RETURNING bot_id",
        bot.bot_id, bot.name, bot.owner, TextArray(bot.modes).Finish(), key_hash, bot.level);
    if (r.empty()) return absl::AlreadyExistsError("a bot of this name exists");
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<BotAccount> PostgresTicketStore::SetBotKey(const std::string& bot_id,
                                                          const std::string& key_hash) {
  BotAccount bot;
  absl::Status s = pool_.Run("rotating a bot key", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        "UPDATE mm_bots SET key_hash = $2 WHERE bot_id = $1 AND NOT revoked "
        "RETURNING bot_id, name, owner, modes, level",
        bot_id, key_hash);
    if (r.empty()) return absl::NotFoundError("no such bot");
    tx.commit();
    bot = BotAccount{.bot_id = r[0][0].as<std::string>(),
                     .name = r[0][1].as<std::string>(),
                     .owner = r[0][2].as<std::string>(),
                     .modes = ReadTextArray(r[0][3]),
                     .level = r[0][4].as<std::string>()};
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return bot;
}

absl::Status PostgresTicketStore::RevokeBot(const std::string& bot_id) {
  return pool_.Run("revoking a bot", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        "UPDATE mm_bots SET revoked = true WHERE bot_id = $1 RETURNING bot_id", bot_id);
    if (r.empty()) return absl::NotFoundError("no such bot");
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<BotAccount> PostgresTicketStore::BotByKeyHash(const std::string& key_hash) {
  BotAccount bot;
  absl::Status s = pool_.Run("reading a bot", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        "SELECT bot_id, name, owner, modes, revoked, level FROM mm_bots "
        "WHERE key_hash = $1",
        key_hash);
    if (r.empty() || r[0][4].as<bool>()) return absl::NotFoundError("unknown bot key");
    bot.bot_id = r[0][0].as<std::string>();
    bot.name = r[0][1].as<std::string>();
    bot.owner = r[0][2].as<std::string>();
    bot.modes = ReadTextArray(r[0][3]);
    bot.level = r[0][5].as<std::string>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return bot;
}

}  // namespace trix::matchmaking
