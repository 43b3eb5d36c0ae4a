// A fresh PostgreSQL database for one test, on the server the test scripts start.
//
// Every PostgreSQL-backed test in the project uses this instead of a shared
// database, so tests run in parallel (ctest -j) and never see each other's rows.
// The server comes from MAMLAKA_TEST_DATABASE_URL, which scripts/test.sh exports
// after starting a throwaway server; a test run without it fails with a message
// saying how to provide one. It is never skipped: a storage test that silently did
// not run would hide exactly the bugs it is there for.
//
// Create() makes a database named after the running test plus a random suffix,
// applies the migrations of the source tree's migrations/ folder (unless told not
// to), and returns its URL; the destructor drops the database, closing any
// connections still open to it. A test fixture can take it, with a ConnectionPool,
// from DatabaseTest (database_test.h) instead of the set-up below.
//
//   class TableTest : public ::testing::Test {
//    protected:
//     void SetUp() override {
//       absl::StatusOr<std::unique_ptr<TestDatabase>> db = TestDatabase::Create();
//       ASSERT_TRUE(db.ok()) << db.status();
//       db_ = *std::move(db);
//     }
//     std::unique_ptr<TestDatabase> db_;  // before anything that connects to it
//   };
//   ... GameStore::Open({.url = db_->url(), .instance_id = "t"}) ...
#ifndef TRIX_SERVICES_PG_TESTING_TEST_DATABASE_H_
#define TRIX_SERVICES_PG_TESTING_TEST_DATABASE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trix::pg {

class TestDatabase {
 public:
  struct Options {
    bool migrate = true;  // apply migrations/ to the new database
  };

  // FAILED_PRECONDITION when MAMLAKA_TEST_DATABASE_URL is unset; the server's
  // error (UNAVAILABLE, ...) when the database cannot be made.
  static absl::StatusOr<std::unique_ptr<TestDatabase>> Create(Options options);
  static absl::StatusOr<std::unique_ptr<TestDatabase>> Create() { return Create({}); }
  ~TestDatabase();

  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  // The server's maintenance database, for statements about this one
  // (pg_terminate_backend, ALTER DATABASE ...).
  const std::string& admin_url() const { return admin_url_; }

  // The source tree's migrations/ folder.
  static std::string MigrationsDir();

 private:
  TestDatabase(std::string admin_url, std::string name, std::string url);

  std::string admin_url_;
  std::string name_;
  std::string url_;
};

// `url` with its database name replaced by `database`. Understands both the
// postgresql:// URL form and the "key=value ..." form.
std::string WithDatabase(const std::string& url, const std::string& database);

}  // namespace trix::pg

// Status checks that evaluate `expr` once and print the error on failure.
#ifndef ASSERT_OK
#define ASSERT_OK(expr)                             \
  do {                                              \
    const ::absl::Status trix_status_ = (expr);     \
    ASSERT_TRUE(trix_status_.ok()) << trix_status_; \
  } while (false)
#endif
#ifndef EXPECT_OK
#define EXPECT_OK(expr)                             \
  do {                                              \
    const ::absl::Status trix_status_ = (expr);     \
    EXPECT_TRUE(trix_status_.ok()) << trix_status_; \
  } while (false)
#endif

#endif  // TRIX_SERVICES_PG_TESTING_TEST_DATABASE_H_
