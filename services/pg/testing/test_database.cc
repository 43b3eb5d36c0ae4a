#include "services/pg/testing/test_database.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/pg/migrations.h"
#include "services/pg/status.h"

namespace trix::pg {
namespace {

constexpr const char* kUrlVariable = "MAMLAKA_TEST_DATABASE_URL";

// "GameStoreTest.AppendsInOrder/3" -> "gamestoretest_appendsinorder_3", shortened
// so that with the prefix and suffix it stays under PostgreSQL's 63-byte names.
std::string TestName() {
  const ::testing::TestInfo* test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string raw = test == nullptr
                        ? std::string("no_test")
                        : absl::StrCat(test->test_suite_name(), "_", test->name());
  std::string name;
  for (char c : raw) {
    if (name.size() == 40) break;
    name += std::isalnum(static_cast<unsigned char>(c))
                ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                : '_';
  }
  return name;
}

// Applies the project's migrations to the database at `url`.
absl::Status MigrateDatabase(const std::string& url) {
  absl::StatusOr<std::vector<Migration>> migrations =
      ReadMigrations(TestDatabase::MigrationsDir());
  if (!migrations.ok()) return migrations.status();
  try {
    pqxx::connection connection(url);
    return ApplyMigrations(connection, *migrations);
  } catch (...) {
    return StatusFromException("migrating the test database");
  }
}

std::string RandomSuffix() {
  std::random_device random;
  std::uniform_int_distribution<uint32_t> digits;
  char buffer[9];
  std::snprintf(buffer, sizeof buffer, "%08x", digits(random));
  return buffer;
}

}  // namespace

std::string WithDatabase(const std::string& url, const std::string& database) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) {
    return absl::StrCat(url, " dbname=", database);  // a later keyword wins
  }
  const size_t path = url.find('/', scheme + 3);
  const size_t query = url.find('?', scheme + 3);
  const std::string authority =
      url.substr(0, std::min(path == std::string::npos ? url.size() : path,
                             query == std::string::npos ? url.size() : query));
  const std::string params = query == std::string::npos ? "" : url.substr(query);
  return absl::StrCat(authority, "/", database, params);
}

std::string TestDatabase::MigrationsDir() { return SourcePath("migrations"); }

absl::StatusOr<std::unique_ptr<TestDatabase>> TestDatabase::Create(Options options) {
  const char* admin_url = std::getenv(kUrlVariable);
  if (admin_url == nullptr || *admin_url == '\0') {
    return absl::FailedPreconditionError(absl::StrCat(
        kUrlVariable,
        " is not set, so there is no PostgreSQL server to test against. Run the tests "
        "with scripts/test.sh, which starts one, or start one yourself and export its "
        "URL:\n  d=$(mktemp -d); chmod 755 $d\n  export ",
        kUrlVariable, "=$(scripts/pg.sh start $d 55441)\n  ctest --test-dir build ..."));
  }
  const std::string name = absl::StrCat("t_", TestName(), "_", RandomSuffix());
  try {
    pqxx::connection admin(admin_url);
    pqxx::nontransaction tx(admin);
    tx.exec(absl::StrCat("CREATE DATABASE ", tx.quote_name(name)));
  } catch (...) {
    return StatusFromException(absl::StrCat("creating test database ", name, " via ",
                                            kUrlVariable, "=", admin_url));
  }
  std::unique_ptr<TestDatabase> db(
      new TestDatabase(admin_url, name, WithDatabase(admin_url, name)));
  if (options.migrate) {
    if (absl::Status s = MigrateDatabase(db->url()); !s.ok()) return s;
  }
  return db;
}

TestDatabase::TestDatabase(std::string admin_url, std::string name, std::string url)
    : admin_url_(std::move(admin_url)), name_(std::move(name)), url_(std::move(url)) {}

TestDatabase::~TestDatabase() {
  try {
    pqxx::connection admin(admin_url_);
    pqxx::nontransaction tx(admin);
    // FORCE (PostgreSQL 13+) ends any connection a test left open.
    tx.exec(
        absl::StrCat("DROP DATABASE IF EXISTS ", tx.quote_name(name_), " WITH (FORCE)"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dropping test database %s: %s\n", name_.c_str(), e.what());
  }
}

}  // namespace trix::pg
