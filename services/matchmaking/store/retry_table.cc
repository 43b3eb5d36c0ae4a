#include "services/matchmaking/store/retry_table.h"

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "services/common/backoff.h"

namespace trix::matchmaking {

absl::Duration RetryBackoff(int retries) {
  const service::Backoff backoff(absl::Milliseconds(100), absl::Seconds(5));
  return service::Jittered(backoff.After(retries), 0.5, 1.0);
}

RetryTable::RetryTable(pg::ConnectionPool* db, std::string table, std::string key,
                       absl::Duration lease)
    : db_(db), table_(std::move(table)), key_(std::move(key)), lease_(lease) {}

absl::StatusOr<pqxx::result> RetryTable::Lease(const std::string& columns, int limit) {
  pqxx::result out;
  // Several replicas lease at once: each skips the rows another is leasing.
  const std::string sql = absl::StrCat(
      "UPDATE ", table_, " SET due = now() + make_interval(secs => $1), tries = tries + 1 ",
      "WHERE ", key_, " IN (SELECT ", key_, " FROM ", table_,
      " WHERE done IS NULL AND due <= now() ORDER BY due LIMIT $2 FOR UPDATE SKIP LOCKED) ",
      "RETURNING ", key_, ", tries, ", columns);
  absl::Status s = db_->Run(absl::StrCat("leasing ", table_), [&](pqxx::connection& c) {
    pqxx::work tx(c);
    out = tx.exec_params(sql, absl::ToDoubleSeconds(lease_), limit);
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::Status RetryTable::Done(const std::string& key) {
  return db_->Run(absl::StrCat("finishing ", table_), [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        absl::StrCat("UPDATE ", table_, " SET done = now() WHERE ", key_, " = $1"), key);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status RetryTable::Later(const std::string& key, int tries) {
  return db_->Run(absl::StrCat("postponing ", table_), [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(absl::StrCat("UPDATE ", table_,
                                 " SET due = now() + make_interval(secs => $2) WHERE ",
                                 key_, " = $1 AND done IS NULL"),
                    key, absl::ToDoubleSeconds(RetryBackoff(tries)));
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<RetryTable::Backlog> RetryTable::Pending() {
  Backlog b;
  absl::Status s = db_->Run(absl::StrCat("counting ", table_), [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::row r = tx.exec1(absl::StrCat(
        "SELECT count(*), coalesce(extract(epoch FROM now() - min(created)), 0)::float8 "
        "FROM ", table_, " WHERE done IS NULL"));
    b.pending = r[0].as<int64_t>();
    b.oldest = absl::Seconds(r[1].as<double>());
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return b;
}

absl::Status RetryTable::Sweep(absl::Duration keep) {
  return db_->Run(absl::StrCat("sweeping ", table_), [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(absl::StrCat("DELETE FROM ", table_,
                                 " WHERE done < now() - make_interval(secs => $1)"),
                    absl::ToDoubleSeconds(keep));
    tx.commit();
    return absl::OkStatus();
  });
}

}  // namespace trix::matchmaking
