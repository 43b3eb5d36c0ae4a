// A fleet: several real table-service processes on their own loopback ports and
// one database. Seats follow their table wherever it lives (the location in a
// refusal's details), whatever happens to the instance they were on: kill -9, or
// SIGSTOP past its lease and SIGCONT (the paused instance must serve nothing
// stale). One table with an inconsistent log is quarantined; the others play on.
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/table_location.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/failover_check.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/service_process.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

class FleetTest : public TableServiceTest {
 protected:
  void SetUp() override {
    TableServiceTest::SetUp();
    StopService();  // the real binaries instead
  }

  ServiceProcess& Launch(const std::string& name) {
    instances_.push_back(
        ServiceProcess::StartServing({.binary = BuildPath("bin/table-service"),
                                      .db_url = db_->url(),
                                      .instance_id = name,
                                      .dir = ::testing::TempDir(),
                                      .migrations_dir = SourcePath("migrations")}));
    if (instances_.back() == nullptr) std::abort();  // StartServing failed the test
    return *instances_.back();
  }

  v1::CreateTableResponse CreateOn(const ServiceProcess& at, uint64_t seed, int clock_ms,
                                   int kingdoms) {
    return at.CreateTable(CreateRequest(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed,
                                        clock_ms, kingdoms));
  }

  std::vector<std::unique_ptr<SeatClient>> SeatsOn(ServiceProcess& at,
                                                   const v1::CreateTableResponse& table,
                                                   uint64_t seed) {
    std::vector<std::unique_ptr<SeatClient>> seats;
    for (int s = 0; s < 4; ++s) {
      seats.push_back(std::make_unique<SeatClient>(at.NewChannel(), table.table_id(),
                                                   table.seat_tokens(s), s));
      seats.back()->Open(0, seed + s);
    }
    return seats;
  }

  // Follows every seat from `addresses`, plays to the end, checks nothing was
  // lost, and returns where the seats ended up.
  std::vector<std::string> FollowAndFinish(
      const std::vector<std::string>& addresses, const v1::CreateTableResponse& table,
      const std::vector<std::unique_ptr<SeatClient>>& before, uint64_t seed) {
    std::vector<Followed> after;
    for (int s = 0; s < 4; ++s) {
      after.push_back(
          FollowTable(addresses, table, s, before[s]->last_seq(), seed + 10 + s));
      if (!after.back().client) return {};
    }
    std::vector<std::string> where;
    for (Followed& f : after) {
      grpc::Status end = f.client->WaitDone(absl::Seconds(60));
      EXPECT_TRUE(end.ok()) << end.error_message();
      where.push_back(f.address);
    }
    auto stub = v1::TableService::NewStub(
        grpc::CreateChannel(where[0], grpc::InsecureChannelCredentials()));
    for (int s = 0; s < 4; ++s) {
      CheckNothingLost(*stub, table, s, *before[s], *after[s].client, seed);
    }
    return where;
  }

  v1::TableLocation Locate(ServiceProcess& at, const std::string& table_id) {
    v1::LocateTableRequest request;
    request.set_table_id(table_id);
    v1::TableLocation location;
    grpc::ClientContext context;
    v1::TableService::NewStub(at.NewChannel())->LocateTable(&context, request, &location);
    return location;
  }

  uint64_t SpectatorSeq(ServiceProcess& at, const std::string& table_id) {
    v1::GetTableRequest request;
    request.set_table_id(table_id);
    v1::TableView view;
    grpc::ClientContext context;
    grpc::Status s =
        v1::TableService::NewStub(at.NewChannel())->GetTable(&context, request, &view);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return view.seq();
  }

  pqxx::result Sql(const std::string& query) {
    pqxx::connection connection(db_->url());
    pqxx::work tx(connection);
    pqxx::result result = tx.exec(query);
    tx.commit();
    return result;
  }

  void TearDown() override {
    if (HasFailure()) {
      for (const auto& p : instances_) {
        if (p) std::cerr << "--- " << p->address() << "\n" << p->Log();
      }
    }
    instances_.clear();
    TableServiceTest::TearDown();
  }

  std::vector<std::unique_ptr<ServiceProcess>> instances_;
};

TEST_F(FleetTest, KillNineMovesEverySeatToTheInstanceThatAdoptedTheTable) {
  ServiceProcess& a = Launch("fleet-a");
  ServiceProcess& b = Launch("fleet-b");
  ServiceProcess& c = Launch("fleet-c");
  const uint64_t seed = 91;
  v1::CreateTableResponse table = CreateOn(a, seed, 0, /*kingdoms=*/2);
  std::vector<std::unique_ptr<SeatClient>> before = SeatsOn(a, table, seed);
  ASSERT_TRUE(WaitForAcks(before, 30));
  a.Kill();
  for (auto& client : before) {
    EXPECT_EQ(client->WaitDone(absl::Seconds(10)).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  // Half the seats ask b, half c: one of them adopts the table, the others are
  // sent there.
  const std::vector<std::string> where =
      FollowAndFinish({b.address(), c.address()}, table, before, seed);
  ASSERT_EQ(where.size(), 4u);
  for (const std::string& address : where) EXPECT_EQ(address, where[0]);
  EXPECT_NE(where[0], a.address());
}

TEST_F(FleetTest, APausedInstanceServesNothingStaleAndItsSeatsMove) {
  ServiceProcess& a = Launch("pause-a");
  ServiceProcess& b = Launch("pause-b");
  const uint64_t seed = 92;
  // Short clocks: while the seats wait on the paused instance, b's autopilot plays.
  v1::CreateTableResponse table = CreateOn(a, seed, 400, /*kingdoms=*/2);
  std::vector<std::unique_ptr<SeatClient>> before = SeatsOn(a, table, seed);
  ASSERT_TRUE(WaitForAcks(before, 20));
  a.Pause();
  // b takes the table over once a's lease lapsed, and play goes on there.
  uint64_t seq_on_b = 0;
  for (int i = 0; i < 200 && Locate(b, table.table_id()).address() != b.address(); ++i) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_EQ(Locate(b, table.table_id()).address(), b.address());
  const uint64_t adopted_at = SpectatorSeq(b, table.table_id());
  for (int i = 0; i < 100 && seq_on_b <= adopted_at; ++i) {
    absl::SleepFor(absl::Milliseconds(50));
    seq_on_b = SpectatorSeq(b, table.table_id());
  }
  ASSERT_GT(seq_on_b, adopted_at) << "no move was made on b";

  a.Resume();
  // Nothing stale from a: its view is at least b's, a fresh stream is sent to b.
  EXPECT_GE(SpectatorSeq(a, table.table_id()), seq_on_b);
  SeatClient fresh(a.NewChannel(), table.table_id(), table.seat_tokens(0), 0);
  fresh.Open(0);
  const grpc::Status refused = fresh.WaitDone(absl::Seconds(10));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(fresh.updates().empty()) << "a streamed a stale snapshot";
  ASSERT_TRUE(wire::LocationFromStatus(refused).has_value()) << refused.error_message();
  EXPECT_EQ(wire::LocationFromStatus(refused)->address(), b.address());
  // a's own streams end, naming b.
  for (auto& client : before) {
    const grpc::Status end = client->WaitDone(absl::Seconds(10));
    EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE) << end.error_message();
    std::optional<v1::TableLocation> where = wire::LocationFromStatus(end);
    ASSERT_TRUE(where.has_value()) << end.error_message();
    EXPECT_EQ(where->address(), b.address());
  }
  const std::vector<std::string> where =
      FollowAndFinish({a.address(), b.address()}, table, before, seed);
  ASSERT_EQ(where.size(), 4u);
  for (const std::string& address : where) EXPECT_EQ(address, b.address());
}

TEST_F(FleetTest, ATableWithAnInconsistentLogIsQuarantinedAndTheOthersPlayOn) {
  ServiceProcess& a = Launch("quarantine-a");
  const uint64_t seed = 93;
  v1::CreateTableResponse bad = CreateOn(a, seed, 0, /*kingdoms=*/1);
  v1::CreateTableResponse good = CreateOn(a, seed + 1, 0, /*kingdoms=*/1);
  a.Kill();
  // The first deal's entry no longer replays.
  const std::string select =
      absl::StrCat("SELECT encode(payload, 'hex') FROM game_log WHERE game_id = '",
                   bad.table_id(), "' AND idx = 0");
  const std::string original = Sql(select)[0][0].as<std::string>();
  Sql(absl::StrCat("UPDATE game_log SET payload = decode('ffff', 'hex') ",
                   "WHERE game_id = '", bad.table_id(), "' AND idx = 0"));

  ServiceProcess& b = Launch("quarantine-b");
  grpc::Status refused;
  for (int i = 0; i < 100; ++i) {
    SeatClient attempt(b.NewChannel(), bad.table_id(), bad.seat_tokens(0), 0);
    attempt.Open(0);
    refused = attempt.WaitDone(absl::Seconds(5));
    if (refused.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    absl::SleepFor(absl::Milliseconds(100));  // a's lease has not lapsed yet
  }
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("table quarantined: "));
  EXPECT_EQ(Sql(absl::StrCat("SELECT broken IS NOT NULL FROM games WHERE id = '",
                             bad.table_id(), "'"))[0][0]
                .as<bool>(),
            true);
  EXPECT_THAT(b.Log(), HasSubstr("table quarantined"));

  // The other table plays to the end on b.
  std::vector<Followed> seats;
  for (int s = 0; s < 4; ++s) {
    seats.push_back(FollowTable({b.address()}, good, s, 0, seed + s));
    ASSERT_NE(seats.back().client, nullptr);
  }
  for (Followed& f : seats) EXPECT_TRUE(f.client->WaitDone(absl::Seconds(60)).ok());

  // No other instance adopts it until an operator clears it; then one does.
  ServiceProcess& c = Launch("quarantine-c");
  SeatClient elsewhere(c.NewChannel(), bad.table_id(), bad.seat_tokens(1), 1);
  elsewhere.Open(0);
  EXPECT_EQ(elsewhere.WaitDone(absl::Seconds(5)).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  Sql(absl::StrCat("UPDATE game_log SET payload = decode('", original,
                   "', 'hex') WHERE game_id = '", bad.table_id(), "' AND idx = 0"));
  Sql(absl::StrCat("UPDATE games SET broken = NULL WHERE id = '", bad.table_id(), "'"));
  Followed cleared = FollowTable({c.address()}, bad, 2, 0, seed, /*strict=*/true);
  EXPECT_NE(cleared.client, nullptr);
}

}  // namespace
}  // namespace trix::table
