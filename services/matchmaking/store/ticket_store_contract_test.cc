// TicketStore's contract (ticket_store.h), checked against PostgreSQL and
// against the in-memory fake the lobby's tests use (testing/memory_ticket_store.h):
// admission (a new ticket, a retry resumed, an older request superseded, a
// ticket being placed resumed, a live seat instead of a ticket, a player's last
// row winning within a batch), cancellation, the holds tickets carry, seats,
// parties and bot accounts. What only PostgreSQL can show (admissions racing the
// matcher's commit, the sweep of old rows) is in ticket_store_test.cc.
#include "services/matchmaking/store/ticket_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "services/matchmaking/store/lobby_stores_under_test.h"

namespace trix::matchmaking {
namespace {

using TicketStoreContractTest = LobbyStoresTest;

TEST_P(TicketStoreContractTest, ANewTicketWaitsAsItWasGiven) {
  absl::StatusOr<Admitted> admitted = tickets().Admit({Row("p", "r1")});
  ASSERT_TRUE(admitted.ok()) << admitted.status();
  ASSERT_EQ(admitted->outcomes.size(), 1u);
  EXPECT_EQ(admitted->outcomes[0].ticket_id, "p-r1");
  EXPECT_FALSE(admitted->outcomes[0].resumed);
  EXPECT_FALSE(admitted->outcomes[0].assigned.has_value());
  EXPECT_TRUE(admitted->superseded.empty());
  absl::StatusOr<std::vector<TicketRow>> rows = tickets().Tickets({"p-r1"});
  ASSERT_TRUE(rows.ok() && rows->size() == 1u);
  const TicketRow& t = (*rows)[0];
  EXPECT_EQ(t.status, "waiting");
  EXPECT_EQ(t.player_id, "p");
  EXPECT_EQ(t.request_id, "r1");
  EXPECT_EQ(t.display_name, "name of p");
  EXPECT_EQ(t.pool, "complex-partner/0");
  EXPECT_EQ(t.rating, 1500);
  EXPECT_GT(t.seq, 0);
}

TEST_P(TicketStoreContractTest, ARetryOfTheSameRequestResumesItsTicket) {
  Admit({Row("p", "r1")});
  TicketRow retry = Row("p", "r1");
  retry.ticket_id = "p-r1-again";
  absl::StatusOr<Admitted> again = tickets().Admit({retry});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outcomes[0].ticket_id, "p-r1");
  EXPECT_TRUE(again->outcomes[0].resumed);
  EXPECT_TRUE(again->superseded.empty());
  EXPECT_EQ(StatusOf("p-r1"), "waiting");
}

TEST_P(TicketStoreContractTest, ANewRequestSupersedesTheWaitingTicket) {
  Admit({Row("p", "r1")});
  absl::StatusOr<Admitted> again = tickets().Admit({Row("p", "r2")});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outcomes[0].ticket_id, "p-r2");
  EXPECT_FALSE(again->outcomes[0].resumed);
  ASSERT_EQ(again->superseded.size(), 1u);
  EXPECT_EQ(again->superseded[0].ticket_id, "p-r1");
  EXPECT_EQ(again->superseded[0].status, "superseded");
  EXPECT_EQ(StatusOf("p-r1"), "superseded");
  EXPECT_EQ(StatusOf("p-r2"), "waiting");
}

TEST_P(TicketStoreContractTest, ATicketBeingPlacedIsResumedByANewRequest) {
  Admit({Row("p", "r1")});
  stores_->Claim("p-r1");
  absl::StatusOr<Admitted> again = tickets().Admit({Row("p", "r2")});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outcomes[0].ticket_id, "p-r1");
  EXPECT_TRUE(again->outcomes[0].resumed);
  EXPECT_FALSE(again->outcomes[0].assigned.has_value());
  EXPECT_EQ(StatusOf("p-r1"), "placing");
  EXPECT_EQ(StatusOf("p-r2"), "");  // never queued
}

TEST_P(TicketStoreContractTest, APlayerHoldingALiveSeatGetsItInsteadOfANewTicket) {
  Admit({Row("p", "r1")});
  stores_->Claim("p-r1");
  stores_->Seat(SeatOf("table-g1", "p", "p-r1"));
  absl::StatusOr<Admitted> again = tickets().Admit({Row("p", "r2")});
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->outcomes.size(), 1u);
  ASSERT_TRUE(again->outcomes[0].assigned.has_value());
  EXPECT_EQ(again->outcomes[0].assigned->table_id, "table-g1");
  EXPECT_EQ(again->outcomes[0].assigned->ticket_id, "p-r1");
  EXPECT_EQ(again->outcomes[0].assigned->seat_token, "token");
  EXPECT_TRUE(again->superseded.empty());
  EXPECT_EQ(StatusOf("p-r2"), "");
}

TEST_P(TicketStoreContractTest, APlayersLastRowInABatchWins) {
  absl::StatusOr<Admitted> admitted =
      tickets().Admit({Row("p", "r1"), Row("q", "r1"), Row("p", "r2")});
  ASSERT_TRUE(admitted.ok()) << admitted.status();
  ASSERT_EQ(admitted->outcomes.size(), 3u);
  EXPECT_EQ(admitted->outcomes[0].ticket_id, "p-r1");
  EXPECT_EQ(admitted->outcomes[1].ticket_id, "q-r1");
  EXPECT_EQ(admitted->outcomes[2].ticket_id, "p-r2");
  ASSERT_EQ(admitted->superseded.size(), 1u);
  EXPECT_EQ(admitted->superseded[0].ticket_id, "p-r1");
  EXPECT_EQ(StatusOf("p-r1"), "");  // never queued
  EXPECT_EQ(StatusOf("p-r2"), "waiting");
}

TEST_P(TicketStoreContractTest, CancelEndsWaitingTicketsOnly) {
  Admit({Row("p", "r1", 100, "hold-p"), Row("q", "r1")});
  stores_->Claim("q-r1");
  absl::StatusOr<std::vector<TicketRow>> cancelled =
      tickets().Cancel({"p-r1", "q-r1", "nobody"});
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  ASSERT_EQ(cancelled->size(), 1u);
  EXPECT_EQ((*cancelled)[0].ticket_id, "p-r1");
  EXPECT_EQ((*cancelled)[0].hold_id, "hold-p");
  EXPECT_EQ((*cancelled)[0].status, "cancelled");
  EXPECT_EQ(StatusOf("q-r1"), "placing");
  cancelled = tickets().Cancel({"p-r1"});
  ASSERT_TRUE(cancelled.ok());
  EXPECT_TRUE(cancelled->empty());
}

TEST_P(TicketStoreContractTest, AWaitingTicketCarriesAnotherHoldOfItsStake) {
  Admit({Row("p", "r1", 100, "hold-1"), Row("q", "r1")});
  EXPECT_FALSE(tickets().CarryHold("p-r1", "hold-2", 10).value());  // another stake
  EXPECT_TRUE(tickets().CarryHold("p-r1", "hold-2", 100).value());
  absl::StatusOr<std::vector<TicketRow>> held = tickets().HeldTicketsOf({"p", "q"});
  ASSERT_TRUE(held.ok() && held->size() == 1u);
  EXPECT_EQ((*held)[0].hold_id, "hold-2");
  stores_->Claim("p-r1");
  EXPECT_FALSE(tickets().CarryHold("p-r1", "hold-3", 100).value());  // being placed
  EXPECT_EQ(tickets().HeldTicketsOf({"p"}).value().size(), 1u);       // placing is live
}

TEST_P(TicketStoreContractTest, OnlyAWaitingTicketIsSupersededAlone) {
  Admit({Row("p", "r1"), Row("q", "r1")});
  stores_->Claim("q-r1");
  EXPECT_TRUE(tickets().SupersedeWaiting("p-r1").value());
  EXPECT_FALSE(tickets().SupersedeWaiting("p-r1").value());
  EXPECT_FALSE(tickets().SupersedeWaiting("q-r1").value());
  EXPECT_EQ(StatusOf("p-r1"), "superseded");
  EXPECT_EQ(StatusOf("q-r1"), "placing");
}

TEST_P(TicketStoreContractTest, LiveSeatsAreReadUntilTheirGameIsFinished) {
  Admit({Row("p", "r1", 100, "hold-p"), Row("q", "r1")});
  const absl::Time earlier = absl::Now() - absl::Minutes(5);
  stores_->Seat(SeatOf("old", "p", "p-r1", 100, earlier));
  AssignmentRow bot_seat = SeatOf("new", "p", "", 0);
  bot_seat.seat = 1;
  stores_->Seat(bot_seat);
  stores_->Seat(SeatOf("new", "q", "q-r1", 0));
  absl::StatusOr<std::vector<AssignmentRow>> live = tickets().LiveAssignments("p");
  ASSERT_TRUE(live.ok() && live->size() == 2u);
  EXPECT_EQ((*live)[0].table_id, "new");  // newest first
  EXPECT_EQ(tickets().LiveAssignmentsOf({"p", "q"}).value().size(), 3u);
  absl::StatusOr<std::vector<AssignmentRow>> staked = tickets().LiveStakedAssignments();
  ASSERT_TRUE(staked.ok() && staked->size() == 1u);
  EXPECT_EQ((*staked)[0].ticket_id, "p-r1");
  EXPECT_EQ((*staked)[0].stake, 100);
  EXPECT_EQ(StatusOf("p-r1"), "matched");
  ASSERT_TRUE(tickets().MarkFinished("old").ok());
  EXPECT_TRUE(tickets().LiveStakedAssignments().value().empty());
  EXPECT_EQ(tickets().LiveAssignments("p").value().size(), 1u);
  // Finished or not, a ticket's seat is found by its ticket.
  EXPECT_EQ(tickets().AssignmentsOfTickets({"p-r1", "q-r1"}).value().size(), 2u);
}

TEST_P(TicketStoreContractTest, APartyHasTwoMembersAtMostAndAPlayerOnePartyAtMost) {
  const absl::Time expires = absl::Now() + absl::Minutes(30);
  ASSERT_TRUE(tickets().CreateParty({"party-1", "code-1", {"a"}, expires}).ok());
  EXPECT_TRUE(absl::IsNotFound(tickets().JoinParty("no-code", "b").status()));
  absl::StatusOr<PartyRow> joined = tickets().JoinParty("code-1", "b");
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->members, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(tickets().JoinParty("code-1", "b").ok());  // joined already
  EXPECT_TRUE(absl::IsFailedPrecondition(tickets().JoinParty("code-1", "c").status()));
  absl::Status again = tickets().CreateParty({"party-2", "code-2", {"b"}, expires});
  EXPECT_TRUE(absl::IsFailedPrecondition(again)) << again;
  EXPECT_NE(again.message().find("party-1"), absl::string_view::npos) << again;
  EXPECT_EQ(tickets().Party("party-1").value().members.size(), 2u);
  EXPECT_TRUE(absl::IsPermissionDenied(tickets().LeaveParty("party-1", "c")));
  ASSERT_TRUE(tickets().LeaveParty("party-1", "a").ok());
  ASSERT_TRUE(tickets().LeaveParty("party-1", "b").ok());
  EXPECT_TRUE(absl::IsNotFound(tickets().Party("party-1").status()));  // empty: gone
  EXPECT_TRUE(absl::IsNotFound(tickets().LeaveParty("party-1", "a")));
}

TEST_P(TicketStoreContractTest, AnExpiredPartyCannotBeJoinedOrQueued) {
  ASSERT_TRUE(
      tickets().CreateParty({"party-1", "code-1", {"a"}, absl::Now() - absl::Seconds(1)}).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(tickets().Party("party-1").status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(tickets().JoinParty("code-1", "b").status()));
  // An expired party holds nobody: its member may create another.
  EXPECT_TRUE(
      tickets().CreateParty({"party-2", "code-2", {"a"}, absl::Now() + absl::Minutes(1)}).ok());
}

TEST_P(TicketStoreContractTest, ABotAccountIsFoundByItsKeyUntilRevoked) {
  const BotAccount bot{
      .bot_id = "bot-1", .name = "Trixie", .owner = "o", .modes = {"m"}, .level = "strong"};
  ASSERT_TRUE(tickets().RegisterBot(bot, "hash-1").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(
      tickets().RegisterBot({.bot_id = "bot-2", .name = "Trixie"}, "hash-2")));
  absl::StatusOr<BotAccount> found = tickets().BotByKeyHash("hash-1");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->bot_id, "bot-1");
  EXPECT_EQ(found->modes, (std::vector<std::string>{"m"}));
  absl::StatusOr<BotAccount> rotated = tickets().SetBotKey("bot-1", "hash-3");
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->name, "Trixie");
  EXPECT_EQ(rotated->level, "strong");
  EXPECT_TRUE(absl::IsNotFound(tickets().BotByKeyHash("hash-1").status()));
  EXPECT_TRUE(tickets().BotByKeyHash("hash-3").ok());
  EXPECT_TRUE(absl::IsNotFound(tickets().SetBotKey("bot-9", "hash").status()));
  ASSERT_TRUE(tickets().RevokeBot("bot-1").ok());
  EXPECT_TRUE(absl::IsNotFound(tickets().BotByKeyHash("hash-3").status()));
  EXPECT_TRUE(absl::IsNotFound(tickets().SetBotKey("bot-1", "hash-4").status()));
  EXPECT_TRUE(absl::IsNotFound(tickets().RevokeBot("bot-9")));
}

TEST_P(TicketStoreContractTest, ABotAccountKeepsItsLevel) {
  ASSERT_TRUE(tickets()
                  .RegisterBot({.bot_id = "bot-1", .name = "Ace", .modes = {"m"},
                                .level = "expert"},
                               "hash-1")
                  .ok());
  ASSERT_TRUE(tickets().RegisterBot({.bot_id = "bot-2", .name = "Deuce", .modes = {"m"}},
                                    "hash-2")
                  .ok());
  absl::StatusOr<BotAccount> expert = tickets().BotByKeyHash("hash-1");
  ASSERT_TRUE(expert.ok()) << expert.status();
  EXPECT_EQ(expert->level, "expert");
  absl::StatusOr<BotAccount> unspecified = tickets().BotByKeyHash("hash-2");
  ASSERT_TRUE(unspecified.ok()) << unspecified.status();
  EXPECT_EQ(unspecified->level, "");
}

INSTANTIATE_TEST_SUITE_P(Stores, TicketStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::matchmaking
