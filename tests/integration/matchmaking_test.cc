// Matchmaking end to end with real PostgreSQL, the real table service and real
// gRPC streams: players queue and share tables, parties sit as partners, bots fill
// after the wait (the table's autopilot plays the seats no bot takes, without
// waiting a clock), tickets are superseded, cancelled and resumed, assignments are
// delivered again, and bad requests get their exact status.
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

TEST_F(MatchmakingFlowTest, BotKeysRotateAndRevoke) {
  v1::RegisterBotResponse bot = RegisterBot("keyed");
  grpc::ClientContext c1;
  c1.AddMetadata("authorization", kServiceBearer);
  v1::RotateBotKeyRequest rotate;
  rotate.set_bot_id(bot.bot_id());
  v1::RegisterBotResponse rotated;
  ASSERT_TRUE(stub_->RotateBotKey(&c1, rotate, &rotated).ok());
  EXPECT_NE(rotated.key(), bot.key());
  auto serve_status = [&](const std::string& key) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer " + key);
    c.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    v1::ServeBotRequest request;
    request.set_capacity(1);
    auto reader = stub_->ServeBot(&c, request);
    v1::BotUpdate u;
    while (reader->Read(&u)) {
    }
    return reader->Finish().error_code();
  };
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
  grpc::ClientContext context;
  context.AddMetadata("authorization", kServiceBearer);
  v1::GetAssignmentRequest request;
  request.set_player_id("q2");
  v1::Assignment got;
  ASSERT_TRUE(stub_->GetAssignment(&context, request, &got).ok());
  EXPECT_EQ(got.seat(), first.seat());
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
  EXPECT_EQ(CallParty("y", "NOSUCHCD", &party).error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(CallParty("y", "", &party).ok());
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

}  // namespace
}  // namespace trix::matchmaking
