#include "services/matchmaking/store/table_void_store.h"

#include <pqxx/pqxx>

namespace trix::matchmaking {

PostgresTableVoidStore::PostgresTableVoidStore(pg::ConnectionPool* db)
    : db_(db), table_(db, "mm_table_voids", "request_id") {}

absl::StatusOr<std::vector<DueVoid>> PostgresTableVoidStore::Lease(int limit) {
  absl::StatusOr<pqxx::result> due =
      table_.Lease("request, table_id, address, reason", limit);
  if (!due.ok()) return due.status();
  std::vector<DueVoid> voids;
  for (const pqxx::row& r : *due) {
    voids.push_back({.request_id = r[0].as<std::string>(),
                     .tries = r[1].as<int>(),
                     .request = pqxx::binarystring(r[2]).str(),
                     .table_id = r[3].as<std::string>(),
                     .address = r[4].as<std::string>(),
                     .reason = r[5].as<std::string>()});
  }
  return voids;
}

absl::Status PostgresTableVoidStore::RecordTable(const std::string& request_id,
                                                 const std::string& table_id,
                                                 const std::string& address) {
  return db_->Run("recording the table to void", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(
        "UPDATE mm_table_voids SET table_id = $2, address = $3 WHERE request_id = $1",
        request_id, table_id, address);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status PostgresTableVoidStore::Done(const std::string& request_id) {
  return table_.Done(request_id);
}

absl::Status PostgresTableVoidStore::Later(const std::string& request_id, int tries) {
  return table_.Later(request_id, tries);
}

absl::StatusOr<RetryTable::Backlog> PostgresTableVoidStore::Pending() {
  return table_.Pending();
}

}  // namespace trix::matchmaking
