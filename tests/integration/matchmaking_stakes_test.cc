// Staked tickets against the real ratings service (build/bin/ratings-service as a
// child process on the test's database): no balance, no ticket; a queued ticket
// holds its stake and a cancelled one gives it back, even when the ratings
// service was away at the time; a seat whose table is gone gives its hold back;
// a placement given up has its table voided, its players' holds kept for the
// table they get; a ticket's hold lives as long as the ticket, however long it
// waits, and a newer ticket of the player carries the hold of the one it replaces.
#include <csignal>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/matchmaking/hold_releases.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_process.h"
#include "tests/integration/ratings_balances.h"
#include "tests/ratings/ratings_process.h"

namespace trix::matchmaking {
namespace {

class MatchmakingStakesTest : public MatchmakingTest, protected RatingsBalances {
 protected:
  void SetUp() override {
    MatchmakingTest::SetUp();
    if (HasFatalFailure()) return;
    StartRatings();
    if (HasFatalFailure()) return;
    StartMatchmaking(StakedConfig());
  }
  // (Re)starts the ratings service with `flags` besides its credentials; the
  // matchmaking started next dials it.
  void StartRatings(std::vector<std::string> flags = {}) {
    ratings_.reset();
    // Matchmaking calls the ratings service with its own credential, which holds
    // only its scopes, and the table instances with another; one credentials file
    // lists both, as deployed. The test's own calls use the legacy token (every
    // scope).
    credentials_ = ::testing::TempDir() + "/mm-stakes-credentials-" + db_->name() + ".json";
    table::WriteCredentialsFile(credentials_, {{.name = "matchmaking",
                                               .token = table::kMatchmakingToken,
                                               .scopes = table::MatchmakingScopes(),
                                               .holds_need_consent = consent_needed_},
                                              {.name = "matchmaking-tables",
                                               .token = table::kMatchmakingTableToken,
                                               .scopes = table::MatchmakingTableScopes()}});
    flags.push_back("--service_credentials=" + credentials_);
    // A log of this test's own: the port is read from its "serving" lines, and a
    // log shared with the stakes tests running beside it gave another's port.
    auto ratings = ratings::RatingsProcess::Start(
        db_->url(), ::testing::TempDir() + "/mm-stakes-ratings-" + db_->name() + ".log", flags);
    ASSERT_TRUE(ratings.ok()) << ratings.status();
    ratings_ = *std::move(ratings);
  }
  // Ratings whose held holds lapse after 3 s unless kept, and matchmaking that
  // keeps its waiting tickets' holds every second.
  void StartWithShortHeldTtl() {
    StartRatings({"--held_hold_ttl=3s", "--hold_sweep_interval=1s"});
    ASSERT_FALSE(HasFatalFailure());
    MatchmakingConfig config = StakedConfig();
    config.keep_holds_every = absl::Seconds(1);
    StartMatchmaking(config);
  }
  std::unique_ptr<TicketClient> QueueAt(const std::string& player, int64_t stake,
                                        const std::string& request_id = "r1") {
    v1::FindTableRequest r = Request(player, request_id);
    r.set_stake(stake);
    return Queue(r);
  }
  // The settlement the ratings service recorded for the game at `table`, once
  // applied ("" if not within `timeout`).
  std::string SettlementOf(const std::string& table, absl::Duration timeout) {
    const std::string applied = absl::StrCat(
        "SELECT count(*) FROM ratings.applied_games WHERE game_id = '", table, "'");
    for (absl::Time until = absl::Now() + timeout;
         Count(applied) == 0 && absl::Now() < until;) {
      absl::SleepFor(absl::Milliseconds(200));
    }
    if (Count(applied) == 0) return "";
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec1("SELECT settlement FROM ratings.applied_games WHERE game_id = '" + table +
                    "'")[0]
        .as<std::string>();
  }
  MatchmakingConfig StakedConfig() {
    MatchmakingConfig config = TestConfig(db_->url());
    config.ratings_address = "127.0.0.1:" + std::to_string(ratings_->port());
    config.reconcile_every = absl::Seconds(1);
    // Not what these tests check: a machine busy with other tests answered a hold
    // in more than the 2 s a deployment allows (the ticket ended DEADLINE_EXCEEDED).
    config.ratings_call_timeout = absl::Seconds(8);
    return config;
  }
  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    return tx.exec1(sql)[0].as<int64_t>();
  }
  void Exec(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec0(sql);
    tx.commit();
  }
  // Credits the player 500 and queues them at stake 100 (under `request_id`);
  // the ticket waits, its stake held.
  std::unique_ptr<TicketClient> QueueStaked(const std::string& player,
                                            const std::string& request_id = "r1") {
    Credit(player, 500);
    v1::FindTableRequest r = Request(player, request_id);
    r.set_stake(100);
    auto client = Queue(r);
    EXPECT_TRUE(client->WaitQueued(1)) << client->status().error_message();
    EXPECT_EQ(Balance(player).held(), 100);
    return client;
  }
  // Credits PREFIX0..PREFIX3 300 each and queues them at stake 100.
  std::vector<std::unique_ptr<TicketClient>> QueueFourStaked(const std::string& prefix) {
    std::vector<std::unique_ptr<TicketClient>> players;
    for (int i = 0; i < 4; ++i) {
      const std::string id = prefix + std::to_string(i);
      Credit(id, 300);
      v1::FindTableRequest r = Request(id);
      r.set_stake(100);
      players.push_back(Queue(r));
    }
    return players;
  }
  void TearDown() override {
    MatchmakingTest::TearDown();
    ratings_.reset();
  }
  std::string credentials_;  // the credentials file every service here reads
  bool consent_needed_ = false;  // matchmaking's credential: holds_need_consent
};

TEST(HoldRequestIdTest, IsFixedLengthAndNamesOnePlayerAndRequest) {
  const std::string longest(128, 'r');
  EXPECT_EQ(HoldRequestId(std::string(128, 'p'), longest).size(), 35u);
  EXPECT_EQ(HoldRequestId("p", "r").size(), 35u);
  EXPECT_EQ(HoldRequestId("p", "r").substr(0, 3), "mm-");
  EXPECT_EQ(HoldRequestId("p", "r"), HoldRequestId("p", "r"));
  // "mm-" + player + "-" + request read these two alike.
  EXPECT_NE(HoldRequestId("a-b", "c"), HoldRequestId("a", "b-c"));
  EXPECT_NE(HoldRequestId("p", "r"), HoldRequestId("p", "r", "ticket"));
  EXPECT_NE(HoldRequestId("p", "r1"), HoldRequestId("p", "r", "1"));
}

TEST_F(MatchmakingStakesTest, AStakedRequestWithTheLongestRequestIdIsQueued) {
  // "mm-long-" and the request id were 136 bytes: INVALID_ARGUMENT.
  QueueStaked("long", std::string(128, 'x'));
}

// The ratings service stopped while a staked player closed their stream: the
// release is recorded with the cancellation and done once it answers again.
TEST_F(MatchmakingStakesTest, AReleaseThatFailedIsDoneWhenTheRatingsServiceIsBack) {
  auto player = QueueStaked("patient");
  ASSERT_FALSE(player->queued().empty());
  const std::string ticket = player->queued()[0].ticket_id();
  ratings_->process().Signal(SIGSTOP);
  player->Cancel();
  ASSERT_TRUE(player->WaitDone());
  for (absl::Time until = absl::Now() + absl::Seconds(5);
       TicketStatus(ticket) != "cancelled" && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(TicketStatus(ticket), "cancelled");
  absl::SleepFor(absl::Seconds(4));  // releases tried and failed meanwhile
  EXPECT_EQ(Count("SELECT count(*) FROM mm_hold_releases WHERE done IS NULL"), 1);
  ratings_->process().Signal(SIGCONT);
  // The documented bound: within 10 s of the ratings service answering again.
  EXPECT_TRUE(HeldBecomes("patient", 0, absl::Seconds(10)));
  EXPECT_EQ(Balance("patient").available(), 500);
}

// A seat whose table no table service knows (its CreateTable never made it, or
// the table is gone): the reconciliation gives its hold back.
TEST_F(MatchmakingStakesTest, TheHoldOfASeatWhoseTableIsGoneIsReleased) {
  constexpr char kGoneTable[] = "6d1f0a52-4a8e-4c2b-9a57-0b5d3c7e9f10";
  auto player = QueueStaked("stranded");
  ASSERT_FALSE(player->queued().empty());
  const std::string ticket = player->queued()[0].ticket_id();
  // Matched to a table that does not exist, as a process that died would leave it.
  Exec(absl::StrCat("UPDATE mm_tickets SET status = 'matched' WHERE ticket_id = '", ticket,
                    "'"));
  Exec(absl::StrCat("INSERT INTO mm_assignments (table_id, seat, player_id, ticket_id, "
                    "address, seat_token, team, format, stake, possible) VALUES ('",
                    kGoneTable, "', 0, 'stranded', '", ticket, "', '", tables_->address(),
                    "', 'token', 2, 2, 100, now())"));
  EXPECT_TRUE(HeldBecomes("stranded", 0, absl::Seconds(10)));
  EXPECT_EQ(Count("SELECT count(*) FROM mm_assignments WHERE NOT finished"), 0);
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM mm_hold_releases WHERE table_id = '",
                               kGoneTable, "' AND done IS NOT NULL")),
            1);
}

// A placement given up (its CreateTable's answer lost, give_up_placing 0) goes
// back to the queue; the table it made is voided, and the players' holds go to
// the table they are seated at.
TEST_F(MatchmakingStakesTest, APlacementGivenUpHasItsTableVoided) {
  tables_->Shutdown();
  Exec("DELETE FROM table_instances");
  table::ServiceProcess::Options options{
      .binary = BuildPath("bin/table-service"),
      .db_url = db_->url(),
      .instance_id = "lossy",
      .dir = ::testing::TempDir(),
      .migrations_dir = SourcePath("migrations"),
      // SetUp's file: matchmaking's table credential has tables:create, tables:void.
      .extra = {"--service_credentials=" + credentials_},
      .env = {{"MAMLAKA_FAILPOINTS", "table.lose_create_answer=1"}}};
  std::unique_ptr<table::ServiceProcess> lossy = table::ServiceProcess::Start(options);
  ASSERT_NE(lossy, nullptr);
  ASSERT_TRUE(lossy->WaitServing(absl::Seconds(30))) << lossy->Log();
  MatchmakingConfig config = StakedConfig();
  config.give_up_placing = absl::ZeroDuration();
  StartMatchmaking(config);

  std::vector<std::unique_ptr<TicketClient>> players = QueueFourStaked("given");
  std::string table;
  for (auto& p : players) {
    ASSERT_TRUE(p->WaitDone(absl::Seconds(30)));
    ASSERT_TRUE(p->status().ok()) << p->status().error_message();
    table = p->assignment().table_id();
  }
  EXPECT_EQ(Count("SELECT count(*) FROM games"), 2) << lossy->Log();
  EXPECT_EQ(Count("SELECT count(*) FROM mm_table_voids"), 1);
  for (absl::Time until = absl::Now() + absl::Seconds(20);
       Count("SELECT count(*) FROM mm_table_voids WHERE done IS NOT NULL") == 0 &&
       absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM mm_table_voids WHERE done IS NOT NULL "
                               "AND table_id <> '' AND table_id <> '",
                               table, "'")),
            1)
      << lossy->Log();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Balance("given" + std::to_string(i)).held(), 100);
  EXPECT_EQ(Count("SELECT count(*) FROM mm_hold_releases WHERE done IS NULL"), 0);
}

TEST_F(MatchmakingStakesTest, AStakedTicketWithoutBalanceIsRefused) {
  v1::FindTableRequest r = Request("broke");
  r.set_stake(100);
  auto player = Queue(r);
  ASSERT_TRUE(player->WaitDone());
  EXPECT_EQ(player->status().error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << player->status().error_message();
}

TEST_F(MatchmakingStakesTest, ACancelledStakedTicketReleasesItsHold) {
  Credit("rich", 500);
  v1::FindTableRequest r = Request("rich");
  r.set_stake(100);
  auto player = Queue(r);
  ASSERT_TRUE(player->WaitQueued(1)) << player->status().error_message();
  EXPECT_EQ(Balance("rich").held(), 100);
  player->Cancel();
  ASSERT_TRUE(player->WaitDone());
  absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (Balance("rich").held() != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  v1::Balance after = Balance("rich");
  EXPECT_EQ(after.held(), 0);
  EXPECT_EQ(after.available(), 500);
}

TEST_F(MatchmakingStakesTest, FourStakedPlayersShareATableAndTheirHoldsAreAttached) {
  std::vector<std::unique_ptr<TicketClient>> players = QueueFourStaked("staker");
  std::string table;
  for (auto& p : players) {
    ASSERT_TRUE(p->WaitDone());
    ASSERT_TRUE(p->status().ok()) << p->status().error_message();
    EXPECT_EQ(p->assignment().stake(), 100);
    if (table.empty()) table = p->assignment().table_id();
    EXPECT_EQ(p->assignment().table_id(), table);
  }
  EXPECT_EQ(Balance("staker0").held(), 100);  // attached to the table, not released
}

// Matchmaking shows each table instance only its table credential: with it the
// instance (any address in table_instances) can neither hold, attach nor release
// a stake, while matchmaking's own holds went through above.
TEST_F(MatchmakingStakesTest, TheCredentialATableSeesCannotHoldAStake) {
  Credit("victim", 500);
  auto as_table = [](grpc::ClientContext& c) {
    c.AddMetadata("authorization", absl::StrCat("Bearer ", table::kMatchmakingTableToken));
  };
  v1::HoldStakeRequest hold;
  hold.set_request_id("taken-by-a-table");
  hold.set_player_id("victim");
  hold.set_amount(500);
  v1::Hold held;
  grpc::ClientContext hold_context;
  as_table(hold_context);
  const grpc::Status refused = ratings_->stub().HoldStake(&hold_context, hold, &held);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), ::testing::HasSubstr("ledger:hold"));
  v1::AttachHoldRequest attach;
  attach.set_hold_id("any");
  attach.set_table_id("any");
  grpc::ClientContext attach_context;
  as_table(attach_context);
  EXPECT_EQ(ratings_->stub().AttachHold(&attach_context, attach, &held).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Balance("victim").held(), 0);

  // And matchmaking itself still places a staked table with both credentials.
  std::vector<std::unique_ptr<TicketClient>> players = QueueFourStaked("split");
  for (auto& p : players) {
    ASSERT_TRUE(p->WaitDone());
    ASSERT_TRUE(p->status().ok()) << p->status().error_message();
  }
  EXPECT_EQ(Balance("split0").held(), 100);
}

// Three staked tickets wait more than twice the held TTL: matchmaking keeps
// their holds while they wait, the fourth player completes the table, and the
// game played out settles from the four holds attached to it.
TEST_F(MatchmakingStakesTest, AStakedTicketThatWaitsPastTheHeldTtlKeepsItsHold) {
  StartWithShortHeldTtl();
  std::vector<std::unique_ptr<TicketClient>> players;
  for (int i = 0; i < 3; ++i) {
    const std::string id = "waiter" + std::to_string(i);
    Credit(id, 300);
    players.push_back(QueueAt(id, 100));
    ASSERT_TRUE(players.back()->WaitQueued(1)) << players.back()->status().error_message();
  }
  absl::SleepFor(absl::Seconds(8));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Balance("waiter" + std::to_string(i)).held(), 100) << "waiter" << i;
  }
  Credit("waiter3", 300);
  players.push_back(QueueAt("waiter3", 100));
  std::vector<std::unique_ptr<table::SeatClient>> seats;
  std::string table;
  for (auto& p : players) {
    ASSERT_TRUE(p->WaitDone());
    ASSERT_TRUE(p->status().ok()) << p->status().error_message();
    const v1::Assignment& seat = p->assignment();
    table = seat.table_id();
    seats.push_back(std::make_unique<table::SeatClient>(
        grpc::CreateChannel(seat.address(), grpc::InsecureChannelCredentials()),
        seat.table_id(), seat.seat_token(), seat.seat()));
    seats.back()->Open(0, /*play_seed=*/60 + seat.seat());
  }
  for (auto& seat : seats) {
    grpc::Status end = seat->WaitDone(absl::Seconds(120));
    EXPECT_TRUE(end.ok()) << end.error_message();
  }
  EXPECT_EQ(SettlementOf(table, absl::Seconds(30)), "settled");
  int64_t total = 0;
  for (int i = 0; i < 4; ++i) {
    const v1::Balance b = Balance("waiter" + std::to_string(i));
    EXPECT_EQ(b.held(), 0);
    total += b.balance();
  }
  EXPECT_EQ(total, 1200);  // the pot went back to the four, whole
}

// A waiting ticket whose hold is gone (here released behind matchmaking's back)
// ends FAILED_PRECONDITION instead of waiting for a seat it has no stake for.
TEST_F(MatchmakingStakesTest, AWaitingTicketWhoseHoldIsGoneEnds) {
  StartWithShortHeldTtl();
  auto player = QueueStaked("unheld");
  ASSERT_FALSE(player->queued().empty());
  const std::string ticket = player->queued()[0].ticket_id();
  pqxx::connection c(db_->url());
  pqxx::read_transaction tx(c);
  const std::string hold =
      tx.exec1("SELECT hold_id FROM mm_tickets WHERE ticket_id = '" + ticket + "'")[0]
          .as<std::string>();
  tx.commit();
  grpc::ClientContext context;
  ratings_->Authorize(context);
  v1::ReleaseHoldRequest release;
  release.set_hold_id(hold);
  v1::Hold released;
  ASSERT_TRUE(ratings_->stub().ReleaseHold(&context, release, &released).ok());
  ASSERT_TRUE(player->WaitDone(absl::Seconds(10)));
  EXPECT_EQ(player->status().error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << player->status().error_message();
  EXPECT_EQ(TicketStatus(ticket), "cancelled");
}

// A player whose balance covers one stake asks again (a new request) while their
// ticket waits: the new ticket is queued carrying the older one's hold, which
// goes back when the new ticket is cancelled in turn.
TEST_F(MatchmakingStakesTest, ASupersedingTicketCarriesTheHoldOfTheOneItReplaces) {
  Credit("once", 100);
  auto first = QueueAt("once", 100, "r1");
  ASSERT_TRUE(first->WaitQueued(1)) << first->status().error_message();
  EXPECT_EQ(Balance("once").held(), 100);
  auto second = QueueAt("once", 100, "r2");
  ASSERT_TRUE(second->WaitQueued(1)) << second->status().error_message();
  ASSERT_TRUE(first->WaitDone());
  EXPECT_EQ(first->status().error_code(), grpc::StatusCode::ABORTED);
  absl::SleepFor(absl::Seconds(2));  // the older ticket's release is tried meanwhile
  EXPECT_EQ(Balance("once").held(), 100);
  EXPECT_EQ(Count("SELECT count(*) FROM ratings.holds WHERE player_id = 'once'"), 1);
  ASSERT_FALSE(second->queued().empty());
  const std::string ticket = second->queued()[0].ticket_id();
  EXPECT_EQ(TicketStatus(ticket), "waiting");
  // A retry of the newer request resumes its ticket, hold and all.
  auto retry = QueueAt("once", 100, "r2");
  ASSERT_TRUE(retry->WaitQueued(1)) << retry->status().error_message();
  EXPECT_EQ(retry->queued()[0].ticket_id(), ticket);
  ASSERT_TRUE(second->WaitDone());
  EXPECT_EQ(second->status().error_code(), grpc::StatusCode::ABORTED);
  EXPECT_EQ(Balance("once").held(), 100);
  retry->Cancel();
  ASSERT_TRUE(retry->WaitDone());
  EXPECT_TRUE(HeldBecomes("once", 0, absl::Seconds(10)));
  EXPECT_EQ(Balance("once").available(), 100);
}

// A balance that covers one stake moves to another: the newer request at another
// stake supersedes the waiting ticket and its hold replaces the older one (it was
// held first, 0.3 s before the older was released, and refused for want of
// balance), and back again.
TEST_F(MatchmakingStakesTest, ASupersedingTicketAtAnotherStakeMovesTheHold) {
  MatchmakingConfig config = StakedConfig();
  config.stake_levels = {50, 100};
  StartMatchmaking(config);
  Credit("mover", 100);
  auto first = QueueAt("mover", 100, "r1");
  ASSERT_TRUE(first->WaitQueued(1)) << first->status().error_message();
  EXPECT_EQ(Balance("mover").held(), 100);
  auto second = QueueAt("mover", 50, "r2");
  ASSERT_TRUE(second->WaitQueued(1)) << second->status().error_message();
  ASSERT_TRUE(first->WaitDone());
  EXPECT_EQ(first->status().error_code(), grpc::StatusCode::ABORTED);
  EXPECT_EQ(Balance("mover").held(), 50);
  auto third = QueueAt("mover", 100, "r3");
  ASSERT_TRUE(third->WaitQueued(1)) << third->status().error_message();
  ASSERT_TRUE(second->WaitDone());
  EXPECT_EQ(second->status().error_code(), grpc::StatusCode::ABORTED);
  absl::SleepFor(absl::Seconds(2));  // the older tickets' releases are tried meanwhile
  EXPECT_EQ(Balance("mover").held(), 100);
  EXPECT_EQ(Count("SELECT count(*) FROM ratings.holds WHERE player_id = 'mover' "
                  "AND state = 1"),
            1);
  ASSERT_FALSE(third->queued().empty());
  EXPECT_EQ(TicketStatus(third->queued()[0].ticket_id()), "waiting");
  third->Cancel();
  ASSERT_TRUE(third->WaitDone());
  EXPECT_TRUE(HeldBecomes("mover", 0, absl::Seconds(10)));
  EXPECT_EQ(Balance("mover").available(), 100);
}

// Matchmaking's credential marked holds_need_consent: the ratings service holds a
// stake only with the player's own token, which a player's request carries and a
// backend's passes as stake_consent; without it, or with another player's, the
// request is PERMISSION_DENIED and nothing is held.
TEST_F(MatchmakingStakesTest, AHoldNeedsThePlayersOwnTokenWhenTheCredentialSaysSo) {
  const std::string jwks = ::testing::TempDir() + "/mm-consent-jwks-" + db_->name();
  service::ReplaceFile(jwks, service::Jwks({LoginKey()}));
  consent_needed_ = true;
  StartRatings({"--jwks_file=" + jwks, "--jwt_issuer=login.trix", "--jwt_audience=trix"});
  ASSERT_FALSE(HasFatalFailure());
  StartMatchmaking(StakedConfig());
  for (const char* p : {"own", "backed", "bare", "borrowed"}) Credit(p, 300);
  auto staked = [](const std::string& player, const std::string& consent_of) {
    v1::FindTableRequest r = Request(player);
    r.set_stake(100);
    // PlayerToken answers "Bearer <jwt>"; the consent is the token itself.
    if (!consent_of.empty()) r.set_stake_consent(PlayerToken(consent_of, 600).substr(7));
    return r;
  };
  TicketClient own(stub_.get(), staked("own", ""), PlayerToken("own", 600));
  ASSERT_TRUE(own.WaitQueued(1)) << own.status().error_message();
  EXPECT_EQ(Balance("own").held(), 100);
  auto backed = Queue(staked("backed", "backed"));
  ASSERT_TRUE(backed->WaitQueued(1)) << backed->status().error_message();
  EXPECT_EQ(Balance("backed").held(), 100);
  const std::pair<std::string, std::string> refused[] = {{"bare", ""}, {"borrowed", "backed"}};
  for (const auto& [player, consent_of] : refused) {
    auto ticket = Queue(staked(player, consent_of));
    ASSERT_TRUE(ticket->WaitDone()) << player;
    EXPECT_EQ(ticket->status().error_code(), grpc::StatusCode::PERMISSION_DENIED) << player;
    EXPECT_THAT(ticket->status().error_message(), ::testing::HasSubstr("consent")) << player;
    EXPECT_EQ(Balance(player).held(), 0) << player;
  }
}

// A retry of a request whose waiting ticket's hold is gone resumes the ticket
// with a new hold, which the ticket then carries (it was given back at once).
TEST_F(MatchmakingStakesTest, ARetryGivesAWaitingTicketWhoseHoldIsGoneANewOne) {
  MatchmakingConfig config = StakedConfig();
  config.keep_holds_every = absl::Hours(1);  // nothing ends the ticket meanwhile
  StartMatchmaking(config);
  auto player = QueueStaked("lapsed");
  ASSERT_FALSE(player->queued().empty());
  const std::string ticket = player->queued()[0].ticket_id();
  const std::string hold_of_ticket =
      "SELECT hold_id FROM mm_tickets WHERE ticket_id = '" + ticket + "'";
  std::string lapsed;
  {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    lapsed = tx.exec1(hold_of_ticket)[0].as<std::string>();
  }
  grpc::ClientContext context;
  ratings_->Authorize(context);
  v1::ReleaseHoldRequest release;
  release.set_hold_id(lapsed);
  v1::Hold released;
  ASSERT_TRUE(ratings_->stub().ReleaseHold(&context, release, &released).ok());
  EXPECT_EQ(Balance("lapsed").held(), 0);

  auto retry = QueueAt("lapsed", 100, "r1");
  ASSERT_TRUE(retry->WaitQueued(1)) << retry->status().error_message();
  EXPECT_EQ(retry->queued()[0].ticket_id(), ticket);
  absl::SleepFor(absl::Seconds(2));  // a hold the ticket did not carry would go back
  EXPECT_EQ(Balance("lapsed").held(), 100);
  pqxx::connection c(db_->url());
  pqxx::read_transaction tx(c);
  const std::string carried = tx.exec1(hold_of_ticket)[0].as<std::string>();
  EXPECT_NE(carried, lapsed);
  EXPECT_EQ(tx.exec1("SELECT state FROM ratings.holds WHERE hold_id = '" + carried + "'")[0]
                .as<int>(),
            1);
}

// The matcher checks the holds before it makes a staked table: a ticket whose
// hold was given back behind matchmaking's back (and not kept since) gets no
// seat and ends; no table is made, and the other three wait on, still held.
TEST_F(MatchmakingStakesTest, ASeatWhoseHoldIsGoneIsNotGiven) {
  MatchmakingConfig config = StakedConfig();
  config.keep_holds_every = absl::Hours(1);  // only the matcher's check finds it
  StartMatchmaking(config);
  std::vector<std::unique_ptr<TicketClient>> players;
  for (int i = 0; i < 3; ++i) players.push_back(QueueStaked("seat" + std::to_string(i)));
  ASSERT_FALSE(players[0]->queued().empty());
  const std::string ticket = players[0]->queued()[0].ticket_id();
  std::string hold;
  {
    pqxx::connection c(db_->url());
    pqxx::read_transaction tx(c);
    hold = tx.exec1("SELECT hold_id FROM mm_tickets WHERE ticket_id = '" + ticket + "'")[0]
               .as<std::string>();
  }
  grpc::ClientContext context;
  ratings_->Authorize(context);
  v1::ReleaseHoldRequest release;
  release.set_hold_id(hold);
  v1::Hold released;
  ASSERT_TRUE(ratings_->stub().ReleaseHold(&context, release, &released).ok());

  players.push_back(QueueStaked("seat3"));
  ASSERT_TRUE(players[0]->WaitDone(absl::Seconds(10)));
  EXPECT_EQ(players[0]->status().error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << players[0]->status().error_message();
  EXPECT_EQ(TicketStatus(ticket), "cancelled");
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM games"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM mm_assignments"), 0);
  for (int i = 1; i < 4; ++i) {
    const std::string id = "seat" + std::to_string(i);
    EXPECT_EQ(Balance(id).held(), 100) << id;
    EXPECT_EQ(TicketStatus(players[i]->queued()[0].ticket_id()), "waiting") << id;
  }
}

}  // namespace
}  // namespace trix::matchmaking
