// Recovery: a table survives its instance. Graceful: the instance drains and
// releases its leases, another takes the tables before it reports SERVING.
// Abrupt: the real table-service binary is killed with SIGKILL mid-game and started
// again with the same instance id and database: it takes its tables back before
// it reports SERVING, so the clients' first reconnection succeeds, and nothing
// that was acknowledged or streamed is lost.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/failover_check.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/service_process.h"

namespace trix::table {
namespace {

using RecoveryTest = TableServiceTest;

TEST_F(RecoveryTest, AnotherInstanceTakesOverAfterAGracefulShutdown) {
  const uint64_t seed = 81;
  v1::CreateTableResponse table = CreateTable(
      MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed, 0, /*kingdoms=*/2);
  std::vector<std::unique_ptr<SeatClient>> before;
  for (int s = 0; s < 4; ++s) {
    before.push_back(std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                                  table.seat_tokens(s), s));
    before.back()->Open(0, seed + s);
  }
  ASSERT_TRUE(WaitForAcks(before, 30));
  StartService(DefaultServiceOptions("it-2"));  // drains it-1, which releases its lease
  for (auto& client : before) {
    EXPECT_EQ(client->WaitDone(absl::Seconds(10)).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  // it-2 took the released tables before it reported SERVING: the first
  // reconnection succeeds.
  std::vector<Followed> after;
  for (int s = 0; s < 4; ++s) {
    after.push_back(FollowTable({service_->address()}, table, s, before[s]->last_seq(),
                                seed + 10 + s, /*strict=*/true));
    ASSERT_NE(after.back().client, nullptr);
  }
  for (auto& f : after) ASSERT_TRUE(f.client->WaitDone(absl::Seconds(60)).ok());
  for (int s = 0; s < 4; ++s) {
    CheckNothingLost(*stub_, table, s, *before[s], *after[s].client, seed);
  }
}

TEST_F(RecoveryTest, KillNineMidGameLosesNothingAcknowledged) {
  StopService();  // this test runs the real binary instead
  const ServiceProcess::Options options = {.binary = TABLE_SERVICE_BINARY,
                                           .db_url = db_->url(),
                                           .instance_id = "kill-nine",
                                           .dir = ::testing::TempDir(),
                                           .migrations_dir = MIGRATIONS_DIR};
  std::unique_ptr<ServiceProcess> first = ServiceProcess::Start(options);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->WaitServing(absl::Seconds(30))) << first->Log();
  auto stub = v1::TableService::NewStub(first->NewChannel());

  const uint64_t seed = 82;
  v1::CreateTableRequest create = CreateRequest(
      MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed, 0, /*kingdoms=*/2);
  v1::CreateTableResponse table;
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
    ASSERT_TRUE(stub->CreateTable(&context, create, &table).ok()) << first->Log();
  }
  std::vector<std::unique_ptr<SeatClient>> before;
  for (int s = 0; s < 4; ++s) {
    before.push_back(std::make_unique<SeatClient>(first->NewChannel(), table.table_id(),
                                                  table.seat_tokens(s), s));
    before.back()->Open(0, seed + s);
  }
  ASSERT_TRUE(WaitForAcks(before, 40));
  first->Kill();  // SIGKILL: no drain, no lease release, appends in flight cut off
  for (auto& client : before) {
    EXPECT_EQ(client->WaitDone(absl::Seconds(10)).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }

  // The same instance again (on another port): its own tables are hosted before
  // it reports SERVING, so no seat sees NOT_FOUND or UNAVAILABLE.
  std::unique_ptr<ServiceProcess> second = ServiceProcess::Start(options);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(second->WaitServing(absl::Seconds(30))) << second->Log();
  stub = v1::TableService::NewStub(second->NewChannel());
  std::vector<Followed> after;
  for (int s = 0; s < 4; ++s) {
    after.push_back(FollowTable({second->address()}, table, s, before[s]->last_seq(),
                                seed + 10 + s, /*strict=*/true));
    ASSERT_NE(after.back().client, nullptr) << second->Log();
  }
  for (auto& f : after) {
    grpc::Status end = f.client->WaitDone(absl::Seconds(60));
    ASSERT_TRUE(end.ok()) << end.error_message() << "\n" << second->Log();
  }
  for (int s = 0; s < 4; ++s) {
    CheckNothingLost(*stub, table, s, *before[s], *after[s].client, seed);
  }
}

}  // namespace
}  // namespace trix::table
