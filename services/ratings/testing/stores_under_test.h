// The store a contract test of the ratings service checks, by the test's
// parameter: "Memory" (its in-memory fake) or "Postgres" (its PostgreSQL store on
// a fresh migrated database, MAMLAKA_TEST_DATABASE_URL).
//
//   class MemoryUnderTest : public StoreUnderTest { ... };
//   class PostgresUnderTest : public StoreUnderTest {
//     explicit PostgresUnderTest(std::unique_ptr<storage::TestDatabase> db); ... };
//   void SetUp() override {
//     MakeUnderTest<MemoryUnderTest, PostgresUnderTest>(GetParam(), under_);
//   }
#ifndef TRIX_SERVICES_RATINGS_TESTING_STORES_UNDER_TEST_H_
#define TRIX_SERVICES_RATINGS_TESTING_STORES_UNDER_TEST_H_

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "services/common/logging.h"
#include "services/storage/testing/test_database.h"

namespace trix::ratings {

template <typename Memory, typename Postgres, typename UnderTest>
void MakeUnderTest(const std::string& param, std::unique_ptr<UnderTest>& out) {
  service::InitLogging("ratings-store-test", "off");
  if (param == "Memory") {
    out = std::make_unique<Memory>();
    return;
  }
  absl::StatusOr<std::unique_ptr<storage::TestDatabase>> db = storage::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  out = std::make_unique<Postgres>(*std::move(db));
}

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_STORES_UNDER_TEST_H_
