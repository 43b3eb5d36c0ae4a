// The connection defaults every service's connections get, and StallLimit: a call
// the server does not answer is cut off at its limit, on a real PostgreSQL (a
// statement that sleeps is, to the client, a server that does not answer).
#include "services/pg/connection_pool.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <pqxx/pqxx>
#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/pg/status.h"
#include "services/pg/testing/database_test.h"

namespace trix::pg {
namespace {

TEST(ConnectionUrlTest, AddsConnectionDefaultsTheUrlDoesNotSet) {
  EXPECT_EQ(*ConnectionUrl("postgresql://u@h:5/db"),
            "postgresql://u@h:5/db?connect_timeout=3&tcp_user_timeout=5000"
            "&keepalives_idle=10&keepalives_interval=3&keepalives_count=3");
  EXPECT_EQ(*ConnectionUrl("postgresql://h/db?connect_timeout=1&keepalives_idle=7"),
            "postgresql://h/db?connect_timeout=1&keepalives_idle=7"
            "&tcp_user_timeout=5000&keepalives_interval=3&keepalives_count=3");
  EXPECT_EQ(*ConnectionUrl("host=h dbname=db keepalives_count=9"),
            "host=h dbname=db keepalives_count=9 connect_timeout=3 "
            "tcp_user_timeout=5000 keepalives_idle=10 keepalives_interval=3");
  EXPECT_EQ(ConnectionUrl("host=h oops").status().code(),
            absl::StatusCode::kInvalidArgument);
}

class StallLimitTest : public DatabaseTest {};

TEST_F(StallLimitTest, ConnectionsCarryTheDefaults) {
  std::unique_ptr<pqxx::connection> c = Connect(db_->url(), "stall-limit-test");
  int value = 0;
  socklen_t size = sizeof(value);
  ASSERT_EQ(getsockopt(c->sock(), IPPROTO_TCP, TCP_USER_TIMEOUT, &value, &size), 0)
      << "the test database is not reached over TCP: " << db_->url();
  EXPECT_EQ(value, 5000);
  ASSERT_EQ(getsockopt(c->sock(), IPPROTO_TCP, TCP_KEEPIDLE, &value, &size), 0);
  EXPECT_EQ(value, 10);
}

TEST_F(StallLimitTest, ACallWithoutAnAnswerIsCutAtItsLimit) {
  std::unique_ptr<pqxx::connection> c = Connect(db_->url(), "stall-limit-test");
  const absl::Time start = absl::Now();
  absl::Status status;
  try {
    const StallLimit limit(*c, absl::Milliseconds(500));
    pqxx::nontransaction(*c).exec("SELECT pg_sleep(20)");
  } catch (...) {
    status = StatusFromException("sleeping");
  }
  const absl::Duration took = absl::Now() - start;
  EXPECT_TRUE(IsConnectionLost(status)) << status;
  EXPECT_GE(took, absl::Milliseconds(500));
  EXPECT_LT(took, absl::Seconds(3));
  EXPECT_FALSE(c->is_open());
}

TEST_F(StallLimitTest, ACallThatAnswersInTimeIsLeftAlone) {
  std::unique_ptr<pqxx::connection> c = Connect(db_->url(), "stall-limit-test");
  {
    const StallLimit limit(*c, absl::Milliseconds(300));
    pqxx::nontransaction(*c).exec("SELECT pg_sleep(0.1)");
  }
  absl::SleepFor(absl::Milliseconds(500));  // past the limit: the socket is untouched
  EXPECT_EQ(pqxx::nontransaction(*c).exec1("SELECT 1")[0].as<int>(), 1);
}

TEST_F(StallLimitTest, ThePoolGivesUpOnACallAtTheStallLimitAndHeals) {
  const absl::Time start = absl::Now();
  const absl::Status stalled = pool_->Run("sleeping", [](pqxx::connection& c) {
    pqxx::nontransaction(c).exec("SELECT pg_sleep(20)");
    return absl::OkStatus();
  });
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(stalled.code(), absl::StatusCode::kUnavailable) << stalled;
  EXPECT_GE(took, kStallLimit);
  EXPECT_LT(took, kStallLimit + absl::Seconds(3));
  EXPECT_EQ(pool_->open_connections(), 0);  // the cut connection was dropped
  EXPECT_TRUE(pool_->Run("after", [](pqxx::connection& c) {
                      pqxx::nontransaction(c).exec("SELECT 1");
                      return absl::OkStatus();
                    }).ok());
}

}  // namespace
}  // namespace trix::pg
