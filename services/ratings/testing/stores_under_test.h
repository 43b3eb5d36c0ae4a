// The store a contract test of the ratings service checks, by the test's
// parameter: "Memory" (its in-memory fake) or "Postgres" (its PostgreSQL store on
// a fresh migrated database, MAMLAKA_TEST_DATABASE_URL), and ExecSql for their
// set-up on PostgreSQL.
//
//   class MemoryUnderTest : public StoreUnderTest { ... };
//   class PostgresUnderTest : public StoreUnderTest {
//     explicit PostgresUnderTest(std::unique_ptr<pg::TestDatabase> db); ... };
//   void SetUp() override {
//     MakeUnderTest<MemoryUnderTest, PostgresUnderTest>(GetParam(), under_);
//   }
#ifndef TRIX_SERVICES_RATINGS_TESTING_STORES_UNDER_TEST_H_
#define TRIX_SERVICES_RATINGS_TESTING_STORES_UNDER_TEST_H_

#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "gtest/gtest.h"
#include "services/common/logging.h"
#include "services/pg/testing/test_database.h"

namespace trix::ratings {

template <typename Memory, typename Postgres, typename UnderTest>
void MakeUnderTest(const std::string& param, std::unique_ptr<UnderTest>& out) {
  service::InitLogging("ratings-store-test", "off");
  if (param == "Memory") {
    out = std::make_unique<Memory>();
    return;
  }
  absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db = pg::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  out = std::make_unique<Postgres>(*std::move(db));
}

// Runs `sql` in a transaction of its own on the database at `url` (a test's
// set-up of what another service writes). Throws what libpqxx throws.
inline void ExecSql(const std::string& url, const std::string& sql) {
  pqxx::connection c(url);
  pqxx::work tx(c);
  tx.exec0(sql);
  tx.commit();
}

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_STORES_UNDER_TEST_H_
