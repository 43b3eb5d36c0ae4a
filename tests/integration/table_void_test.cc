// VoidTable over real gRPC and real PostgreSQL: a table nobody should finish ends
// with no result. Its seats and spectators are told (TableVoided, then their
// streams end OK), later actions are refused, its record and listings say voided,
// and one outbox row with the contract's fields is written with the void. Bad
// requests change nothing. The real table-service binary is killed with SIGKILL
// and the table voided by another instance, which adopts it; and an instance that
// does not host a table names the one that does.
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/outbox_row.h"
#include "proto/wire/table_location.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/failover_check.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/service_process.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

grpc::Status CallVoid(v1::TableService::Stub& stub, const std::string& table_id,
                      const std::string& reason, v1::VoidTableResponse* response,
                      bool with_token = true) {
  v1::VoidTableRequest request;
  request.set_table_id(table_id);
  request.set_reason(reason);
  grpc::ClientContext context;
  if (with_token) {
    context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  }
  return stub.VoidTable(&context, request, response);
}

class VoidTest : public TableServiceTest {
 protected:
  grpc::Status Void(const std::string& table_id, const std::string& reason,
                    v1::VoidTableResponse* response = nullptr) {
    v1::VoidTableResponse ignored;
    return CallVoid(*stub_, table_id, reason, response ? response : &ignored);
  }
  // The outbox rows written for `table_id`, read as the ratings service reads them.
  std::vector<v1::internal::FinishedGame> Outbox(const std::string& table_id) {
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    std::vector<v1::internal::FinishedGame> rows;
    for (const auto& row :
         tx.exec_params("SELECT payload::text FROM game_results WHERE game_id = $1",
                        table_id)) {
      absl::StatusOr<v1::internal::FinishedGame> game =
          wire::OutboxRowFromJson(row[0].as<std::string>());
      EXPECT_TRUE(game.ok()) << game.status();
      if (game.ok()) rows.push_back(*std::move(game));
    }
    return rows;
  }
  int64_t LogLength(const std::string& table_id) {
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    return tx.exec_params1("SELECT count(*) FROM game_log WHERE game_id = $1", table_id)[0]
        .as<int64_t>();
  }
};

TEST_F(VoidTest, VoidMidGameTellsTheStreamsRefusesActionsAndWritesOneOutboxRow) {
  const uint64_t seed = 91;
  v1::CreateTableRequest create =
      CreateRequest(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed);
  create.mutable_seats(2)->set_stake(100);
  v1::CreateTableResponse table;
  ASSERT_TRUE(CallCreate(create, &table, std::string("Bearer ") + kServiceToken).ok());
  std::vector<std::unique_ptr<SeatClient>> seats;
  for (int s = 0; s < 4; ++s) {
    seats.push_back(std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                                 table.seat_tokens(s), s));
    if (s % 2 == 0) {
      seats.back()->OpenPlay(0, seed + s);
    } else {
      seats.back()->Open(0, seed + s);
    }
  }
  SeatClient watcher(NewChannel(), table.table_id(), "", -1);
  watcher.Open();
  ASSERT_TRUE(WaitForAcks(seats, 12));

  v1::VoidTableResponse voided;
  grpc::Status s = Void(table.table_id(), "abandoned by its players", &voided);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(voided.table_id(), table.table_id());
  EXPECT_FALSE(voided.already_voided());
  for (auto& seat : seats) {
    grpc::Status end = seat->WaitDone(absl::Seconds(10));
    EXPECT_TRUE(end.ok()) << end.error_message();
    ASSERT_TRUE(seat->events().back().has_table_voided());
    EXPECT_EQ(seat->events().back().table_voided().reason(), "abandoned by its players");
  }
  EXPECT_TRUE(watcher.WaitDone(absl::Seconds(10)).ok());
  EXPECT_TRUE(watcher.events().back().has_table_voided());

  grpc::Status late = Act(table, 0, "after-void", Leave());
  EXPECT_EQ(late.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(late.error_message(), "table voided: abandoned by its players");

  v1::TableView view = GetTable(table.table_id());
  EXPECT_TRUE(view.voided());
  EXPECT_EQ(view.void_reason(), "abandoned by its players");
  v1::GameRecord record = ExpectRecordIsStream(table.table_id(), table.seat_tokens(1),
                                               seats[1]->events());
  EXPECT_TRUE(record.voided());
  EXPECT_FALSE(record.has_result());

  const std::vector<v1::internal::FinishedGame> outbox = Outbox(table.table_id());
  ASSERT_EQ(outbox.size(), 1u);
  const v1::internal::FinishedGame& row = outbox[0];
  EXPECT_EQ(row.game_id(), table.table_id());
  EXPECT_EQ(row.mode(), "complex-partner");
  EXPECT_TRUE(row.voided());
  EXPECT_EQ(row.reason(), "abandoned by its players");
  EXPECT_NEAR(static_cast<double>(row.voided_unix_ms()),
              static_cast<double>(voided.voided().seconds()) * 1000, 1000);
  ASSERT_EQ(row.seats_size(), 4);
  for (int seat = 0; seat < 4; ++seat) {
    const v1::internal::FinishedSeat& at = row.seats(seat);
    EXPECT_EQ(at.seat(), seat);
    EXPECT_EQ(at.player_id(), create.seats(seat).player_id());
    EXPECT_FALSE(at.bot());
    EXPECT_EQ(at.team(), seat % 2);
    EXPECT_EQ(at.stake(), create.seats(seat).stake());
    EXPECT_FALSE(at.has_total() || at.has_place() || at.has_payout());
  }
  EXPECT_FALSE(row.has_result());

  // Listed as a voided game, not as a live table.
  grpc::ClientContext listing;
  listing.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  v1::ListPlayerTablesRequest tables;
  tables.set_player_id(create.seats(0).player_id());
  v1::ListPlayerTablesResponse live;
  ASSERT_TRUE(stub_->ListPlayerTables(&listing, tables, &live).ok());
  EXPECT_EQ(live.tables_size(), 0);
  grpc::ClientContext history;
  history.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  v1::ListPlayerGamesRequest games;
  games.set_player_id(create.seats(0).player_id());
  v1::ListPlayerGamesResponse played;
  ASSERT_TRUE(stub_->ListPlayerGames(&history, games, &played).ok());
  ASSERT_EQ(played.games_size(), 1);
  EXPECT_TRUE(played.games(0).voided());
  EXPECT_EQ(played.games(0).result().totals_size(), 0);
}

TEST_F(VoidTest, VoidingTwiceIsIdempotentAndAFinishedTableCannotBeVoided) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 92);
  v1::VoidTableResponse first, second;
  ASSERT_TRUE(Void(table.table_id(), "placement given up", &first).ok());
  const int64_t length = LogLength(table.table_id());
  ASSERT_TRUE(Void(table.table_id(), "placement given up", &second).ok());
  EXPECT_TRUE(second.already_voided());
  EXPECT_EQ(second.voided().SerializeAsString(), first.voided().SerializeAsString());
  EXPECT_EQ(Outbox(table.table_id()).size(), 1u);
  EXPECT_EQ(LogLength(table.table_id()), length);

  v1::CreateTableResponse finished =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 93, 0, /*kingdoms=*/1);
  for (int s = 0; s < 4; ++s) ASSERT_TRUE(Act(finished, s, "bye", Leave()).ok());
  grpc::Status over = Void(finished.table_id(), "too late");
  EXPECT_EQ(over.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(over.error_message(), HasSubstr("the game is over"));
  const std::vector<v1::internal::FinishedGame> outbox = Outbox(finished.table_id());
  ASSERT_EQ(outbox.size(), 1u);
  EXPECT_FALSE(outbox[0].voided());
  EXPECT_TRUE(outbox[0].has_result());
}

TEST_F(VoidTest, BadRequestsAreRefusedAndChangeNothing) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 94);
  const int64_t length = LogLength(table.table_id());
  struct Case {
    std::string table_id, reason;
    grpc::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {table.table_id(), "", grpc::StatusCode::INVALID_ARGUMENT, "reason is required"},
      {table.table_id(), std::string(257, 'r'), grpc::StatusCode::INVALID_ARGUMENT,
       "at most 256"},
      {"not-a-table", "why", grpc::StatusCode::INVALID_ARGUMENT, "not-a-table"},
      {"00000000-0000-4000-8000-000000000000", "why", grpc::StatusCode::NOT_FOUND, ""},
  };
  for (const Case& c : cases) {
    grpc::Status s = Void(c.table_id, c.reason);
    EXPECT_EQ(s.error_code(), c.code) << c.table_id << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(c.message));
  }
  v1::VoidTableResponse response;
  grpc::Status anonymous = CallVoid(*stub_, table.table_id(), "why", &response,
                                    /*with_token=*/false);
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(Outbox(table.table_id()).empty());
  EXPECT_EQ(LogLength(table.table_id()), length);
  EXPECT_FALSE(GetTable(table.table_id()).voided());
  EXPECT_TRUE(Act(table, 0, "still-playing", Leave()).ok());
}

class VoidFleetTest : public VoidTest {
 protected:
  void SetUp() override {
    VoidTest::SetUp();
    StopService();  // the real binaries instead
  }
  std::unique_ptr<ServiceProcess> Launch(const std::string& name) {
    return ServiceProcess::StartServing({.binary = BuildPath("bin/table-service"),
                                         .db_url = db_->url(),
                                         .instance_id = name,
                                         .dir = ::testing::TempDir(),
                                         .migrations_dir = SourcePath("migrations")});
  }
  v1::CreateTableResponse CreateOn(const ServiceProcess& at, uint64_t seed) {
    return at.CreateTable(CreateRequest(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed));
  }
};

TEST_F(VoidFleetTest, AnInstanceThatDoesNotHostTheTableNamesItsHost) {
  std::unique_ptr<ServiceProcess> a = Launch("void-a");
  std::unique_ptr<ServiceProcess> b = Launch("void-b");
  ASSERT_TRUE(a && b);
  v1::CreateTableResponse table = CreateOn(*a, 95);
  auto at_b = v1::TableService::NewStub(b->NewChannel());
  v1::VoidTableResponse response;
  grpc::Status moved = CallVoid(*at_b, table.table_id(), "moved", &response);
  EXPECT_EQ(moved.error_code(), grpc::StatusCode::UNAVAILABLE) << moved.error_message();
  std::optional<v1::TableLocation> where = wire::LocationFromStatus(moved);
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->address(), a->address());
  EXPECT_TRUE(Outbox(table.table_id()).empty());
  auto at_a = v1::TableService::NewStub(a->NewChannel());
  ASSERT_TRUE(CallVoid(*at_a, table.table_id(), "moved", &response).ok()) << a->Log();
  EXPECT_FALSE(response.already_voided());
  // Now any instance answers from the store.
  ASSERT_TRUE(CallVoid(*at_b, table.table_id(), "moved", &response).ok()) << b->Log();
  EXPECT_TRUE(response.already_voided());
  EXPECT_EQ(Outbox(table.table_id()).size(), 1u);
}

TEST_F(VoidFleetTest, AfterKillNineAnotherInstanceAdoptsAndVoidsAndNoneReplaysIt) {
  std::unique_ptr<ServiceProcess> a = Launch("void-killed");
  ASSERT_NE(a, nullptr);
  const uint64_t seed = 96;
  v1::CreateTableResponse table = CreateOn(*a, seed);
  std::vector<std::unique_ptr<SeatClient>> seats;
  for (int s = 0; s < 4; ++s) {
    seats.push_back(std::make_unique<SeatClient>(a->NewChannel(), table.table_id(),
                                                 table.seat_tokens(s), s));
    seats.back()->Open(0, seed + s);
  }
  ASSERT_TRUE(WaitForAcks(seats, 10));
  a->Kill();
  for (auto& seat : seats) seat->WaitDone(absl::Seconds(10));

  std::unique_ptr<ServiceProcess> b = Launch("void-adopter");
  ASSERT_NE(b, nullptr);
  auto at_b = v1::TableService::NewStub(b->NewChannel());
  v1::VoidTableResponse response;
  grpc::Status s;
  // Until the dead instance's lease lapses the answer names it; then b adopts.
  for (const absl::Time until = absl::Now() + absl::Seconds(20); absl::Now() < until;) {
    s = CallVoid(*at_b, table.table_id(), "its instance died", &response);
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_TRUE(s.ok()) << s.error_message() << b->Log();
  EXPECT_FALSE(response.already_voided());
  const int64_t length = LogLength(table.table_id());

  // The killed instance comes back: it takes back its previous run's tables, but
  // never this one; nobody plays it again.
  std::unique_ptr<ServiceProcess> again = Launch("void-killed");
  ASSERT_NE(again, nullptr);
  absl::SleepFor(absl::Seconds(2));
  EXPECT_EQ(LogLength(table.table_id()), length);
  EXPECT_EQ(Outbox(table.table_id()).size(), 1u);
  SeatClient late(again->NewChannel(), table.table_id(), table.seat_tokens(0), 0);
  late.Open(seats[0]->last_seq());
  EXPECT_TRUE(late.WaitDone(absl::Seconds(10)).ok());
  ASSERT_FALSE(late.events().empty());
  EXPECT_TRUE(late.events().back().has_table_voided());
  auto at_again = v1::TableService::NewStub(again->NewChannel());
  grpc::ClientContext context;
  v1::ActRequest leave = Leave();
  leave.set_table_id(table.table_id());
  leave.set_seat_token(table.seat_tokens(1));
  leave.set_request_id("after-adoption");
  v1::ActResponse act;
  grpc::Status refused = at_again->Act(&context, leave, &act);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(refused.error_message(), "table voided: its instance died");
}

}  // namespace
}  // namespace trix::table
