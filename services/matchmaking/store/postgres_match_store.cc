#include "services/matchmaking/store/postgres_match_store.h"

#include <map>
#include <pqxx/pqxx>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/matchmaking/store/postgres_ticket_store.h"
#include "services/matchmaking/table_voids.h"
#include "services/pg/array.h"
#include "services/pg/dedicated_connection.h"

namespace trix::matchmaking {

using pg::PgArray;
using pg::PgType;

namespace {

// Inserts the placements of ArraysOf() bound as $3 to $10 (in PlacementArrays'
// order), each with its slice of the seat arrays.
constexpr char kInsertPlacements[] =
    "INSERT INTO mm_placements (request_id, pool, request, possible, seats, "
    "seat_tickets) SELECT request_id, pool, request, possible, "
    "($9::int4[])[first_seat:last_seat], ($10::text[])[first_seat:last_seat] "
    "FROM unnest($3::text[], $4::text[], $5::bytea[], $6::timestamptz[], $7::int4[], "
    "$8::int4[]) AS u (request_id, pool, request, possible, first_seat, last_seat)";

// The tables' placements as arrays, one element per placement (mm_placements),
// and their seats end to end: placement i's are elements first_seats[i] to
// last_seats[i] of seats and seat_tickets (SQL's 1-based, inclusive slice).
struct PlacementArrays {
  PgArray request_ids{PgType::kText}, pools{PgType::kText}, requests{PgType::kBytea},
      possible{PgType::kTimestampTz};
  PgArray first_seats{PgType::kInt4}, last_seats{PgType::kInt4};
  PgArray seats{PgType::kInt4}, seat_tickets{PgType::kText};
};

PlacementArrays ArraysOf(const PlannedTables& tables) {
  PlacementArrays a;
  for (const PlannedTable* table : tables) {
    a.request_ids.AddString(table->request.request_id());
    a.pools.AddString(table->pool);
    a.requests.AddString(SeatTokens::Stored(table->request));
    a.possible.AddTime(table->possible);
    a.first_seats.AddInt(a.seats.size() + 1);
    for (const AssignmentRow& seat : table->seats) {
      a.seats.AddInt(seat.seat);
      if (seat.ticket_id.empty()) {
        a.seat_tickets.AddNull();
      } else {
        a.seat_tickets.AddString(seat.ticket_id);
      }
    }
    a.last_seats.AddInt(a.seats.size());
  }
  return a;
}

// Every table's tickets, each with its placement (the claim's $1 and $2).
struct TicketGroups {
  PgArray tickets{PgType::kText}, groups{PgType::kText};
  int64_t count = 0;
};

TicketGroups TicketGroupsOf(const PlannedTables& tables) {
  TicketGroups g;
  for (const PlannedTable* table : tables) {
    for (const std::string& t : table->tickets) {
      g.tickets.AddString(t);
      g.groups.AddString(table->request.request_id());
      ++g.count;
    }
  }
  return g;
}

// In the claim's transaction: the tables' placements, their seats, and the
// tickets' group_id (migrations/0017_matchmaking_placements.sql, 0026).
void RecordPlacements(pqxx::work& tx, const PlannedTables& tables) {
  if (tables.empty()) return;
  PlacementArrays a = ArraysOf(tables);
  TicketGroups g = TicketGroupsOf(tables);
  static const std::string kRecord = absl::StrCat(
      "WITH placed AS (", kInsertPlacements, ") "
      "UPDATE mm_tickets AS t SET group_id = u.request_id "
      "FROM unnest($1::text[], $2::text[]) AS u (ticket_id, request_id) "
      "WHERE t.ticket_id = u.ticket_id");
  tx.exec_params0(
      kRecord, g.tickets.Finish(), g.groups.Finish(), a.request_ids.Finish(),
      a.pools.Finish(), a.requests.Finish(), a.possible.Finish(), a.first_seats.Finish(),
      a.last_seats.Finish(), a.seats.Finish(), a.seat_tickets.Finish());
}

// A placement's seat read from mm_placements into `table` (its request parsed
// from the first).
void AddPlacedSeat(const pqxx::row& row, const std::string& pool, PlannedTable& table) {
  if (table.pool.empty()) {
    table.pool = pool;
    table.request.ParseFromString(pqxx::binarystring(row[1]).str());
    table.possible = absl::FromUnixMicros(row[2].as<int64_t>());
  }
  AddRecordedSeat(row[3].as<int>(), row[4].as<std::string>(), table);
}

class PostgresPoolSession : public PoolSession {
 public:
  explicit PostgresPoolSession(const std::string& url);

  bool TryLease(const std::string& pool) override;
  PoolTakeover TakeOver(const std::string& pool) override;
  PoolRead ReadWaiting(const std::vector<std::string>& pools, int64_t after) override;
  bool ClaimWhole(const PlannedTables& tables) override;
  void ClaimEach(
      const std::vector<std::string>& ticket_ids,
      const std::function<ClaimPlan(const std::set<std::string>& claimed)>& plan) override;

 private:
  // The placements a previous holder of `pool` left unfinished.
  std::vector<PlannedTable> UnfinishedPlacements(pqxx::transaction_base& tx,
                                                 const std::string& pool);

  // The session's pool leases are advisory locks of this connection: it is never
  // dropped and opened again under them; a lost one ends the session.
  pqxx::connection& connection() { return connection_.Get(); }

  pg::DedicatedConnection connection_;
};

PostgresPoolSession::PostgresPoolSession(const std::string& url)
    : connection_(url, "mamlaka matcher", [](pqxx::connection& c) {
        // The claims (and the lease's bookkeeping) commit without waiting for
        // fsync. Losing one in a crash of PostgreSQL leaves its tickets waiting,
        // which is what recovery does anyway; and a claim is never lost while the
        // table it asked for survives: table instances keep their games in the same
        // PostgreSQL, and the table's own synchronous insert, made after the claim,
        // flushes the log past it.
        pqxx::nontransaction(c).exec0("SET synchronous_commit = off");
      }) {
  connection_.Get();
}

bool PostgresPoolSession::TryLease(const std::string& pool) {
  const pg::StallLimit limit(connection(), pg::kStallLimit);
  pqxx::nontransaction tx(connection());
  return tx.exec_params1("SELECT pg_try_advisory_lock(hashtext('mm:' || $1))", pool)[0]
      .as<bool>();
}

PoolTakeover PostgresPoolSession::TakeOver(const std::string& pool) {
  const pg::StallLimit limit(connection(), pg::kStallLimit);
  pqxx::nontransaction tx(connection());
  PoolTakeover takeover;
  takeover.placements = UnfinishedPlacements(tx, pool);
  const pqxx::result back = tx.exec_params(
      "UPDATE mm_tickets AS t SET status = 'waiting', group_id = NULL, changed = now() "
      "WHERE pool = $1 AND status = 'placing' AND NOT EXISTS "
      "(SELECT 1 FROM mm_placements AS p WHERE p.request_id = t.group_id) "
      "RETURNING ticket_id",
      pool);
  takeover.requeued = static_cast<int64_t>(back.size());
  return takeover;
}

std::vector<PlannedTable> PostgresPoolSession::UnfinishedPlacements(
    pqxx::transaction_base& tx, const std::string& pool) {
  std::map<std::string, PlannedTable> tables;
  const pqxx::result r = tx.exec_params(
      "SELECT p.request_id, p.request, (extract(epoch FROM p.possible) * 1000000)::int8, "
      "s.seat, coalesce(s.ticket_id, '') FROM mm_placements AS p, "
      "unnest(p.seats, p.seat_tickets) AS s (seat, ticket_id) "
      "WHERE p.pool = $1 ORDER BY p.request_id, s.seat",
      pool);
  for (const pqxx::row& row : r) {
    AddPlacedSeat(row, pool, tables[row[0].as<std::string>()]);
  }
  std::vector<PlannedTable> out;
  for (auto& [id, table] : tables) out.push_back(std::move(table));
  return out;
}

PoolRead PostgresPoolSession::ReadWaiting(const std::vector<std::string>& pools,
                                          int64_t after) {
  const pg::StallLimit limit(connection(), pg::kStallLimit);
  pqxx::nontransaction tx(connection());
  PoolRead read;
  // Numbered before the read: a ticket numbered later is read next time. (A
  // sequence never used yet shows the first number it will give.)
  read.numbered =
      tx.exec1("SELECT CASE WHEN is_called THEN last_value ELSE 0 END "
               "FROM mm_tickets_seq_seq")[0]
          .as<int64_t>();
  const pqxx::result r = tx.exec_params(
      absl::StrCat("SELECT ", kTicketColumns,
                   " FROM mm_tickets WHERE pool = ANY($1::text[]) "
                   "AND status = 'waiting' AND seq > $2 ORDER BY seq"),
      TextArray(pools).Finish(), after);
  read.tickets.reserve(r.size());
  for (const pqxx::row& row : r) read.tickets.push_back(ReadTicket(row));
  return read;
}

bool PostgresPoolSession::ClaimWhole(const PlannedTables& tables) {
  PlacementArrays a = ArraysOf(tables);
  TicketGroups g = TicketGroupsOf(tables);
  // One statement, atomic on its own (one round trip): the tickets locked in
  // ticket order (as admissions and commits lock them) and, only if every one is
  // still waiting, claimed into their placements, which are recorded. The lock
  // finds the tickets by id alone and their status is checked on the locked rows:
  // a status in the WHERE would let the planner add a scan of the whole partial
  // index mm_tickets_waiting (every waiting ticket of every pool, and the dead
  // entries of tickets matched since the last vacuum) to the id lookups.
  //
  // The update then finds the locked rows by their ctid instead of descending the
  // primary key a second time for each ticket (about four buffers a ticket, in the
  // statements that are most of matchmaking's PostgreSQL work). The ctid a lock
  // returns is that of the row version the statement sees, unless another
  // transaction changed the ticket since the statement began: then it is the
  // newer version, which an update by ctid skips (one by id would update it).
  // That loses no claim: another transaction's change of a waiting ticket (a
  // cancel, a supersede) moves it out of waiting, so the tickets are not whole and
  // nothing is claimed. Nor a commit (CommitAssignments()): a placing ticket is
  // changed only by its pool's matcher, and one that took the pool over finishes
  // the placement itself, deleting it first, so that this commit matches nothing.
  static const std::string kClaim = absl::StrCat(
      "WITH locked AS (SELECT ctid, ticket_id, status FROM mm_tickets "
      "WHERE ticket_id = ANY($1::text[]) ORDER BY ticket_id FOR UPDATE), "
      "whole AS (SELECT count(*) FILTER (WHERE status = 'waiting') = $11 AS ok "
      "FROM locked), "
      "claimed AS (UPDATE mm_tickets AS t SET status = 'placing', group_id = u.request_id, "
      "changed = now() FROM locked AS l JOIN unnest($1::text[], $2::text[]) "
      "AS u (ticket_id, request_id) USING (ticket_id) "
      "WHERE t.ctid = l.ctid AND (SELECT ok FROM whole)), "
      "placed AS (", kInsertPlacements, " WHERE (SELECT ok FROM whole)) "
      "SELECT ok FROM whole");
  const pg::StallLimit limit(connection(), pg::kStallLimit);
  pqxx::nontransaction tx(connection());
  return tx.exec_params1(
      kClaim, g.tickets.Finish(), g.groups.Finish(), a.request_ids.Finish(),
      a.pools.Finish(), a.requests.Finish(), a.possible.Finish(), a.first_seats.Finish(),
      a.last_seats.Finish(), a.seats.Finish(), a.seat_tickets.Finish(), g.count)[0]
      .as<bool>();
}

void PostgresPoolSession::ClaimEach(
    const std::vector<std::string>& ticket_ids,
    const std::function<ClaimPlan(const std::set<std::string>& claimed)>& plan) {
  const pg::StallLimit limit(connection(), pg::kStallLimit);
  pqxx::work tx(connection());
  // Locked in ticket order, as admissions and commits lock them (no deadlock).
  const pqxx::result r = tx.exec_params(
      "UPDATE mm_tickets SET status = 'placing', changed = now() WHERE ticket_id IN "
      "(SELECT ticket_id FROM mm_tickets WHERE ticket_id = ANY($1::text[]) "
      "AND status = 'waiting' ORDER BY ticket_id FOR UPDATE) RETURNING ticket_id",
      TextArray(ticket_ids).Finish());
  std::set<std::string> claimed;
  for (const pqxx::row& row : r) claimed.insert(row[0].as<std::string>());
  const ClaimPlan p = plan(claimed);
  RecordPlacements(tx, p.tables);
  tx.exec_params0(
      "UPDATE mm_tickets SET status = 'waiting', changed = now() "
      "WHERE ticket_id = ANY($1::text[]) AND status = 'placing'",
      TextArray(p.back).Finish());
  // Before any table is created: a crash from here on leaves placements that the
  // pool's next matcher finishes (see the session's connection on why it need
  // not wait for fsync).
  tx.commit();
}

}  // namespace

PostgresMatchStore::PostgresMatchStore(std::string url, pg::ConnectionPool* db)
    : url_(std::move(url)), db_(db) {}

std::unique_ptr<PoolSession> PostgresMatchStore::OpenSession() {
  return std::make_unique<PostgresPoolSession>(url_);
}

absl::StatusOr<std::set<std::string>> PostgresMatchStore::CommitPlacements(
    const PlacementOutcome& outcome) {
  std::set<std::string> mine;
  absl::Status s = db_->Run("committing assignments", [&](pqxx::connection& c) {
    mine.clear();
    // One statement, atomic on its own: one round trip, durable when it returns.
    pqxx::nontransaction tx(c);
    for (const pqxx::row& row : CommitAssignments(tx, outcome)) {
      mine.insert(row[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return mine;
}

namespace {

// The seats of a commit of placements as the INSERT's columns, with the
// placement each belongs to.
struct SeatColumns {
  PgArray requests{PgType::kText}, tables{PgType::kText}, seat_no{PgType::kInt4},
      players{PgType::kText}, tickets{PgType::kText}, bots{PgType::kBool},
      addresses{PgType::kText}, tokens{PgType::kText}, teams{PgType::kInt4},
      formats{PgType::kInt4}, stakes{PgType::kInt8}, possible{PgType::kTimestampTz},
      streams{PgType::kText}, placements{PgType::kText};
};

SeatColumns SeatColumnsOf(const PlacementOutcome& p) {
  SeatColumns c;
  for (size_t i = 0; i < p.rows.size(); ++i) {
    const AssignmentRow& a = p.rows[i];
    c.requests.AddString(p.row_requests[i]);
    c.tables.AddString(a.table_id);
    c.seat_no.AddInt(a.seat);
    c.players.AddString(a.player_id);
    if (a.ticket_id.empty()) c.tickets.AddNull(); else c.tickets.AddString(a.ticket_id);
    c.bots.AddBool(a.bot);
    c.addresses.AddString(a.address);
    // The placement id stands for the token, which is not stored.
    if (a.placement_id.empty()) {
      c.tokens.AddString(a.seat_token);
      c.placements.AddNull();
    } else {
      c.tokens.AddString("");
      c.placements.AddString(a.placement_id);
    }
    c.teams.AddInt(a.team);
    c.formats.AddInt(a.format);
    c.stakes.AddInt(a.stake);
    c.possible.AddTime(a.possible);
    if (a.bot_stream.empty()) c.streams.AddNull(); else c.streams.AddString(a.bot_stream);
  }
  return c;
}

}  // namespace

pqxx::result PostgresMatchStore::CommitAssignments(pqxx::transaction_base& tx,
                                                   const PlacementOutcome& p) {
  const SeatColumns c = SeatColumnsOf(p);
  std::vector<std::string> all_tickets = p.created_tickets;
  all_tickets.insert(all_tickets.end(), p.failed_tickets.begin(), p.failed_tickets.end());
  // One statement. The placements still ours (another matcher may have finished
  // one) are deleted; their tickets, locked in ticket order as admissions lock them
  // (an admission of one of these players waits, then sees the seat), are matched
  // and their seats inserted. The failed placements' tickets go back to the queue;
  // those given up, whose tables may have been made, are recorded to be voided
  // (table_voids.h).
  // As in the claim, the lock finds the tickets by id alone, and the updates find
  // the locked rows by their ctid (see ClaimWhole()).
  return tx.exec_params(
      "WITH mine AS (DELETE FROM mm_placements WHERE request_id = ANY($1::text[]) "
      "RETURNING request_id), "
      "locked AS (SELECT ctid, ticket_id, group_id, status FROM mm_tickets "
      "WHERE ticket_id = ANY($3::text[]) ORDER BY ticket_id FOR UPDATE), "
      "still_placing AS (SELECT ctid, group_id FROM locked WHERE status = 'placing'), "
      "matched AS (UPDATE mm_tickets AS t SET status = 'matched', changed = now() "
      "FROM still_placing AS l WHERE t.ctid = l.ctid "
      "AND l.group_id IN (SELECT request_id FROM mine)), "
      "seated AS (INSERT INTO mm_assignments (table_id, seat, player_id, ticket_id, bot, "
      "address, seat_token, team, format, stake, possible, bot_stream, placement_id) "
      "SELECT table_id, seat, player_id, ticket_id, bot, address, seat_token, team, "
      "format, stake, possible, bot_stream, placement_id FROM unnest($4::text[], "
      "$5::text[], $6::int4[], $7::text[], $8::text[], $9::bool[], $10::text[], "
      "$11::text[], $12::int4[], $13::int4[], $14::int8[], $15::timestamptz[], "
      "$16::text[], $19::text[]) AS u "
      "(request_id, table_id, seat, player_id, ticket_id, bot, address, seat_token, "
      "team, format, stake, possible, bot_stream, placement_id) "
      "WHERE u.request_id IN (SELECT request_id FROM mine)), "
      "back AS (UPDATE mm_tickets AS t SET status = 'waiting', group_id = NULL, "
      "changed = now() FROM still_placing AS l WHERE t.ctid = l.ctid "
      "AND l.group_id = ANY($2::text[])), "
      "dropped AS (DELETE FROM mm_placements WHERE request_id = ANY($2::text[]) "
      "RETURNING request_id, request), "
      "to_void AS (INSERT INTO mm_table_voids (request_id, request, reason) "
      "SELECT request_id, request, $18 FROM dropped WHERE request_id = ANY($17::text[]) "
      "ON CONFLICT (request_id) DO NOTHING) "
      "SELECT request_id FROM mine",
      TextArray(p.created).Finish(), TextArray(p.failed).Finish(),
      TextArray(all_tickets).Finish(), c.requests.Finish(), c.tables.Finish(),
      c.seat_no.Finish(), c.players.Finish(), c.tickets.Finish(), c.bots.Finish(),
      c.addresses.Finish(), c.tokens.Finish(), c.teams.Finish(), c.formats.Finish(),
      c.stakes.Finish(), c.possible.Finish(), c.streams.Finish(),
      TextArray(p.given_up).Finish(), std::string(kVoidGivenUp), c.placements.Finish());
}

}  // namespace trix::matchmaking
