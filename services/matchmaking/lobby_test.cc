// The lobby on in-memory stores and fake clients (testing/): what it decides
// for a FindTable request — validated, rated, its party checked, its stake held,
// queued, resumed or superseded, seated again — and what becomes of a ticket's
// hold when its stream closes, its hold is gone or its game ends.
#include "services/matchmaking/lobby.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "prometheus/registry.h"
#include "services/matchmaking/server.h"
#include "services/matchmaking/testing/eventually.h"
#include "services/matchmaking/testing/fake_ratings_client.h"
#include "services/matchmaking/testing/memory_hold_release_store.h"
#include "services/matchmaking/testing/memory_ticket_store.h"

namespace trix::matchmaking {
namespace {

// A FindTable stream: what the lobby told it.
class RecordingSink : public TicketSink {
 public:
  void Queued(const v1::Queued& queued) override {
    std::lock_guard<std::mutex> lock(mu_);
    ticket_id_ = queued.ticket_id();
  }
  void Assigned(const v1::Assignment& assignment) override {
    std::lock_guard<std::mutex> lock(mu_);
    assigned_ = assignment;
  }
  void End(const absl::Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    end_ = status;
  }
  std::string ticket_id() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ticket_id_;
  }
  std::optional<v1::Assignment> assigned() const {
    std::lock_guard<std::mutex> lock(mu_);
    return assigned_;
  }
  std::optional<absl::Status> end() const {
    std::lock_guard<std::mutex> lock(mu_);
    return end_;
  }
  bool heard() const { return !ticket_id().empty() || assigned() || end(); }

 private:
  mutable std::mutex mu_;
  std::string ticket_id_;
  std::optional<v1::Assignment> assigned_;
  std::optional<absl::Status> end_;
};

// Tables' states as a test sets them; a table not set is live.
class FakeTableStates : public TableStates {
 public:
  void Set(const std::string& table_id, TableEnd end) {
    std::lock_guard<std::mutex> lock(mu_);
    ends_[table_id] = end;
  }
  TableGame GameAt(const std::string& address, const std::string& table_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ends_.find(table_id);
    return {.end = it == ends_.end() ? TableEnd::kLive : it->second};
  }

 private:
  std::mutex mu_;
  std::map<std::string, TableEnd> ends_;
};

class TableStatesOf : public TableStates {
 public:
  explicit TableStatesOf(FakeTableStates* states) : states_(states) {}
  TableGame GameAt(const std::string& address, const std::string& table_id) override {
    return states_->GameAt(address, table_id);
  }

 private:
  FakeTableStates* const states_;
};

class LobbyTest : public ::testing::Test {
 protected:
  // The lobby and its hold releases (not started: tests call ReleaseDue), on
  // the ratings fake unless `with_ratings` is false.
  void StartLobby(bool with_ratings = true, size_t max_admissions = 20000) {
    auto rows = std::make_unique<MemoryHoldReleaseStore>(&tickets_);
    release_rows_ = rows.get();
    releases_ = std::make_unique<HoldReleases>(
        std::move(rows), with_ratings ? ratings_.Client() : nullptr, HoldReleasesOptions{},
        &registry_);
    LobbyOptions options{.pools = MakePools(PoolOptions{}, {100}),
                         .stake_levels = {100},
                         .max_admissions = max_admissions};
    lobby_ = std::make_unique<Lobby>(options, &tickets_,
                                     with_ratings ? ratings_.Client() : nullptr, nullptr,
                                     releases_.get(), std::make_unique<TableStatesOf>(&tables_));
    if (max_admissions == 20000) lobby_->Start();
  }

  static v1::FindTableRequest Request(const std::string& request_id, int64_t stake = 0,
                                      const std::string& party = "") {
    v1::FindTableRequest r;
    r.set_request_id(request_id);
    r.set_display_name("Player");
    r.set_stake(stake);
    r.set_party_id(party);
    return r;
  }

  // FindTable, and the sink once the lobby answered it.
  std::shared_ptr<RecordingSink> Find(const std::string& player,
                                      const v1::FindTableRequest& request) {
    auto sink = std::make_shared<RecordingSink>();
    lobby_->FindTable(player, request, sink);
    EXPECT_TRUE(Eventually([&] { return sink->heard(); }));
    return sink;
  }

  TicketRow TicketOf(const std::string& ticket_id) {
    absl::StatusOr<std::vector<TicketRow>> rows = tickets_.Tickets({ticket_id});
    EXPECT_TRUE(rows.ok() && rows->size() == 1u) << ticket_id;
    return rows.ok() && rows->size() == 1u ? (*rows)[0] : TicketRow{};
  }

  // The live (waiting or placing) tickets of `player`.
  std::vector<TicketRow> LiveTickets(const std::string& player) {
    std::vector<TicketRow> live;
    for (const auto& [t, changed] : tickets_.AllTickets()) {
      if (t.player_id == player && (t.status == "waiting" || t.status == "placing")) {
        live.push_back(t);
      }
    }
    return live;
  }

  MemoryTicketStore tickets_;
  FakeRatings ratings_;
  FakeTableStates tables_;
  prometheus::Registry registry_;
  MemoryHoldReleaseStore* release_rows_ = nullptr;  // owned by releases_
  std::unique_ptr<HoldReleases> releases_;
  std::unique_ptr<Lobby> lobby_;
};

TEST_F(LobbyTest, ATicketIsQueuedWithThePlayersRating) {
  ratings_.SetRating("p", 1720);
  StartLobby();
  std::shared_ptr<RecordingSink> sink = Find("p", Request("r1"));
  ASSERT_FALSE(sink->ticket_id().empty()) << sink->end().value_or(absl::OkStatus());
  const TicketRow t = TicketOf(sink->ticket_id());
  EXPECT_EQ(t.status, "waiting");
  EXPECT_EQ(t.request_id, "r1");
  EXPECT_EQ(t.pool, "complex-partner/0");  // Quick Play
  EXPECT_EQ(t.rating, 1720);
  EXPECT_FALSE(t.provisional);
  EXPECT_EQ(t.hold_id, "");
  EXPECT_EQ(ratings_.holds_made(), 0);
}

TEST_F(LobbyTest, WithoutRatingsAPlayerCountsAsTheDefaultAndCannotStake) {
  StartLobby(/*with_ratings=*/false);
  std::shared_ptr<RecordingSink> free = Find("p", Request("r1"));
  const TicketRow t = TicketOf(free->ticket_id());
  EXPECT_EQ(t.rating, 1500);
  EXPECT_TRUE(t.provisional);
  std::shared_ptr<RecordingSink> staked = Find("q", Request("r1", 100));
  ASSERT_TRUE(staked->end().has_value());
  EXPECT_TRUE(absl::IsFailedPrecondition(*staked->end())) << *staked->end();
}

TEST_F(LobbyTest, ABadRequestIsRefusedAndQueuesNothing) {
  StartLobby();
  EXPECT_TRUE(absl::IsInvalidArgument(Find("p", Request(""))->end().value()));
  EXPECT_TRUE(absl::IsInvalidArgument(Find("p", Request("r1", 7))->end().value()));
  EXPECT_TRUE(absl::IsInvalidArgument(Find("p", Request("r1", -100))->end().value()));
  EXPECT_TRUE(
      absl::IsInvalidArgument(Find("p", Request(std::string(129, 'r')))->end().value()));
  EXPECT_TRUE(LiveTickets("p").empty());
}

TEST_F(LobbyTest, APartyOfTwoQueuesTogetherAndAPartyOfOneWaitsForItsPartner) {
  ASSERT_TRUE(
      tickets_.CreateParty({"party-1", "code-1", {"a"}, absl::Now() + absl::Minutes(5)}).ok());
  StartLobby();
  std::shared_ptr<RecordingSink> alone = Find("a", Request("r1", 0, "party-1"));
  ASSERT_TRUE(alone->end().has_value());
  EXPECT_TRUE(absl::IsFailedPrecondition(*alone->end())) << *alone->end();
  std::shared_ptr<RecordingSink> stranger = Find("c", Request("r1", 0, "party-1"));
  EXPECT_TRUE(absl::IsPermissionDenied(stranger->end().value()));

  ASSERT_TRUE(tickets_.JoinParty("code-1", "b").ok());
  std::shared_ptr<RecordingSink> a = Find("a", Request("r2", 0, "party-1"));
  std::shared_ptr<RecordingSink> b = Find("b", Request("r1", 0, "party-1"));
  ASSERT_FALSE(a->ticket_id().empty());
  ASSERT_FALSE(b->ticket_id().empty());
  EXPECT_EQ(TicketOf(a->ticket_id()).party_id, "party-1");
  EXPECT_EQ(TicketOf(b->ticket_id()).party_id, "party-1");
}

TEST_F(LobbyTest, AStakeIsHeldForAStakedTicket) {
  ratings_.SetBalance("p", 100);
  StartLobby();
  std::shared_ptr<RecordingSink> sink = Find("p", Request("r1", 100));
  ASSERT_FALSE(sink->ticket_id().empty()) << sink->end().value_or(absl::OkStatus());
  const TicketRow t = TicketOf(sink->ticket_id());
  EXPECT_EQ(t.pool, "complex-partner/100");
  ASSERT_FALSE(t.hold_id.empty());
  EXPECT_EQ(ratings_.HoldOf(t.hold_id)->state(), v1::HOLD_STATE_HELD);
  EXPECT_EQ(ratings_.HoldOf(t.hold_id)->amount(), 100);
  // Queued: the admission's record of the hold went (nothing to give back).
  EXPECT_FALSE(release_rows_->Row(HoldRequestId("p", "r1")).has_value());
}

TEST_F(LobbyTest, AStakeTheBalanceCannotCoverIsRefusedAndNothingIsQueued) {
  ratings_.SetBalance("p", 50);
  StartLobby();
  std::shared_ptr<RecordingSink> sink = Find("p", Request("r1", 100));
  ASSERT_TRUE(sink->end().has_value());
  EXPECT_TRUE(absl::IsFailedPrecondition(*sink->end())) << *sink->end();
  EXPECT_NE(sink->end()->message().find("the balance cannot cover the stake"),
            absl::string_view::npos)
      << *sink->end();
  EXPECT_TRUE(LiveTickets("p").empty());
  // The stake was recorded before it was asked for; after the admission's
  // grace its release asks again, finds nothing held and is done.
  const std::optional<MemoryHoldReleaseStore::Stored> row =
      release_rows_->Row(HoldRequestId("p", "r1"));
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->row.reason, kReleaseAdmission);
  release_rows_->DueAll();
  EXPECT_EQ(releases_->ReleaseDue(), 1);
  EXPECT_EQ(ratings_.holds_made(), 0);
}

TEST_F(LobbyTest, AClosedStreamsTicketIsCancelledAndItsHoldGivenBack) {
  ratings_.SetBalance("p", 100);
  StartLobby();
  std::shared_ptr<RecordingSink> sink = Find("p", Request("r1", 100));
  ASSERT_FALSE(sink->ticket_id().empty());
  const std::string hold = TicketOf(sink->ticket_id()).hold_id;
  lobby_->Closed(sink);
  ASSERT_TRUE(Eventually([&] { return TicketOf(sink->ticket_id()).status == "cancelled"; }));
  const std::optional<MemoryHoldReleaseStore::Stored> row = release_rows_->Row(hold);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->row.reason, "ticket cancelled");
  EXPECT_EQ(releases_->ReleaseDue(), 1);
  EXPECT_EQ(ratings_.HoldOf(hold)->state(), v1::HOLD_STATE_RELEASED);
}

TEST_F(LobbyTest, ARetryOfTheSameRequestResumesItsTicket) {
  StartLobby();
  std::shared_ptr<RecordingSink> first = Find("p", Request("r1"));
  std::shared_ptr<RecordingSink> retry = Find("p", Request("r1"));
  EXPECT_EQ(retry->ticket_id(), first->ticket_id());
  ASSERT_TRUE(Eventually([&] { return first->end().has_value(); }));
  EXPECT_TRUE(absl::IsAborted(*first->end())) << *first->end();
  EXPECT_EQ(LiveTickets("p").size(), 1u);
  // The first stream's close leaves the ticket to the retry's.
  lobby_->Closed(first);
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(TicketOf(first->ticket_id()).status, "waiting");
}

TEST_F(LobbyTest, ANewerRequestSupersedesTheWaitingTicket) {
  StartLobby();
  std::shared_ptr<RecordingSink> first = Find("p", Request("r1"));
  std::shared_ptr<RecordingSink> second = Find("p", Request("r2"));
  ASSERT_NE(second->ticket_id(), first->ticket_id());
  ASSERT_TRUE(Eventually([&] { return first->end().has_value(); }));
  EXPECT_TRUE(absl::IsAborted(*first->end())) << *first->end();
  EXPECT_EQ(TicketOf(first->ticket_id()).status, "superseded");
  EXPECT_EQ(LiveTickets("p").size(), 1u);
}

TEST_F(LobbyTest, ANewerStakedRequestOfTheSameStakeCarriesTheHoldOver) {
  ratings_.SetBalance("p", 100);  // one stake
  StartLobby();
  std::shared_ptr<RecordingSink> first = Find("p", Request("r1", 100));
  std::shared_ptr<RecordingSink> second = Find("p", Request("r2", 100));
  ASSERT_FALSE(second->ticket_id().empty()) << second->end().value_or(absl::OkStatus());
  const std::string hold = TicketOf(first->ticket_id()).hold_id;
  EXPECT_EQ(TicketOf(second->ticket_id()).hold_id, hold);
  EXPECT_EQ(ratings_.holds_made(), 1);
  // The superseded ticket's release finds the hold carried and leaves it held.
  release_rows_->DueAll();
  releases_->ReleaseDue();
  EXPECT_EQ(ratings_.HoldOf(hold)->state(), v1::HOLD_STATE_HELD);
}

TEST_F(LobbyTest, APlayerWhoseGameIsOnGetsTheSeatAgain) {
  ratings_.SetBalance("p", 100);
  StartLobby();
  std::shared_ptr<RecordingSink> first = Find("p", Request("r1", 100));
  const TicketRow t = TicketOf(first->ticket_id());
  tickets_.Claim(t.ticket_id);
  AssignmentRow seat{.table_id = "table-1", .seat = 2, .player_id = "p",
                     .ticket_id = t.ticket_id, .address = "table:1", .seat_token = "token",
                     .team = 2, .format = 2, .stake = 100};
  tickets_.Seat(seat);
  lobby_->Deliver({seat});
  ASSERT_TRUE(first->assigned().has_value());
  EXPECT_EQ(first->assigned()->table_id(), "table-1");

  std::shared_ptr<RecordingSink> again = Find("p", Request("r2", 100));
  ASSERT_TRUE(again->assigned().has_value());
  EXPECT_EQ(again->assigned()->seat(), 2);
  EXPECT_EQ(again->assigned()->seat_token(), "token");
  EXPECT_TRUE(LiveTickets("p").empty());
  // Seated again, its hold is attached (what a process that died before did not).
  EXPECT_EQ(ratings_.HoldOf(t.hold_id)->state(), v1::HOLD_STATE_ATTACHED);
  EXPECT_EQ(ratings_.HoldOf(t.hold_id)->table_id(), "table-1");

  // Once the game is over the seat ends and a new request queues a ticket.
  tables_.Set("table-1", TableEnd::kOver);
  std::shared_ptr<RecordingSink> after = Find("p", Request("r3"));
  EXPECT_FALSE(after->ticket_id().empty());
  EXPECT_TRUE(tickets_.LiveAssignments("p").value().empty());
}

TEST_F(LobbyTest, AWaitingTicketWhoseHoldIsGoneEnds) {
  ratings_.SetBalance("p", 100);
  ratings_.SetBalance("q", 100);
  StartLobby();
  std::shared_ptr<RecordingSink> p = Find("p", Request("r1", 100));
  std::shared_ptr<RecordingSink> q = Find("q", Request("r1", 100));
  ratings_.Expire(TicketOf(p->ticket_id()).hold_id);
  HoldCheck check = lobby_->CheckHolds({p->ticket_id(), q->ticket_id()});
  EXPECT_EQ(check.gone, std::set<std::string>{p->ticket_id()});
  EXPECT_TRUE(check.unchecked.empty());
  lobby_->KeepWaitingHolds();
  ASSERT_TRUE(p->end().has_value());
  EXPECT_TRUE(absl::IsFailedPrecondition(*p->end())) << *p->end();
  EXPECT_EQ(TicketOf(p->ticket_id()).status, "cancelled");
  EXPECT_FALSE(q->end().has_value());

  ratings_.SetAway(true);  // holds that cannot be checked are not gone
  check = lobby_->CheckHolds({q->ticket_id()});
  EXPECT_EQ(check.unchecked, std::set<std::string>{q->ticket_id()});
}

TEST_F(LobbyTest, ReconcilingEndsTheSeatsOfAVoidedTableAndAttachesALiveOnesHolds) {
  ratings_.SetBalance("p", 100);
  ratings_.SetBalance("q", 100);
  StartLobby();
  std::map<std::string, TicketRow> t;
  for (const char* player : {"p", "q"}) {
    t[player] = TicketOf(Find(player, Request("r1", 100))->ticket_id());
    tickets_.Claim(t[player].ticket_id);
    tickets_.Seat({.table_id = std::string("table-") + player, .player_id = player,
                   .ticket_id = t[player].ticket_id, .address = "table:1", .stake = 100});
  }
  tables_.Set("table-p", TableEnd::kVoided);
  lobby_->Reconcile();
  EXPECT_TRUE(tickets_.LiveAssignments("p").value().empty());
  const std::optional<MemoryHoldReleaseStore::Stored> row = release_rows_->Row(t["p"].hold_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->row.table_id, "table-p");  // an attached hold is released by its table
  EXPECT_EQ(row->row.reason, kReleaseVoided);
  EXPECT_EQ(ratings_.HoldOf(t["q"].hold_id)->state(), v1::HOLD_STATE_ATTACHED);
  EXPECT_EQ(tickets_.LiveAssignments("q").value().size(), 1u);
}

TEST_F(LobbyTest, RequestsBeyondTheAdmissionQueueAreRefusedAtOnce) {
  StartLobby(/*with_ratings=*/true, /*max_admissions=*/1);  // not started: nothing admitted
  auto first = std::make_shared<RecordingSink>();
  lobby_->FindTable("p", Request("r1"), first);
  auto second = std::make_shared<RecordingSink>();
  lobby_->FindTable("q", Request("r1"), second);
  EXPECT_FALSE(first->heard());
  ASSERT_TRUE(second->end().has_value());
  EXPECT_TRUE(absl::IsResourceExhausted(*second->end())) << *second->end();
  lobby_->Stop();
  EXPECT_TRUE(absl::IsUnavailable(first->end().value()));
}

}  // namespace
}  // namespace trix::matchmaking
