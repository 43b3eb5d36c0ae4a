// A GoogleTest fixture for tests of GameStore and of code built on it: a fresh,
// migrated database (database_test.h), a store open on it as instance "table-1",
// and direct SQL for checking what was written or for arranging what a store
// alone cannot (a lapsed lease, a database that stops taking connections).
//
//   class LeaseTest : public StoreTest {};
//   TEST_F(LeaseTest, ...) {
//     ASSERT_OK(store_->CreateGame(SampleGame("g1")));
//     EXPECT_EQ(Sql("SELECT lease_owner FROM games")[0][0].as<std::string>(), "table-1");
//   }
#ifndef TRIX_SERVICES_TABLE_STORE_TESTING_STORE_TEST_H_
#define TRIX_SERVICES_TABLE_STORE_TESTING_STORE_TEST_H_

#include <memory>
#include <pqxx/result>
#include <string>

#include "gtest/gtest.h"
#include "services/table/store/game_store.h"
#include "services/pg/testing/database_test.h"

namespace trix::table {

class StoreTest : public pg::DatabaseTest {
 protected:
  void SetUp() override;

  // Another store on the same database, as another table-service instance.
  std::unique_ptr<GameStore> OpenStore(StoreOptions options);
  std::unique_ptr<GameStore> OpenStore(const std::string& instance_id) {
    return OpenStore(StoreOptions{.url = db_->url(), .instance_id = instance_id});
  }

  // Runs `query` on a connection of its own, outside any store, and commits.
  pqxx::result Sql(const std::string& query);
  // Ends every connection to the test database but the caller's, as a server
  // restart or a network cut would (pg_terminate_backend).
  void TerminateConnections();
  // Whether the database accepts new connections (ALTER DATABASE ... ALLOW_CONNECTIONS).
  void AllowConnections(bool allow);

  std::unique_ptr<GameStore> store_;  // instance "table-1"
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_TESTING_STORE_TEST_H_
