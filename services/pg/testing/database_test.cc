#include "services/pg/testing/database_test.h"

#include <utility>

namespace trix::pg {

void DatabaseTest::SetUp() {
  absl::StatusOr<std::unique_ptr<TestDatabase>> db =
      TestDatabase::Create({.migrate = options_.migrate});
  ASSERT_TRUE(db.ok()) << db.status();
  db_ = *std::move(db);
  pool_ = std::make_unique<ConnectionPool>(
      db_->url(), options_.connections,
      ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

}  // namespace trix::pg
