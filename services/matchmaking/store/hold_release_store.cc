#include "services/matchmaking/store/hold_release_store.h"

#include <pqxx/pqxx>

#include "services/matchmaking/store/postgres_ticket_store.h"
#include "services/pg/array.h"

namespace trix::matchmaking {

PostgresHoldReleaseStore::PostgresHoldReleaseStore(pg::ConnectionPool* db)
    : db_(db), table_(db, "mm_hold_releases", "hold_id") {}

absl::Status PostgresHoldReleaseStore::Expect(const std::vector<HoldIntent>& holds,
                                              absl::Duration grace) {
  if (holds.empty()) return absl::OkStatus();
  pg::PgArray ids(pg::PgType::kText), players(pg::PgType::kText),
      amounts(pg::PgType::kInt8);
  for (const HoldIntent& h : holds) {
    ids.AddString(h.request_id);
    players.AddString(h.player_id);
    amounts.AddInt(h.amount);
  }
  return db_->Run("recording stakes to hold", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_hold_releases (hold_id, reason, player_id, amount, due) "
        "SELECT u.id, $4, u.player, u.amount, now() + make_interval(secs => $5) "
        "FROM unnest($1::text[], $2::text[], $3::int8[]) AS u (id, player, amount) "
        "ON CONFLICT (hold_id) DO UPDATE SET due = EXCLUDED.due, done = NULL",
        ids.Finish(), players.Finish(), amounts.Finish(), std::string(kReleaseAdmission),
        absl::ToDoubleSeconds(grace));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresHoldReleaseStore::Queued(const std::vector<std::string>& request_ids) {
  if (request_ids.empty()) return absl::OkStatus();
  return db_->Run("forgetting queued stakes", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "DELETE FROM mm_hold_releases WHERE hold_id = ANY($1::text[]) AND reason = $2 "
        "AND done IS NULL",
        TextArray(request_ids).Finish(), std::string(kReleaseAdmission));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresHoldReleaseStore::DueNow(const std::vector<std::string>& hold_ids) {
  if (hold_ids.empty()) return absl::OkStatus();
  return db_->Run("releasing unqueued stakes", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "UPDATE mm_hold_releases SET due = now() WHERE hold_id = ANY($1::text[]) "
        "AND done IS NULL",
        TextArray(hold_ids).Finish());
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresHoldReleaseStore::EndTable(const std::string& table_id,
                                                const std::string& named_table,
                                                const std::string& reason) {
  return db_->Run("ending a table's seats", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "WITH seats AS (UPDATE mm_assignments SET finished = true WHERE table_id = $1 "
        "RETURNING ticket_id, stake) "
        "INSERT INTO mm_hold_releases (hold_id, table_id, reason) "
        "SELECT t.hold_id, $2, $3 FROM seats AS s JOIN mm_tickets AS t USING (ticket_id) "
        "WHERE s.stake > 0 AND t.hold_id IS NOT NULL ON CONFLICT (hold_id) DO UPDATE "
        "SET table_id = EXCLUDED.table_id, reason = EXCLUDED.reason, due = now() "
        "WHERE mm_hold_releases.done IS NULL",
        table_id, named_table, reason);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<std::set<std::string>> PostgresHoldReleaseStore::Spent(
    const std::vector<std::string>& hold_ids) {
  std::set<std::string> spent;
  absl::Status s = db_->Run("reading spent holds", [&](pqxx::connection& c) {
    spent.clear();
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             "SELECT DISTINCT hold_id FROM mm_tickets WHERE hold_id = ANY($1::text[]) "
             "AND status NOT IN ('waiting', 'placing')",
             TextArray(hold_ids).Finish())) {
      spent.insert(r[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return spent;
}

absl::StatusOr<bool> PostgresHoldReleaseStore::Carried(const std::string& hold_id) {
  bool carried = false;
  absl::Status s = db_->Run("reading a hold's ticket", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    carried = tx.exec_params1(
                    "SELECT EXISTS (SELECT 1 FROM mm_tickets WHERE hold_id = $1 "
                    "AND status IN ('waiting', 'placing', 'matched'))",
                    hold_id)[0]
                  .as<bool>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return carried;
}

absl::Status PostgresHoldReleaseStore::RecordEnded(absl::Duration within) {
  return db_->Run("reconciling ended tickets' holds", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO mm_hold_releases (hold_id, reason) "
        "SELECT hold_id, 'ticket ' || status FROM mm_tickets WHERE hold_id IS NOT NULL "
        "AND status IN ('cancelled', 'superseded') "
        "AND changed > now() - make_interval(secs => $1) ON CONFLICT (hold_id) DO NOTHING",
        absl::ToDoubleSeconds(within));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<DueRelease>> PostgresHoldReleaseStore::Lease(int limit) {
  absl::StatusOr<pqxx::result> due = table_.Lease(
      "table_id, reason, player_id, amount, EXISTS (SELECT 1 FROM mm_tickets AS t "
      "WHERE t.hold_id = mm_hold_releases.hold_id "
      "AND t.status IN ('waiting', 'placing', 'matched'))",
      limit);
  if (!due.ok()) return due.status();
  std::vector<DueRelease> releases;
  for (const pqxx::row& r : *due) {
    releases.push_back({.hold_id = r[0].as<std::string>(),
                        .tries = r[1].as<int>(),
                        .table_id = r[2].as<std::string>(),
                        .reason = r[3].as<std::string>(),
                        .player_id = r[4].as<std::string>(),
                        .amount = r[5].as<int64_t>(),
                        .carried = r[6].as<bool>()});
  }
  return releases;
}

absl::Status PostgresHoldReleaseStore::Done(const std::string& hold_id) {
  return table_.Done(hold_id);
}

absl::Status PostgresHoldReleaseStore::Later(const std::string& hold_id, int tries) {
  return table_.Later(hold_id, tries);
}

absl::StatusOr<RetryTable::Backlog> PostgresHoldReleaseStore::Pending() {
  return table_.Pending();
}

absl::Status PostgresHoldReleaseStore::Sweep(absl::Duration keep) {
  return table_.Sweep(keep);
}

}  // namespace trix::matchmaking
