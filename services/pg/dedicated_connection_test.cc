// Dialer and DedicatedConnection against the test database and an address where
// nothing listens.
#include "services/pg/dedicated_connection.h"

#include <pqxx/pqxx>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "services/pg/status.h"
#include "services/pg/testing/database_test.h"

namespace trix::pg {
namespace {

// Port 1 on the loopback: refused at once.
constexpr char kNobody[] = "postgresql://nobody@127.0.0.1:1/none";

TEST(DialerTest, AFailedAttemptHoldsTheNextOneBack) {
  Dialer dialer(kNobody, "dialer test");
  EXPECT_THROW(dialer.Open(), pqxx::broken_connection);
  EXPECT_EQ(dialer.attempts(), 1);
  try {
    dialer.Open();
    FAIL() << "a second attempt within the backoff was made";
  } catch (const pqxx::broken_connection& e) {
    EXPECT_NE(std::string(e.what()).find("the next connection attempt is in"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(dialer.attempts(), 1);
}

class DedicatedConnectionTest : public DatabaseTest {
 protected:
  DedicatedConnectionTest() : DatabaseTest({.migrate = false, .connections = 1}) {}

  int64_t Backend(pqxx::connection& c) {
    return pqxx::nontransaction(c).exec1("SELECT pg_backend_pid()")[0].as<int64_t>();
  }
};

TEST_F(DedicatedConnectionTest, KeepsOneConnectionPreparedUntilItIsLost) {
  int prepared = 0;
  DedicatedConnection connection(db_->url(), "dedicated test", [&](pqxx::connection& c) {
    ++prepared;
    c.prepare("answer", "SELECT 42");
  });
  EXPECT_FALSE(connection.connected());
  const int64_t first = Backend(connection.Get());
  EXPECT_EQ(Backend(connection.Get()), first);
  EXPECT_EQ(prepared, 1);
  EXPECT_EQ(pqxx::nontransaction(connection.Get()).exec_prepared1("answer")[0].as<int>(), 42);

  // A failure that is not a lost connection keeps it.
  connection.DropIfLost(absl::InvalidArgumentError("a constraint"));
  EXPECT_TRUE(connection.connected());
  EXPECT_EQ(Backend(connection.Get()), first);

  // The server ends the backend: the next statement fails as a lost connection.
  pqxx::connection admin(db_->url());
  pqxx::nontransaction(admin).exec_params1("SELECT pg_terminate_backend($1)", first);
  absl::Status failure;
  try {
    pqxx::nontransaction(connection.Get()).exec0("SELECT 1");
  } catch (...) {
    failure = StatusFromException("selecting");
  }
  ASSERT_FALSE(failure.ok());
  EXPECT_TRUE(connection.Lost(failure)) << failure;
  connection.DropIfLost(failure);
  EXPECT_FALSE(connection.connected());

  const int64_t second = Backend(connection.Get());
  EXPECT_NE(second, first);
  EXPECT_EQ(prepared, 2);
  EXPECT_EQ(connection.attempts(), 2);
}

TEST_F(DedicatedConnectionTest, APrepareThatFailsLeavesNoConnection) {
  DedicatedConnection connection(db_->url(), "dedicated test", [](pqxx::connection& c) {
    pqxx::nontransaction(c).exec0("SELECT * FROM no_such_table");
  });
  EXPECT_THROW(connection.Get(), pqxx::sql_error);
  EXPECT_FALSE(connection.connected());
}

}  // namespace
}  // namespace trix::pg
