// Matchmaking end to end with real PostgreSQL, the real table service and real
// gRPC streams: players queue and share tables, parties sit as partners, bots fill
// after the wait (the table's autopilot plays the seats no bot takes, without
// waiting a clock), tickets are superseded, cancelled and resumed, assignments are
// delivered again (with seat tokens derived, never stored), bad requests get their
// exact status, and every door has its quota.
#include <cstdlib>
#include <pqxx/pqxx>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/seat_client.h"

namespace trix::matchmaking {
namespace {

class MatchmakingFlowTest : public MatchmakingTest {
 protected:
  void SetUp() override {
    MatchmakingTest::SetUp();
    if (!HasFatalFailure()) StartMatchmaking();
  }
  v1::RegisterBotResponse RegisterBot(const std::string& name) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", kServiceBearer);
    v1::RegisterBotRequest request;
    request.set_name(name);
    v1::RegisterBotResponse response;
    grpc::Status s = stub_->RegisterBot(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response;
  }
  // A ServeBot stream's end within `wait` (DEADLINE_EXCEEDED: it was served).
  grpc::Status ServeStatus(const std::string& key, int capacity,
                           absl::Duration wait = absl::Milliseconds(500)) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer " + key);
    c.set_deadline(absl::ToChronoTime(absl::Now() + wait));
    v1::ServeBotRequest request;
    request.set_capacity(capacity);
    auto reader = stub_->ServeBot(&c, request);
    v1::BotUpdate u;
    while (reader->Read(&u)) {
    }
    return reader->Finish();
  }
  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    return tx.exec1(sql)[0].as<int64_t>();
  }
  void AwaitBots(int n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (matchmaking_->bots().connected() != n && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_EQ(matchmaking_->bots().connected(), n);
  }
  grpc::Status CallParty(const std::string& player, const std::string& code,
                         v1::Party* party) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", kServiceBearer);
    if (code.empty()) {
      v1::CreatePartyRequest request;
      request.set_player_id(player);
      return stub_->CreateParty(&context, request, party);
    }
    v1::JoinPartyRequest request;
    request.set_player_id(player);
    request.set_code(code);
    return stub_->JoinParty(&context, request, party);
  }
};

TEST_F(MatchmakingFlowTest, FourPlayersQueueAndShareOneTable) {
  std::vector<std::unique_ptr<TicketClient>> players;
  for (int i = 0; i < 4; ++i) players.push_back(Queue("p" + std::to_string(i)));
  std::set<int> seats;
  std::string table_id;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(players[i]->WaitDone());
    ASSERT_TRUE(players[i]->status().ok()) << players[i]->status().error_message();
    v1::Assignment a = players[i]->assignment();
    EXPECT_EQ(a.address(), tables_->address());
    EXPECT_FALSE(a.seat_token().empty());
    if (table_id.empty()) table_id = a.table_id();
    EXPECT_EQ(a.table_id(), table_id);
    seats.insert(a.seat());
    v1::TableView view = Table(a);
    EXPECT_EQ(view.seats(a.seat()).player_id(), "p" + std::to_string(i));
  }
  EXPECT_EQ(seats, (std::set<int>{0, 1, 2, 3}));
  // The metrics the dashboards read: matches made, wait times per mode.
  double matches = -1, waits = -1;
  for (const prometheus::MetricFamily& f : registry_.Collect()) {
    if (f.name == "trix_matchmaking_matches_total") matches = f.metric[0].counter.value;
    if (f.name != "trix_matchmaking_wait_seconds") continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      for (const prometheus::ClientMetric::Label& l : m.label) {
        if (l.name == "mode" && l.value == "complex-partner") {
          waits = static_cast<double>(m.histogram.sample_count);
        }
      }
    }
  }
  EXPECT_EQ(matches, 1);
  EXPECT_EQ(waits, 4);
}

TEST_F(MatchmakingFlowTest, APartySitsOpposite) {
  v1::Party party;
  ASSERT_TRUE(CallParty("alice", "", &party).ok());
  v1::Party joined;
  ASSERT_TRUE(CallParty("bob", party.code(), &joined).ok());
  EXPECT_THAT(joined.members(), ::testing::ElementsAre("alice", "bob"));
  // A third member finds the party full.
  v1::Party full;
  EXPECT_EQ(CallParty("carol", party.code(), &full).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  v1::FindTableRequest a = Request("alice"), b = Request("bob");
  a.set_party_id(party.party_id());
  b.set_party_id(party.party_id());
  auto alice = Queue(a);
  auto solo1 = Queue("s1");
  auto solo2 = Queue("s2");
  auto bob = Queue(b);
  for (TicketClient* c : {alice.get(), bob.get(), solo1.get(), solo2.get()}) {
    ASSERT_TRUE(c->WaitDone());
    ASSERT_TRUE(c->status().ok()) << c->status().error_message();
  }
  EXPECT_EQ(alice->assignment().table_id(), bob->assignment().table_id());
  EXPECT_EQ((alice->assignment().seat() + 2) % 4, bob->assignment().seat());
}

TEST_F(MatchmakingFlowTest, BotsFillTheTableAfterTheWait) {
  v1::RegisterBotResponse bot = RegisterBot("filler");
  ASSERT_FALSE(bot.key().empty());
  BotClient serving(stub_.get(), bot.key(), 4);
  ASSERT_TRUE(serving.WaitAssignments(0));
  while (matchmaking_->bots().connected() == 0) absl::SleepFor(absl::Milliseconds(10));
  absl::Time start = absl::Now();
  auto player = Queue("lonely");
  ASSERT_TRUE(player->WaitDone());
  ASSERT_TRUE(player->status().ok()) << player->status().error_message();
  EXPECT_GE(absl::Now() - start, absl::Seconds(2));  // the configured wait
  ASSERT_TRUE(serving.WaitAssignments(1));
  v1::Assignment seat = serving.assignments()[0];
  EXPECT_EQ(seat.table_id(), player->assignment().table_id());
  v1::TableView view = Table(seat);
  EXPECT_EQ(view.seats(seat.seat()).player_id(), bot.bot_id());
  EXPECT_TRUE(view.seats(seat.seat()).bot());
  // The other two empty seats had no bot with room: the autopilot's, from the start.
  int bots = 0, autopilot = 0;
  for (const v1::SeatView& s : view.seats()) {
    bots += s.bot() ? 1 : 0;
    autopilot += s.left() ? 1 : 0;
  }
  EXPECT_EQ(bots, 3);
  EXPECT_EQ(autopilot, 2);
}

TEST_F(MatchmakingFlowTest, WithNoBotTheAutopilotPlaysTheEmptySeatsWithoutWaiting) {
  // Hour-long clocks: a table that waited for a seat nobody plays would not end
  // within the test's minute.
  MatchmakingConfig config = TestConfig(db_->url());
  config.clocks.set_contract_ms(3600000);
  config.clocks.set_doubling_ms(3600000);
  config.clocks.set_card_ms(3600000);
  StartMatchmaking(config);
  auto player = Queue("alone");
  ASSERT_TRUE(player->WaitDone());
  ASSERT_TRUE(player->status().ok()) << player->status().error_message();
  const v1::Assignment a = player->assignment();
  v1::TableView view = Table(a);
  EXPECT_EQ(view.clocks().card_ms(), 3600000);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(view.seats(s).left(), s != a.seat()) << s;
    EXPECT_EQ(view.seats(s).bot(), s != a.seat()) << s;
  }
  table::SeatClient client(grpc::CreateChannel(a.address(), grpc::InsecureChannelCredentials()),
                           a.table_id(), a.seat_token(), a.seat());
  client.OpenPlay(0, /*play_seed=*/17);
  grpc::Status end = client.WaitDone(absl::Seconds(60));
  ASSERT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
  EXPECT_EQ(Table(a).phase(), v1::PHASE_GAME_OVER);
}

TEST_F(MatchmakingFlowTest, AReconnectingBotGetsItsSeatsAgain) {
  v1::RegisterBotResponse bot = RegisterBot("returning");
  std::string table_id;
  {
    BotClient serving(stub_.get(), bot.key(), 1);
    while (matchmaking_->bots().connected() == 0) absl::SleepFor(absl::Milliseconds(10));
    auto player = Queue("human");
    ASSERT_TRUE(serving.WaitAssignments(1));
    table_id = serving.assignments()[0].table_id();
    EXPECT_GT(serving.keep_alives() + 1, 0);
  }
  while (matchmaking_->bots().connected() != 0) absl::SleepFor(absl::Milliseconds(10));
  BotClient again(stub_.get(), bot.key(), 1);
  ASSERT_TRUE(again.WaitAssignments(1));
  EXPECT_EQ(again.assignments()[0].table_id(), table_id);
}

TEST_F(MatchmakingFlowTest, ABotAccountIsRegisteredAtALevel) {
  auto register_at = [&](const std::string& name, int level, v1::RegisterBotResponse* r) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", kServiceBearer);
    v1::RegisterBotRequest request;
    request.set_name(name);
    request.set_level(static_cast<v1::BotLevel>(level));
    return stub_->RegisterBot(&c, request, r);
  };
  v1::RegisterBotResponse strong;
  ASSERT_TRUE(register_at("strong one", v1::BOT_LEVEL_STRONG, &strong).ok());
  EXPECT_EQ(strong.level(), v1::BOT_LEVEL_STRONG);
  EXPECT_EQ(ServeStatus(strong.key(), 1).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);  // served
  v1::RegisterBotResponse odd;
  grpc::Status refused = register_at("odd one", 99, &odd);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(refused.error_message(), "unknown bot level");
  // Nothing was registered: the name is still free.
  EXPECT_TRUE(register_at("odd one", v1::BOT_LEVEL_UNSPECIFIED, &odd).ok());
  EXPECT_EQ(odd.level(), v1::BOT_LEVEL_UNSPECIFIED);
}

TEST_F(MatchmakingFlowTest, BotKeysRotateAndRevoke) {
  v1::RegisterBotResponse bot = RegisterBot("keyed");
  grpc::ClientContext c1;
  c1.AddMetadata("authorization", kServiceBearer);
  v1::RotateBotKeyRequest rotate;
  rotate.set_bot_id(bot.bot_id());
  v1::RegisterBotResponse rotated;
  ASSERT_TRUE(stub_->RotateBotKey(&c1, rotate, &rotated).ok());
  EXPECT_NE(rotated.key(), bot.key());
  auto serve_status = [&](const std::string& key) { return ServeStatus(key, 1).error_code(); };
  EXPECT_EQ(serve_status(bot.key()), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(serve_status(rotated.key()), grpc::StatusCode::DEADLINE_EXCEEDED);  // served
  grpc::ClientContext c2;
  c2.AddMetadata("authorization", kServiceBearer);
  v1::RevokeBotRequest revoke;
  revoke.set_bot_id(bot.bot_id());
  v1::RevokeBotResponse revoked;
  ASSERT_TRUE(stub_->RevokeBot(&c2, revoke, &revoked).ok());
  EXPECT_EQ(serve_status(rotated.key()), grpc::StatusCode::UNAUTHENTICATED);
  // A second bot of the same name is refused.
  grpc::ClientContext c3;
  c3.AddMetadata("authorization", kServiceBearer);
  v1::RegisterBotRequest again;
  again.set_name("keyed");
  v1::RegisterBotResponse dup;
  EXPECT_EQ(stub_->RegisterBot(&c3, again, &dup).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
}

TEST_F(MatchmakingFlowTest, TheWindowWidensWhileWaiting) {
  auto player = Queue("patient");
  ASSERT_TRUE(player->WaitQueued(3));
  std::vector<v1::Queued> q = player->queued();
  // The ticket waits in the pool it reports on, from the first update on.
  for (const v1::Queued& u : q) EXPECT_GE(u.pool_size(), 1) << u.ShortDebugString();
  EXPECT_GT(q.back().rating_window(), q.front().rating_window());
  EXPECT_GT(q.back().waited_ms(), q.front().waited_ms());
}

TEST_F(MatchmakingFlowTest, ANewRequestSupersedesTheOldTicket) {
  auto first = Queue("eve", "r1");
  ASSERT_TRUE(first->WaitQueued(1));
  auto second = Queue("eve", "r2");
  ASSERT_TRUE(first->WaitDone());
  EXPECT_EQ(first->status().error_code(), grpc::StatusCode::ABORTED);
  EXPECT_THAT(first->status().error_message(), ::testing::HasSubstr("superseded"));
  ASSERT_TRUE(second->WaitQueued(1));
  EXPECT_EQ(TicketStatus(first->queued()[0].ticket_id()), "superseded");
  EXPECT_EQ(TicketStatus(second->queued()[0].ticket_id()), "waiting");
}

TEST_F(MatchmakingFlowTest, ARetryOfTheSameRequestResumesTheTicket) {
  auto first = Queue("frank", "same");
  ASSERT_TRUE(first->WaitQueued(1));
  auto retry = Queue("frank", "same");
  ASSERT_TRUE(retry->WaitQueued(1));
  EXPECT_EQ(retry->queued()[0].ticket_id(), first->queued()[0].ticket_id());
  EXPECT_EQ(TicketStatus(first->queued()[0].ticket_id()), "waiting");
}

TEST_F(MatchmakingFlowTest, ClosingTheStreamCancelsTheTicket) {
  auto player = Queue("gone");
  ASSERT_TRUE(player->WaitQueued(1));
  std::string ticket = player->queued()[0].ticket_id();
  player->Cancel();
  ASSERT_TRUE(player->WaitDone());
  absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (TicketStatus(ticket) != "cancelled" && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(TicketStatus(ticket), "cancelled");
}

TEST_F(MatchmakingFlowTest, AReconnectGetsItsAssignment) {
  std::vector<std::unique_ptr<TicketClient>> players;
  for (int i = 0; i < 4; ++i) players.push_back(Queue("q" + std::to_string(i)));
  for (auto& p : players) ASSERT_TRUE(p->WaitDone());
  v1::Assignment first = players[2]->assignment();
  // The app lost the answer and asks again, with a new request.
  auto again = Queue("q2", "after-reconnect");
  ASSERT_TRUE(again->WaitDone());
  ASSERT_TRUE(again->status().ok());
  EXPECT_EQ(again->assignment().table_id(), first.table_id());
  EXPECT_EQ(again->assignment().seat_token(), first.seat_token());
  // Nothing stored can act for a seat: no token in the database, each seat's
  // derived again from its placement.
  EXPECT_EQ(Count("SELECT count(*) FROM mm_assignments"), 4);
  EXPECT_EQ(Count("SELECT count(*) FROM mm_assignments "
                  "WHERE seat_token <> '' OR placement_id IS NULL"),
            0);
  {
    pqxx::connection c(db_->url());
    pqxx::nontransaction tx(c);
    for (const pqxx::row& r : tx.exec("SELECT table_id, seat_token FROM mm_assignments")) {
      EXPECT_EQ(r[1].as<std::string>(), "");
    }
  }
  grpc::ClientContext context;
  context.AddMetadata("authorization", kServiceBearer);
  v1::GetAssignmentRequest request;
  request.set_player_id("q2");
  v1::Assignment got;
  ASSERT_TRUE(stub_->GetAssignment(&context, request, &got).ok());
  EXPECT_EQ(got.seat(), first.seat());
  EXPECT_EQ(got.seat_token(), first.seat_token());
  // The token resent is the table's: it subscribes the seat.
  table::SeatClient seat(grpc::CreateChannel(got.address(), grpc::InsecureChannelCredentials()),
                         got.table_id(), got.seat_token(), got.seat());
  seat.Open(0);
  EXPECT_TRUE(seat.WaitUntil([](const auto& updates) { return !updates.empty(); },
                             absl::Seconds(10)));
  grpc::ClientContext none;
  none.AddMetadata("authorization", kServiceBearer);
  request.set_player_id("nobody");
  EXPECT_EQ(stub_->GetAssignment(&none, request, &got).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(MatchmakingFlowTest, BadRequestsGetTheirStatus) {
  auto status_of = [&](v1::FindTableRequest r, const std::string& auth) {
    TicketClient c(stub_.get(), r, auth);
    EXPECT_TRUE(c.WaitDone());
    return c.status();
  };
  v1::FindTableRequest unknown = Request("x");
  unknown.mutable_mode()->set_team(v1::TEAM_SOLO);  // no format
  EXPECT_EQ(status_of(unknown, kServiceBearer).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::FindTableRequest odd_stake = Request("x");
  odd_stake.set_stake(7);
  EXPECT_EQ(status_of(odd_stake, kServiceBearer).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::FindTableRequest staked = Request("x");
  staked.set_stake(100);
  grpc::Status s = status_of(staked, kServiceBearer);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(s.error_message(), ::testing::HasSubstr("staking needs the ratings service"));
  v1::FindTableRequest no_id = Request("x", "");
  EXPECT_EQ(status_of(no_id, kServiceBearer).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status_of(Request("x"), "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status_of(Request("x"), "Bearer wrong").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  v1::FindTableRequest stranger = Request("x");
  stranger.set_party_id("no-such-party");
  EXPECT_EQ(status_of(stranger, kServiceBearer).error_code(), grpc::StatusCode::NOT_FOUND);
  v1::Party party;
  // A code that could be one but names no party; one that cannot be a code.
  EXPECT_EQ(CallParty("y", "NSUCHCD2", &party).error_code(), grpc::StatusCode::NOT_FOUND);
  grpc::Status bad_code = CallParty("y", "!! not a code !!", &party);
  EXPECT_EQ(bad_code.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad_code.error_message(), ::testing::HasSubstr("a party code is 8 characters"));
  ASSERT_TRUE(CallParty("y", "", &party).ok());
  // Leaving: a party one is not in, and a party that does not exist.
  auto leave = [&](const std::string& player, const std::string& party_id) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", kServiceBearer);
    v1::LeavePartyRequest request;
    request.set_player_id(player);
    request.set_party_id(party_id);
    v1::LeavePartyResponse response;
    return stub_->LeaveParty(&c, request, &response);
  };
  EXPECT_EQ(leave("not-a-member", party.party_id()).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(leave("y", "no-such-party").error_code(), grpc::StatusCode::NOT_FOUND);
  v1::FindTableRequest half = Request("y");
  half.set_party_id(party.party_id());
  EXPECT_EQ(status_of(half, kServiceBearer).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  grpc::ClientContext c;
  v1::RegisterBotRequest bot;
  bot.set_name("b");
  v1::RegisterBotResponse r;
  EXPECT_EQ(stub_->RegisterBot(&c, bot, &r).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(MatchmakingFlowTest, PlayerTokensActForTheirPlayerOnly) {
  v1::FindTableRequest own = Request("");
  TicketClient mine(stub_.get(), own, PlayerToken("tokenholder", 600));
  ASSERT_TRUE(mine.WaitQueued(1)) << mine.status().error_message();
  TicketClient other(stub_.get(), Request("someone-else"), PlayerToken("tokenholder", 600));
  ASSERT_TRUE(other.WaitDone());
  EXPECT_EQ(other.status().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  TicketClient expired(stub_.get(), own, PlayerToken("tokenholder", -600));
  ASSERT_TRUE(expired.WaitDone());
  EXPECT_EQ(expired.status().error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(MatchmakingFlowTest, APlayerHoldsOneLivePartyAndCannotFloodTheDoor) {
  const std::string token = PlayerToken("flooder", 600);
  int created = 0, refused = 0, exhausted = 0;
  std::string party_id, refusal, exhaustion;
  for (int i = 0; i < 200; ++i) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", token);
    v1::CreatePartyRequest request;  // the token's player
    v1::Party party;
    grpc::Status s = stub_->CreateParty(&c, request, &party);
    if (s.ok()) {
      ++created;
      party_id = party.party_id();
    } else if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      ++refused;
      refusal = s.error_message();
    } else if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++exhausted;
      exhaustion = s.error_message();
    } else {
      ADD_FAILURE() << s.error_code() << " " << s.error_message();
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_GT(refused, 0);
  EXPECT_THAT(refusal, ::testing::HasSubstr(party_id));
  EXPECT_GT(exhausted, 150);  // the burst (20) and what refilled meanwhile got through
  EXPECT_THAT(exhaustion, ::testing::HasSubstr("too many calls for flooder"));
  EXPECT_EQ(Count("SELECT count(*) FROM mm_parties"), 1);
  // Another player's quota is their own; a member of the party cannot join another.
  grpc::ClientContext c;
  c.AddMetadata("authorization", PlayerToken("bystander", 600));
  v1::Party other;
  ASSERT_TRUE(stub_->CreateParty(&c, v1::CreatePartyRequest(), &other).ok());
  v1::Party joined;
  ASSERT_TRUE(CallParty("partner", other.code(), &joined).ok());
  v1::Party second;
  ASSERT_TRUE(CallParty("third", "", &second).ok());
  EXPECT_EQ(CallParty("partner", second.code(), &joined).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(MatchmakingFlowTest, CallersNotVerifiedAreLimitedByTheirAddress) {
  MatchmakingConfig config = TestConfig(db_->url());
  config.grpc.peer_rate = {.per_second = 0.01, .burst = 40};  // no refill during the test
  StartMatchmaking(config);
  int unauthenticated = 0, exhausted = 0;
  for (int i = 0; i < 100; ++i) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer not-a-token");
    v1::GetAssignmentRequest request;
    request.set_player_id("x");
    v1::Assignment a;
    grpc::Status s = stub_->GetAssignment(&c, request, &a);
    unauthenticated += s.error_code() == grpc::StatusCode::UNAUTHENTICATED;
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++exhausted;
      EXPECT_THAT(s.error_message(), ::testing::HasSubstr("too many calls from this address"));
    }
  }
  EXPECT_GE(unauthenticated, 40);  // the address's burst
  EXPECT_LT(unauthenticated, 60);
  EXPECT_EQ(unauthenticated + exhausted, 100);
  // While the address is spent, even the verified backend from it is refused
  // before its token is looked at.
  grpc::ClientContext c;
  c.AddMetadata("authorization", kServiceBearer);
  v1::GetAssignmentRequest request;
  request.set_player_id("x");
  v1::Assignment a;
  const grpc::Status backend = stub_->GetAssignment(&c, request, &a);
  EXPECT_EQ(backend.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(backend.error_message(), ::testing::HasSubstr("too many calls from this address"));
}

TEST_F(MatchmakingFlowTest, MadeUpBotKeysAreLimitedBeforeAnyLookup) {
  int unauthenticated = 0, exhausted = 0;
  for (int i = 0; i < 100; ++i) {
    grpc::Status s = ServeStatus("made-up-key-" + std::to_string(i % 3), 1);
    unauthenticated += s.error_code() == grpc::StatusCode::UNAUTHENTICATED;
    exhausted += s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
  }
  EXPECT_GE(unauthenticated, 40);
  EXPECT_LT(unauthenticated, 60);
  EXPECT_EQ(unauthenticated + exhausted, 100);
}

TEST_F(MatchmakingFlowTest, ABotAccountsStreamsAndCapacityAreCapped) {
  MatchmakingConfig config = TestConfig(db_->url());
  config.bot_quota = {.max_streams = 2, .max_capacity = 10};
  StartMatchmaking(config);
  v1::RegisterBotResponse capped = RegisterBot("capped"), other = RegisterBot("other");
  auto first = std::make_unique<BotClient>(stub_.get(), capped.key(), 4);
  BotClient second(stub_.get(), capped.key(), 4);
  ASSERT_NO_FATAL_FAILURE(AwaitBots(2));
  grpc::Status third = ServeStatus(capped.key(), 1);
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(third.error_message(), ::testing::HasSubstr("2 streams open here"));
  first->Cancel();
  first.reset();
  ASSERT_NO_FATAL_FAILURE(AwaitBots(1));
  grpc::Status large = ServeStatus(capped.key(), 7);
  EXPECT_EQ(large.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(large.error_message(), ::testing::HasSubstr("would offer 11 tables"));
  EXPECT_EQ(ServeStatus(capped.key(), 6).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // Another account's quota is its own.
  EXPECT_EQ(ServeStatus(other.key(), 10).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(MatchmakingFlowTest, BotFillIsSpreadOverTheAccounts) {
  // One account offers a hundred times the room of each other: it still gets
  // only its turn.
  std::vector<std::unique_ptr<BotClient>> bots;
  for (const auto& [name, capacity] :
       std::vector<std::pair<std::string, int>>{{"big", 400}, {"s1", 4}, {"s2", 4}, {"s3", 4}}) {
    bots.push_back(std::make_unique<BotClient>(stub_.get(), RegisterBot(name).key(), capacity));
  }
  ASSERT_NO_FATAL_FAILURE(AwaitBots(4));
  // Four lonely players, one per mode: four tables of one player and three bots.
  std::vector<std::unique_ptr<TicketClient>> players;
  int i = 0;
  for (v1::Team team : {v1::TEAM_SOLO, v1::TEAM_PARTNER}) {
    for (v1::Format format : {v1::FORMAT_CLASSIC, v1::FORMAT_COMPLEX}) {
      v1::FindTableRequest r = Request("lonely" + std::to_string(i++));
      r.mutable_mode()->set_team(team);
      r.mutable_mode()->set_format(format);
      players.push_back(Queue(r));
    }
  }
  for (auto& p : players) {
    ASSERT_TRUE(p->WaitDone());
    ASSERT_TRUE(p->status().ok()) << p->status().error_message();
  }
  for (auto& b : bots) EXPECT_TRUE(b->WaitAssignments(3));
  absl::SleepFor(absl::Milliseconds(200));  // nothing more arrives
  for (auto& b : bots) EXPECT_EQ(b->assignments().size(), 3u);
}

TEST_F(MatchmakingFlowTest, AFullAdmissionQueueAnswersAtOnce) {
  MatchmakingConfig config = TestConfig(db_->url());
  config.max_admissions = 2;
  StartMatchmaking(config);
  // The tickets' table locked: the admission thread waits in its first batch.
  pqxx::connection c(db_->url());
  pqxx::work lock(c);
  lock.exec0("LOCK TABLE mm_tickets IN ACCESS EXCLUSIVE MODE");
  auto waiting = Queue("w0");
  absl::SleepFor(absl::Milliseconds(300));  // taken into a batch
  auto queued1 = Queue("w1");
  auto queued2 = Queue("w2");
  absl::SleepFor(absl::Milliseconds(100));
  auto refused = Queue("w3");
  ASSERT_TRUE(refused->WaitDone(absl::Seconds(1)));
  EXPECT_EQ(refused->status().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused->status().error_message(),
              ::testing::HasSubstr("2 requests waiting to be queued"));
  lock.commit();
  // The two that waited are queued once the database answers.
  EXPECT_TRUE(queued1->WaitQueued(1)) << queued1->status().error_message();
  EXPECT_TRUE(queued2->WaitQueued(1)) << queued2->status().error_message();
}

TEST_F(MatchmakingFlowTest, AStreamWhoseClientDoesNotReadIsCutOff) {
  MatchmakingConfig config = TestConfig(db_->url());
  config.pool.bot_fill_wait = absl::Hours(1);
  config.poll_every = absl::Milliseconds(1);
  config.update_every = absl::Milliseconds(1);  // a Queued update every millisecond
  config.grpc.stream_buffer = 8;
  StartMatchmaking(config);
  // A client whose transport takes a kilobyte ahead of what it reads.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1024);
  auto stub = v1::MatchmakingService::NewStub(grpc::CreateCustomChannel(
      matchmaking_->address(), grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext context;
  context.AddMetadata("authorization", kServiceBearer);
  auto reader = stub->FindTable(&context, Request("slow"));
  absl::SleepFor(absl::Seconds(3));  // not reading
  std::string ticket;
  v1::MatchUpdate update;
  while (reader->Read(&update)) {
    if (ticket.empty()) ticket = update.queued().ticket_id();
  }
  grpc::Status end = reader->Finish();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << end.error_message();
  EXPECT_THAT(end.error_message(), ::testing::HasSubstr("reads too slowly"));
  // As when the client leaves: its ticket is cancelled.
  ASSERT_FALSE(ticket.empty());
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (TicketStatus(ticket) != "cancelled" && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(TicketStatus(ticket), "cancelled");
}

}  // namespace
}  // namespace trix::matchmaking
