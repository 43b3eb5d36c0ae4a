// A GoogleTest fixture for tests on a real database: a fresh, migrated database
// (test_database.h) and a ConnectionPool on it, which opens connections only when
// a test uses it. A test's own SetUp runs this one first:
//
//   class BotStreamsTest : public pg::DatabaseTest {
//    protected:
//     void SetUp() override {
//       ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
//       ... pqxx::connection c(db_->url()); ... PostgresBotStreams streams(pool_.get(), "a");
//     }
//   };
#ifndef TRIX_SERVICES_PG_TESTING_DATABASE_TEST_H_
#define TRIX_SERVICES_PG_TESTING_DATABASE_TEST_H_

#include <memory>

#include "gtest/gtest.h"
#include "services/pg/connection_pool.h"
#include "services/pg/testing/test_database.h"

namespace trix::pg {

class DatabaseTest : public ::testing::Test {
 protected:
  struct Options {
    bool migrate = true;  // apply migrations/ to the new database
    int connections = 8;  // the pool's size
  };
  DatabaseTest() = default;
  explicit DatabaseTest(Options options) : options_(options) {}

  void SetUp() override;

  // Dropped last: after pool_ and every member of a derived fixture.
  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<ConnectionPool> pool_;  // named after the test in pg_stat_activity

 private:
  Options options_;
};

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_TESTING_DATABASE_TEST_H_
