// The matcher on the in-memory store (testing/memory_match_store.h) and a fake
// table service: waiting tickets grouped into tables, pool leases, claims, the
// placing of tables (asked again, put back, given up, held by a stake hold gone
// or unchecked) and the commit of seats.
#include "services/matchmaking/matcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/matchmaking/seat_tokens.h"
#include "services/matchmaking/testing/eventually.h"
#include "services/matchmaking/testing/memory_match_store.h"

namespace trix::matchmaking {
namespace {

constexpr char kPool[] = "partner-complex/0";

// The table service: answers each CreateTable with `answer` (by default a table
// named after the request, with the seats' tokens), and keeps what it was asked.
class FakeTables : public TableClient {
 public:
  std::vector<Placed> CreateTables(
      const std::vector<v1::CreateTableRequest>& requests) override {
    std::vector<Placed> placed;
    std::lock_guard<std::mutex> lock(mu_);
    for (const v1::CreateTableRequest& request : requests) {
      asked_.push_back(request);
      placed.push_back(answer_ ? answer_(request, asked_.size()) : Made(request));
    }
    return placed;
  }

  absl::Status VoidTable(const std::string&, const std::string&,
                         const std::string&) override {
    return absl::UnimplementedError("the matcher voids no table");
  }

  static Placed Made(const v1::CreateTableRequest& request) {
    Placed p{.address = "table:1"};
    p.response.set_table_id("table-" + request.request_id());
    for (const v1::SeatAssignment& seat : request.seats()) {
      p.response.add_seat_tokens(seat.seat_token());
    }
    return p;
  }

  // The first CreateTable fails with `failure`; the others make their tables.
  void FailFirst(absl::Status failure) {
    Answer([failure](const v1::CreateTableRequest& request, size_t n) {
      return n == 1 ? Placed{.status = failure} : Made(request);
    });
  }
  // `answer` gets the request and how many requests were asked so far.
  void Answer(std::function<Placed(const v1::CreateTableRequest&, size_t)> answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(answer);
  }
  std::vector<v1::CreateTableRequest> asked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }

 private:
  mutable std::mutex mu_;
  std::function<Placed(const v1::CreateTableRequest&, size_t)> answer_;
  std::vector<v1::CreateTableRequest> asked_;
};

class MatcherTest : public ::testing::Test {
 protected:
  MatcherTest() : tokens_("matcher test seat key") {}
  ~MatcherTest() override {
    if (matcher_) matcher_->Stop();
  }

  void Start(PoolOptions pool = {}, absl::Duration give_up = absl::Minutes(2)) {
    v1::Mode mode;
    mode.set_team(v1::TEAM_PARTNER);
    mode.set_format(v1::FORMAT_COMPLEX);
    MatcherOptions options{.store = &store_,
                           .pools = {{.name = kPool, .mode = mode, .options = pool}},
                           .tick = absl::Milliseconds(2),
                           .lease_retry = absl::Milliseconds(20),
                           .read_every = absl::Milliseconds(10),
                           .give_up_placing = give_up,
                           .seat_tokens = &tokens_,
                           .check_holds = check_holds_,
                           .end_unheld = end_unheld_};
    matcher_ = std::make_unique<Matcher>(
        options, &tables_,
        [this](const BotAsk& ask) { return ReserveBot(ask.taken); },
        [this](const std::vector<AssignmentRow>& rows) {
          std::lock_guard<std::mutex> lock(mu_);
          assigned_.insert(assigned_.end(), rows.begin(), rows.end());
        },
        &registry_);
    matcher_->Start();
  }

  std::optional<BotSeat> ReserveBot(const std::vector<std::string>& taken) {
    std::lock_guard<std::mutex> lock(mu_);
    bot_asks_.push_back(taken);
    if (bots_left_ == 0) return std::nullopt;
    --bots_left_;
    const std::string id = absl::StrCat("bot-", bot_asks_.size());
    return BotSeat{.bot_id = id, .name = "Bot " + id, .stream_id = "stream-1"};
  }

  TicketRow Queue(const std::string& id, int rating = 1500, const std::string& party = "",
                  int64_t stake = 0) {
    return store_.Queue({.ticket_id = id,
                         .request_id = "r-" + id,
                         .player_id = "p-" + id,
                         .display_name = "Player " + id,
                         .pool = kPool,
                         .team = v1::TEAM_PARTNER,
                         .format = v1::FORMAT_COMPLEX,
                         .stake = stake,
                         .rating = rating,
                         .party_id = party});
  }

  // Queues t1 to t4, starts the matcher and waits until they are seated;
  // returns what the table service was asked.
  std::vector<v1::CreateTableRequest> SeatFour(absl::Duration give_up = absl::Minutes(2)) {
    for (const char* id : {"t1", "t2", "t3", "t4"}) Queue(id);
    Start({}, give_up);
    EXPECT_TRUE(Eventually([&] { return Seated(4); }));
    return tables_.asked();
  }

  std::vector<AssignmentRow> assigned() {
    std::lock_guard<std::mutex> lock(mu_);
    return assigned_;
  }
  bool Seated(size_t seats) { return assigned().size() >= seats; }

  // The tickets seated, by table.
  std::map<std::string, std::set<std::string>> Tables() {
    std::map<std::string, std::set<std::string>> tables;
    for (const AssignmentRow& a : assigned()) tables[a.table_id].insert(a.ticket_id);
    return tables;
  }

  SeatTokens tokens_;
  MemoryMatchStore store_;
  FakeTables tables_;
  prometheus::Registry registry_;
  std::mutex mu_;
  std::vector<AssignmentRow> assigned_;
  std::vector<std::vector<std::string>> bot_asks_;
  int bots_left_ = 0;
  std::function<HoldCheck(const std::vector<std::string>&)> check_holds_;
  std::function<void(const std::vector<std::string>&)> end_unheld_;
  std::unique_ptr<Matcher> matcher_;
};

TEST_F(MatcherTest, FourWaitingPlayersAreSeatedAtOneTable) {
  const std::vector<v1::CreateTableRequest> asked = SeatFour();
  ASSERT_EQ(asked.size(), 1u);
  const v1::CreateTableRequest& request = asked[0];
  ASSERT_EQ(request.seats_size(), 4);
  EXPECT_EQ(request.mode().team(), v1::TEAM_PARTNER);
  std::set<std::string> players;
  for (int s = 0; s < 4; ++s) {
    players.insert(request.seats(s).player_id());
    EXPECT_EQ(request.seats(s).seat_token(), tokens_.For(request.request_id(), s));
    EXPECT_FALSE(request.seats(s).bot());
  }
  EXPECT_EQ(players, (std::set<std::string>{"p-t1", "p-t2", "p-t3", "p-t4"}));
  EXPECT_EQ(Tables(), (std::map<std::string, std::set<std::string>>{
                          {"table-" + request.request_id(), {"t1", "t2", "t3", "t4"}}}));
  std::set<int> seats;
  for (const AssignmentRow& a : assigned()) {
    seats.insert(a.seat);
    EXPECT_EQ(a.placement_id, request.request_id());
    EXPECT_EQ(a.address, "table:1");
  }
  EXPECT_EQ(seats, (std::set<int>{0, 1, 2, 3}));
  for (const char* id : {"t1", "t2", "t3", "t4"}) EXPECT_EQ(store_.Status(id), "matched");
  EXPECT_TRUE(store_.Placements().empty());
  EXPECT_EQ(store_.Assignments().size(), 4u);
}

TEST_F(MatcherTest, ThreePlayersWaitForAFourthAndEightMakeTwoTables) {
  for (const char* id : {"t1", "t2", "t3"}) Queue(id);
  Start();
  ASSERT_TRUE(Eventually([&] { return matcher_->Waiting(kPool) == 3; }));
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_TRUE(tables_.asked().empty());
  EXPECT_EQ(store_.Status("t1"), "waiting");
  // Tickets this replica admitted are offered at once; others are read.
  matcher_->Offer({Queue("t4")});
  for (const char* id : {"u1", "u2", "u3", "u4"}) Queue(id, 2500);
  ASSERT_TRUE(Eventually([&] { return Seated(8); }));
  std::set<std::set<std::string>> groups;
  for (const auto& [table, tickets] : Tables()) groups.insert(tickets);
  EXPECT_EQ(groups, (std::set<std::set<std::string>>{{"t1", "t2", "t3", "t4"},
                                                      {"u1", "u2", "u3", "u4"}}));
}

TEST_F(MatcherTest, APartyIsSeatedAsPartnersOnceBothMembersHaveAsked) {
  // The party's first member, then two players alone: no table without the second.
  Queue("d1", 1500, "duo");
  Queue("s1");
  Queue("s2");
  Start();
  ASSERT_TRUE(Eventually([&] { return matcher_->Waiting(kPool) == 2; }));
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_TRUE(tables_.asked().empty());
  Queue("d2", 1500, "duo");
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));
  std::map<std::string, int> seat;
  for (const AssignmentRow& a : assigned()) seat[a.ticket_id] = a.seat;
  ASSERT_EQ(seat.size(), 4u);
  EXPECT_EQ((seat["d1"] + 2) % 4, seat["d2"]);  // seats 0+2 and 1+3 are the teams
  for (const char* id : {"d1", "d2", "s1", "s2"}) EXPECT_EQ(store_.Status(id), "matched");
}

TEST_F(MatcherTest, PlayersTooFarApartInRatingAreNotGrouped) {
  Queue("low1", 1000);
  Queue("low2", 1000);
  Queue("high1", 2500);
  Queue("high2", 2500);
  Start({.curve = {.initial = 100, .per_second = 0, .max = 100}, .bot_fill = false});
  ASSERT_TRUE(Eventually([&] { return matcher_->Waiting(kPool) == 4; }));
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_TRUE(tables_.asked().empty());
  EXPECT_TRUE(store_.Placements().empty());
}

TEST_F(MatcherTest, OnlyTheLeaseholderMatchesAPool) {
  std::unique_ptr<PoolSession> other = store_.OpenSession();
  ASSERT_TRUE(other->TryLease(kPool));
  for (const char* id : {"t1", "t2", "t3", "t4"}) Queue(id);
  Start();
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_TRUE(matcher_->LeasedPools().empty());
  EXPECT_EQ(store_.Status("t1"), "waiting");
  other.reset();  // the other replica died: its lease went with its connection
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));
  // The matcher publishes its pools at the end of the round that grouped them,
  // which the placer's seating may finish before.
  EXPECT_TRUE(Eventually(
      [&] { return matcher_->LeasedPools() == std::vector<std::string>{kPool}; }));
}

TEST_F(MatcherTest, ACancelledTicketIsNotSeated) {
  for (const char* id : {"t1", "t2", "t3", "t4"}) Queue(id);
  store_.Cancel("t2");
  Queue("t5");
  Start();
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));
  EXPECT_EQ(Tables().begin()->second, (std::set<std::string>{"t1", "t3", "t4", "t5"}));
  EXPECT_EQ(store_.Status("t2"), "cancelled");
}

TEST_F(MatcherTest, BotsFillTheEmptySeatsAfterTheWait) {
  bots_left_ = 1;  // one bot account has room; the other seat is the autopilot's
  Queue("t1");
  Queue("t2");
  Start({.bot_fill_wait = absl::Milliseconds(30)});
  ASSERT_TRUE(Eventually([&] { return Seated(3); }));
  const std::vector<v1::CreateTableRequest> asked = tables_.asked();
  ASSERT_EQ(asked.size(), 1u);
  int bots = 0, autopilots = 0;
  for (const v1::SeatAssignment& seat : asked[0].seats()) {
    bots += seat.bot() && !seat.autopilot();
    autopilots += seat.autopilot();
    if (seat.autopilot()) {
      EXPECT_TRUE(seat.seat_token().empty());
    }
  }
  EXPECT_EQ(bots, 1);
  EXPECT_EQ(autopilots, 1);
  ASSERT_EQ(bot_asks_.size(), 2u);
  EXPECT_TRUE(bot_asks_[0].empty());
  EXPECT_EQ(bot_asks_[1], std::vector<std::string>{"bot-1"});  // not the same bot twice
  int bot_rows = 0;
  for (const AssignmentRow& a : assigned()) {
    if (a.bot) {
      ++bot_rows;
      EXPECT_EQ(a.bot_stream, "stream-1");
      EXPECT_TRUE(a.ticket_id.empty());
    }
  }
  EXPECT_EQ(bot_rows, 1);
}

TEST_F(MatcherTest, AStakedTableWithAHoldGoneIsNotMadeAndThatTicketIsEnded) {
  std::vector<std::string> checked, ended;
  check_holds_ = [&](const std::vector<std::string>& tickets) {
    std::lock_guard<std::mutex> lock(mu_);
    checked.insert(checked.end(), tickets.begin(), tickets.end());
    return HoldCheck{.gone = {"t2"}};
  };
  end_unheld_ = [&](const std::vector<std::string>& tickets) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ended.insert(ended.end(), tickets.begin(), tickets.end());
    }
    for (const std::string& t : tickets) store_.Cancel(t);  // as the lobby ends it
  };
  for (const char* id : {"t1", "t2", "t3", "t4", "t5"}) Queue(id, 1500, "", 100);
  Start();
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));
  EXPECT_EQ(Tables().begin()->second, (std::set<std::string>{"t1", "t3", "t4", "t5"}));
  for (const v1::CreateTableRequest& request : tables_.asked()) {
    for (const v1::SeatAssignment& seat : request.seats()) {
      EXPECT_NE(seat.player_id(), "p-t2");  // no table is made with a hold gone
      EXPECT_EQ(seat.stake(), 100);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_FALSE(ended.empty());
  for (const std::string& t : ended) EXPECT_EQ(t, "t2");
  EXPECT_NE(std::find(checked.begin(), checked.end(), "t1"), checked.end());
  EXPECT_TRUE(store_.Voids().empty());
}

TEST_F(MatcherTest, AStakedTableWhoseHoldsCouldNotBeCheckedIsMadeOnceTheyAre) {
  int checks = 0;
  check_holds_ = [&](const std::vector<std::string>& tickets) {
    std::lock_guard<std::mutex> lock(mu_);
    // The ratings service does not answer the first check.
    return ++checks == 1
               ? HoldCheck{.unchecked = {tickets.begin(), tickets.end()}}
               : HoldCheck{};
  };
  end_unheld_ = [](const std::vector<std::string>&) {
    ADD_FAILURE() << "no hold is gone";
  };
  for (const char* id : {"t1", "t2", "t3", "t4"}) Queue(id, 1500, "", 100);
  Start();
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));
  ASSERT_EQ(tables_.asked().size(), 1u);  // not asked for until checked
  EXPECT_EQ(Tables().begin()->first, "table-" + tables_.asked()[0].request_id());
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(checks, 2);
}

TEST_F(MatcherTest, AnUnansweredTableIsAskedForAgainWithTheSameRequest) {
  tables_.FailFirst(absl::UnavailableError("answer lost"));
  const std::vector<v1::CreateTableRequest> asked = SeatFour();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1].SerializeAsString(), asked[0].SerializeAsString());
  EXPECT_EQ(store_.Assignments().size(), 4u);
  EXPECT_TRUE(store_.Voids().empty());
}

TEST_F(MatcherTest, ARefusalThatProvesNoTablePutsTheTicketsBackToBeGroupedAgain) {
  tables_.FailFirst(absl::ResourceExhaustedError("instance full"));
  const std::vector<v1::CreateTableRequest> asked = SeatFour();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_NE(asked[1].request_id(), asked[0].request_id());  // a new placement
  EXPECT_EQ(Tables().size(), 1u);
  EXPECT_EQ(Tables().begin()->first, "table-" + asked[1].request_id());
  EXPECT_TRUE(store_.Voids().empty());
}

TEST_F(MatcherTest, APlacementGivenUpIsVoidedAndItsTicketsGroupedAgain) {
  tables_.FailFirst(absl::DeadlineExceededError("no answer"));
  const std::vector<v1::CreateTableRequest> asked = SeatFour(absl::ZeroDuration());
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(store_.Voids(), std::vector<std::string>{asked[0].request_id()});
  EXPECT_EQ(Tables().begin()->first, "table-" + asked[1].request_id());
}

TEST_F(MatcherTest, SeatsThatCouldNotBeCommittedArePlacedAgainAndGivenOnce) {
  store_.FailCommits(2, absl::UnavailableError("database away"));
  const std::vector<v1::CreateTableRequest> asked = SeatFour();
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[2].request_id(), asked[0].request_id());
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(assigned().size(), 4u);
  EXPECT_EQ(store_.Assignments().size(), 4u);
}

TEST_F(MatcherTest, APlacementLeftByThePoolsLastHolderIsFinishedWithItsRequest) {
  for (const char* id : {"t1", "t2", "t3", "t4", "o1"}) Queue(id);
  PlannedTable left{.pool = kPool, .tickets = {"t1", "t2", "t3", "t4"},
                    .possible = absl::Now()};
  left.request.set_request_id("left-behind");
  left.request.mutable_mode()->set_team(v1::TEAM_PARTNER);
  left.request.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = left.request.add_seats();
    seat->set_player_id(absl::StrCat("p-", left.tickets[s]));
    seat->set_seat_token(tokens_.For("left-behind", s));
    left.seats.push_back({.seat = s, .player_id = seat->player_id(),
                          .ticket_id = left.tickets[s]});
  }
  {
    std::unique_ptr<PoolSession> last = store_.OpenSession();
    ASSERT_TRUE(last->TryLease(kPool));
    ASSERT_TRUE(last->ClaimWhole({&left}));
    last->ClaimEach({"o1"}, [](const std::set<std::string>&) { return ClaimPlan{}; });
  }  // the last holder dies, mid-placement
  Start();
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));
  const std::vector<v1::CreateTableRequest> asked = tables_.asked();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].SerializeAsString(), left.request.SerializeAsString());
  EXPECT_EQ(Tables().begin()->first, "table-left-behind");
  EXPECT_EQ(store_.Status("o1"), "waiting");  // claimed without a placement: back
}

TEST_F(MatcherTest, AMatcherWhoseSessionIsLostLeasesItsPoolsAgain) {
  Start();
  ASSERT_TRUE(Eventually([&] { return !matcher_->LeasedPools().empty(); }));
  store_.LoseSessions();
  Queue("t1");  // the next read fails: the session is gone
  ASSERT_TRUE(Eventually([&] { return matcher_->LeasedPools().empty(); }));
  for (const char* id : {"t2", "t3", "t4"}) Queue(id);
  ASSERT_TRUE(Eventually([&] { return Seated(4); }));  // after a second's pause
  EXPECT_EQ(store_.Leased(), std::set<std::string>{kPool});
}

}  // namespace
}  // namespace trix::matchmaking
