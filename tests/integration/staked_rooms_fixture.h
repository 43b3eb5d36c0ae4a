// Staked private rooms for tests: the real ratings service (build/bin/
// ratings-service as a child process on the test's database) beside the table
// service of MatchmakingTest; balances credited and read through it, the ledger's
// rows read from the database. Matchmaking itself is the test's to start:
// in-process (StartStakedMatchmaking) or as a process (the fault test).
#ifndef TRIX_TESTS_INTEGRATION_STAKED_ROOMS_FIXTURE_H_
#define TRIX_TESTS_INTEGRATION_STAKED_ROOMS_FIXTURE_H_

#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/room_client.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/ratings_balances.h"
#include "tests/ratings/ratings_process.h"

namespace trix::matchmaking {

class StakedRoomsTest : public MatchmakingTest, protected RatingsBalances {
 protected:
  static constexpr int64_t kStake = 100;  // one of TestConfig's stake levels

  void SetUp() override {
    MatchmakingTest::SetUp();
    if (HasFatalFailure()) return;
    StartRatings();
  }
  // (Re)starts the ratings service. It accepts the test's legacy token (every
  // scope) and matchmaking's own credential, which holds a stake only with the
  // player's consent when `consent` (it then verifies the login's player tokens).
  void StartRatings(bool consent = false) {
    ratings_.reset();
    const std::string dir = ::testing::TempDir() + "/staked-rooms-" + db_->name();
    table::WriteCredentialsFile(dir + "-credentials.json",
                                {{.name = "matchmaking",
                                  .token = table::kMatchmakingToken,
                                  .scopes = table::MatchmakingScopes(),
                                  .holds_need_consent = consent}});
    std::vector<std::string> flags = {"--service_credentials=" + dir +
                                      "-credentials.json"};
    if (consent) {
      service::ReplaceFile(dir + "-jwks.json", service::Jwks({LoginKey()}));
      flags.insert(flags.end(), {"--jwks_file=" + dir + "-jwks.json",
                                 "--jwt_issuer=login.trix", "--jwt_audience=trix"});
    }
    auto ratings =
        ratings::RatingsProcess::Start(db_->url(), dir + "-ratings.log", flags);
    ASSERT_TRUE(ratings.ok()) << ratings.status();
    ratings_ = *std::move(ratings);
  }
  void TearDown() override {
    rooms_.reset();
    MatchmakingTest::TearDown();
    ratings_.reset();
  }
  std::string RatingsAddress() const {
    return "127.0.0.1:" + std::to_string(ratings_->port());
  }
  // Matchmaking in-process, with the ratings service and a quick keeper.
  void StartStakedMatchmaking() {
    MatchmakingConfig config = TestConfig(db_->url());
    config.ratings_address = RatingsAddress();
    config.ratings_call_timeout = absl::Seconds(8);  // a busy machine is slow to hold
    config.rooms.check_every = absl::Milliseconds(50);
    StartMatchmaking(config);
    UseRooms(matchmaking_->address());
  }
  void UseRooms(const std::string& address) {
    rooms_ = v1::Rooms::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  }
  RoomCalls Calls() { return RoomCalls(rooms_.get()); }
  // alice's staked room (the autopilot in the empty seats) with bob at seat 1,
  // her opponent, both ready.
  std::string ReadyStakedRoom() {
    const std::string room = StakedRoom();
    EXPECT_TRUE(Calls().Ready("alice", room).ok());
    EXPECT_TRUE(Calls().Ready("bob", room).ok());
    return room;
  }
  // That room, nobody ready yet.
  std::string StakedRoom() {
    v1::CreateRoomRequest request;
    request.set_stake(kStake);
    request.set_empty_seats(v1::EMPTY_SEATS_AUTOPILOT);
    const v1::RoomState created = Calls().Create("alice", request);
    EXPECT_EQ(created.stake(), kStake);
    EXPECT_TRUE(Calls().Join("bob", created.code()).ok());
    EXPECT_TRUE(Calls().TakeSeat("bob", created.room_id(), 1).ok());
    return created.room_id();
  }
  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    return tx.exec1(sql)[0].as<int64_t>();
  }
  // The player's holds in `state` (v1::HoldState), at `table` unless empty.
  int64_t Holds(const std::string& player, v1::HoldState state,
                const std::string& table = "") {
    std::string sql =
        absl::StrCat("SELECT count(*) FROM ratings.holds WHERE player_id = '", player,
                     "' AND state = ", static_cast<int>(state));
    if (!table.empty()) absl::StrAppend(&sql, " AND table_id = '", table, "'");
    return Count(sql);
  }
  // Plays a seat with random legal moves until its game ends.
  std::unique_ptr<table::SeatClient> Play(const v1::RoomAssignment& a) {
    auto client = std::make_unique<table::SeatClient>(
        grpc::CreateChannel(a.address(), grpc::InsecureChannelCredentials()),
        a.table_id(), a.seat_token(), a.seat());
    client->OpenPlay(0, /*play_seed=*/300 + a.seat());
    return client;
  }

  std::unique_ptr<v1::Rooms::Stub> rooms_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_TESTS_INTEGRATION_STAKED_ROOMS_FIXTURE_H_
