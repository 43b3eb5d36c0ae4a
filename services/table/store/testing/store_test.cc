#include "services/table/store/testing/store_test.h"

#include <chrono>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <pqxx/transaction>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trix::table {

void StoreTest::SetUp() {
  ASSERT_NO_FATAL_FAILURE(pg::DatabaseTest::SetUp());
  store_ = OpenStore("table-1");
  ASSERT_NE(store_, nullptr);
}

std::unique_ptr<GameStore> StoreTest::OpenStore(StoreOptions options) {
  absl::StatusOr<std::unique_ptr<GameStore>> store = GameStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

pqxx::result StoreTest::Sql(const std::string& query) {
  pqxx::connection connection(db_->url());
  pqxx::work tx(connection);
  pqxx::result result = tx.exec(query);
  tx.commit();
  return result;
}

void StoreTest::TerminateConnections() {
  pqxx::connection admin(db_->admin_url());
  pqxx::nontransaction tx(admin);  // each statement sees pg_stat_activity afresh
  const std::string others =
      absl::StrCat("FROM pg_stat_activity WHERE datname = ", tx.quote(db_->name()),
                   " AND pid <> pg_backend_pid()");
  tx.exec(absl::StrCat("SELECT pg_terminate_backend(pid) ", others));
  // Termination is asynchronous; wait until the backends are gone.
  for (int i = 0; i < 1000; ++i) {
    if (tx.exec(absl::StrCat("SELECT count(*) ", others))[0][0].as<int>() == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "connections to " << db_->name() << " outlived pg_terminate_backend";
}

void StoreTest::AllowConnections(bool allow) {
  pqxx::connection admin(db_->admin_url());
  pqxx::work tx(admin);
  tx.exec(absl::StrCat("ALTER DATABASE ", tx.quote_name(db_->name()),
                       " ALLOW_CONNECTIONS ", allow ? "true" : "false"));
  tx.commit();
}

}  // namespace trix::table
