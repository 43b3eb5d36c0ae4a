// Recovery: a table survives its instance. Graceful: the instance drains and
// releases its leases, another takes the tables before it reports SERVING.
// Abrupt: the real table-service binary is killed with SIGKILL mid-game and started
// again with the same instance id and database: it takes its tables back before
// it reports SERVING, so the clients' first reconnection succeeds, and nothing
// that was acknowledged or streamed is lost. Rewound: the stored log loses its last
// entries behind the host's back (an asynchronous failover to a replica that had not
// received them): the host finds it at the next append, rebuilds the table from the
// log, counts it, and gives every stream a fresh snapshot.
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/failover_check.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/service_process.h"

namespace trix::table {
namespace {

using RecoveryTest = TableServiceTest;
using ::testing::HasSubstr;

// An action for `prompt`: its first option (doubling: nothing, ready).
v1::ActRequest FirstOption(const v1::Prompt& prompt) {
  if (prompt.available_contracts_size() > 0) {
    return ChooseContract(prompt.available_contracts(0));
  }
  if (prompt.legal_cards_size() > 0) return PlayCard(prompt.legal_cards(0));
  v1::ActRequest request;
  request.mutable_select_doubles()->set_ready(true);
  return request;
}

std::optional<v1::Prompt> LastPrompt(const std::vector<v1::TableUpdate>& updates) {
  std::optional<v1::Prompt> prompt;
  for (const v1::TableUpdate& update : updates) {
    if (update.has_prompt()) prompt = update.prompt();
  }
  return prompt;
}

int Snapshots(const std::vector<v1::TableUpdate>& updates) {
  int snapshots = 0;
  for (const v1::TableUpdate& update : updates) snapshots += update.has_snapshot();
  return snapshots;
}

class RewindTest : public TableServiceTest {
 protected:
  // Acts for the seat whose latest prompt the table accepts (the others are
  // refused: not their turn); the first answer that is not a refusal.
  grpc::Status PlayOne(const v1::CreateTableResponse& table,
                       const std::vector<std::unique_ptr<SeatClient>>& seats) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      for (int s = 0; s < 4; ++s) {
        std::optional<v1::Prompt> prompt = LastPrompt(seats[s]->updates());
        if (!prompt) continue;
        const std::string id = absl::StrCat("r", ++requests_);
        grpc::Status status = Act(table, s, id, FirstOption(*prompt));
        if (status.ok() || status.error_code() == grpc::StatusCode::UNAVAILABLE) {
          return status;
        }
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "no seat could act");
  }

  int64_t LogLength(const std::string& table_id) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    return tx.exec_params1("SELECT log_length FROM games WHERE id = $1", table_id)[0]
        .as<int64_t>();
  }

  // What an older primary holds: the log without its last `lost` entries.
  void Rewind(const std::string& table_id, int64_t lost) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    const int64_t length = LogLength(table_id);
    tx.exec_params("DELETE FROM game_log WHERE game_id = $1 AND idx >= $2", table_id,
                   length - lost);
    tx.exec_params("UPDATE games SET log_length = $2 WHERE id = $1", table_id,
                   length - lost);
    tx.commit();
  }

  int requests_ = 0;
};

TEST_F(RewindTest, ALogShorterThanAcknowledgedIsRebuiltAndStreamsGetASnapshot) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 83, 0, 2);
  std::vector<std::unique_ptr<SeatClient>> seats;
  for (int s = 0; s < 4; ++s) {
    seats.push_back(std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                                 table.seat_tokens(s), s));
    seats.back()->Open(0);  // records; the test acts by hand
  }
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(PlayOne(table, seats).ok()) << i;
  const int64_t acknowledged = LogLength(table.table_id());
  ASSERT_GE(acknowledged, 6);
  absl::SleepFor(absl::Milliseconds(200));  // every stream has the last events
  const uint64_t streamed = seats[0]->last_seq();
  Rewind(table.table_id(), 3);
  const HostMetrics& metrics = service_->host().metrics();
  ASSERT_EQ(metrics.log_rewinds.Value(), 0);

  // The next action finds the log shorter: not saved, and the table is rebuilt.
  grpc::Status refused = PlayOne(table, seats);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(refused.error_message(), HasSubstr("log is shorter than acknowledged"));
  for (auto& seat : seats) {
    EXPECT_TRUE(seat->WaitUntil(
        [](const std::vector<v1::TableUpdate>& updates) { return Snapshots(updates) == 2; },
        absl::Seconds(10)))
        << "seat " << seat->seat() << " got no fresh snapshot";
  }
  EXPECT_EQ(metrics.log_rewinds.Value(), 1);
  EXPECT_EQ(metrics.entries_lost.Value(), 3);
  EXPECT_EQ(LogLength(table.table_id()), acknowledged - 3);

  // A stream resumed past the rewound stream's end is told to take a snapshot.
  SeatClient late(NewChannel(), table.table_id(), table.seat_tokens(0), 0);
  late.Open(streamed);
  grpc::Status beyond = late.WaitDone(absl::Seconds(10));
  EXPECT_EQ(beyond.error_code(), grpc::StatusCode::OUT_OF_RANGE);
  EXPECT_THAT(beyond.error_message(), HasSubstr("resume from the snapshot"));

  // The table plays on from the stored log.
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(PlayOne(table, seats).ok()) << i;
  EXPECT_GT(LogLength(table.table_id()), acknowledged - 3);
  EXPECT_EQ(metrics.log_rewinds.Value(), 1);
}

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
  const ServiceProcess::Options options = {.binary = BuildPath("bin/table-service"),
                                           .db_url = db_->url(),
                                           .instance_id = "kill-nine",
                                           .dir = ::testing::TempDir(),
                                           .migrations_dir = SourcePath("migrations")};
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
