// PostgreSQL down for longer than a lease, over the public API: a PostgreSQL
// server of the test's own (scripts/pg.sh, on a socket in its own folder) is
// stopped with pg_ctl in the middle of a game and started again. While it is down
// the service acknowledges nothing, reports NOT_SERVING and backs off its
// reconnects; once it is back the service serves again and every acknowledged
// action is in the log, the one refused during the outage too once retried.
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <pqxx/result>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/table/store/game_store.h"
#include "tests/integration/own_cluster.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

class OutageTest : public TableServiceTest {
 protected:
  void SetUp() override {
    url_ = cluster_.Start();
    ASSERT_FALSE(url_.empty()) << "scripts/pg.sh could not start a server";
    absl::StatusOr<std::unique_ptr<table::GameStore>> store =
        table::GameStore::Open({.url = url_, .instance_id = "migrator"});
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Migrate(SourcePath("migrations")).ok());
    ServiceOptions options = DefaultServiceOptions("outage");
    options.host.lease_ttl = absl::Seconds(1);
    options.host.maintenance_every = absl::Milliseconds(100);
    absl::StatusOr<std::unique_ptr<InProcessService>> service =
        InProcessService::Start(url_, std::move(options));
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
    channel_ = NewChannel();
    stub_ = v1::TableService::NewStub(channel_);
  }

  // Waits (up to 20 s) until the health check answers `status`.
  bool HealthBecomes(int status) {
    for (int i = 0; i < 200; ++i) {
      if (HealthStatus(channel_, "") == status) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  OwnCluster cluster_;
  std::string url_;
};

TEST_F(OutageTest, StopsAcknowledgingWhileDownAndResumesLosingNothing) {
  const v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 11);
  ASSERT_TRUE(Act(table, 1, "leave-1", Leave()).ok());
  ASSERT_EQ(HealthStatus(channel_, ""), 1);

  cluster_.Stop();
  const grpc::Status refused = Act(table, 2, "leave-2", Leave());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE)
      << refused.error_message();
  EXPECT_TRUE(HealthBecomes(2)) << "never NOT_SERVING while the database was down";
  // Past the lease: the table's lease lapses while nobody can renew it.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int i = 0; i < 20; ++i) Act(table, 3, absl::StrCat("down-", i), Leave());
  const table::AppendStats down = service_->store().append_stats();

  ASSERT_FALSE(cluster_.Start().empty());
  EXPECT_TRUE(HealthBecomes(1)) << "never SERVING again after the database came back";
  // The client retries the refused action under its request id until it sticks;
  // the table may be re-adopted meanwhile (UNAVAILABLE or "not open" for a moment).
  grpc::Status retried;
  for (int i = 0; i < 100; ++i) {
    retried = Act(table, 2, "leave-2", Leave());
    if (retried.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(retried.ok()) << retried.error_message();

  // The writer dialled the database a handful of times, not once per action.
  EXPECT_LE(down.connects, 12) << "reconnects were not backed off";
  pqxx::connection check(url_);
  pqxx::nontransaction tx(check);
  std::set<std::string> logged;
  for (const pqxx::row& row : tx.exec_params(
           "SELECT request_id FROM game_log WHERE game_id = $1 AND request_id <> ''",
           table.table_id())) {
    logged.insert(row[0].as<std::string>());
  }
  EXPECT_TRUE(logged.count("leave-1")) << "an action acknowledged before the outage";
  EXPECT_TRUE(logged.count("leave-2")) << "the action retried after the outage";
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(logged.count(absl::StrCat("down-", i)));
}

}  // namespace
}  // namespace trix::table
