// The ledger on a real database: credits and debits, holds, and the settlement of
// staked games from the outbox; every scenario ends with the books balanced.
#include "services/ratings/ledger.h"

#include <pqxx/pqxx>
#include <random>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/ratings/testing/ratings_db_test.h"

namespace trix::ratings {
namespace {

using absl::StatusCode;

class LedgerTest : public RatingsDbTest {
 protected:
  int64_t Available(const std::string& p) {
    absl::StatusOr<BalanceInfo> b = ledger_->GetBalance(p);
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? b->available() : -1;
  }
  int64_t BalanceOf(const std::string& p) {
    absl::StatusOr<BalanceInfo> b = ledger_->GetBalance(p);
    return b.ok() ? b->balance : -1;
  }
  HoldInfo AttachedHold(const std::string& request, const std::string& player, int64_t amount,
                        const std::string& table, int seat) {
    absl::StatusOr<HoldInfo> h = ledger_->HoldStake(request, player, amount);
    EXPECT_TRUE(h.ok()) << h.status();
    absl::StatusOr<HoldInfo> a = ledger_->AttachHold(h->hold_id, table, seat);
    EXPECT_TRUE(a.ok()) << a.status();
    return *a;
  }
  std::string Settlement(const std::string& game) {
    return Sql("SELECT settlement FROM ratings.applied_games WHERE game_id = '" + game + "'")[0][0]
        .as<std::string>();
  }
  // Four stakers of 100 at a solo table, placed 1..4: 60/30/10/0 of the pot.
  OutboxGame StakedSolo(const std::string& id) {
    OutboxGame g = OutboxGame::Solo(id, {"a", "b", "c", "d"}, {1, 2, 3, 4});
    const int64_t payouts[] = {240, 120, 40, 0};
    for (int s = 0; s < 4; ++s) {
      g.seats[s].stake = 100;
      g.seats[s].payout = payouts[s];
    }
    return g;
  }
};

TEST_F(LedgerTest, CreditsAndDebitsAreIdempotentByRequestId) {
  absl::StatusOr<Transfer> first = ledger_->Move(EntryKind::kCredit, "r1", "p", 500, "purchase");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->balance.balance, 500);
  absl::StatusOr<Transfer> again = ledger_->Move(EntryKind::kCredit, "r1", "p", 500, "purchase");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->entry_id, first->entry_id);
  EXPECT_EQ(BalanceOf("p"), 500);
  EXPECT_EQ(ledger_->Move(EntryKind::kCredit, "r1", "p", 501, "purchase").status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_->Move(EntryKind::kDebit, "r2", "p", 501, "").status().code(),
            StatusCode::kFailedPrecondition);
  absl::StatusOr<Transfer> debit = ledger_->Move(EntryKind::kDebit, "r3", "p", 200, "refund");
  ASSERT_TRUE(debit.ok()) << debit.status();
  EXPECT_EQ(debit->balance.balance, 300);
  EXPECT_EQ(ledger_->Move(EntryKind::kDebit, "r4", "nobody", 1, "").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ledger_->GetBalance("nobody").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger_->Move(EntryKind::kCredit, "r5", "p", 0, "").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger_->Move(EntryKind::kCredit, "", "p", 5, "").status().code(),
            StatusCode::kInvalidArgument);
  CheckLedger();
}

TEST_F(LedgerTest, HoldsReserveMoneyUntilReleased) {
  Credit("p", 300);
  absl::StatusOr<HoldInfo> h = ledger_->HoldStake("ticket-1", "p", 200);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->state, HoldState::kHeld);
  EXPECT_EQ(Available("p"), 100);
  EXPECT_EQ(BalanceOf("p"), 300);
  EXPECT_EQ(ledger_->HoldStake("ticket-2", "p", 101).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->Move(EntryKind::kDebit, "d1", "p", 101, "").status().code(),
            StatusCode::kFailedPrecondition);
  absl::StatusOr<HoldInfo> same = ledger_->HoldStake("ticket-1", "p", 200);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->hold_id, h->hold_id);
  EXPECT_EQ(ledger_->HoldStake("ticket-1", "p", 201).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(Available("p"), 100);

  absl::StatusOr<HoldInfo> released = ledger_->ReleaseHold(h->hold_id);
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(released->state, HoldState::kReleased);
  EXPECT_EQ(Available("p"), 300);
  EXPECT_TRUE(ledger_->ReleaseHold(h->hold_id).ok());  // a no-op
  EXPECT_EQ(Available("p"), 300);
  EXPECT_EQ(ledger_->AttachHold(h->hold_id, "t1", 0).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->ReleaseHold("no-such-hold").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger_->HoldStake("ticket-3", "nobody", 1).status().code(), StatusCode::kNotFound);
  CheckLedger();
}

TEST_F(LedgerTest, AttachedHoldsStayUntilTheResult) {
  Credit("p", 300);
  Credit("q", 300);
  const HoldInfo h = AttachedHold("t-p", "p", 100, "t1", 0);
  EXPECT_EQ(h.state, HoldState::kAttached);
  EXPECT_TRUE(ledger_->AttachHold(h.hold_id, "t1", 0).ok());  // the same: a no-op
  EXPECT_EQ(ledger_->AttachHold(h.hold_id, "t1", 1).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->ReleaseHold(h.hold_id).status().code(), StatusCode::kFailedPrecondition);
  absl::StatusOr<HoldInfo> other = ledger_->HoldStake("t-q", "q", 100);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(ledger_->AttachHold(other->hold_id, "t1", 0).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->AttachHold(other->hold_id, "t1", 4).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Available("p"), 200);
  CheckLedger();
}

TEST_F(LedgerTest, StakedGameSettlesFromAttachedHolds) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  for (int s = 0; s < 4; ++s) {
    AttachedHold(absl::StrCat("k", s), std::string(1, 'a' + s), 100, "g1", s);
  }
  Write({StakedSolo("g1")});
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(Settlement("g1"), "settled");
  EXPECT_EQ(BalanceOf("a"), 1140);
  EXPECT_EQ(BalanceOf("b"), 1020);
  EXPECT_EQ(BalanceOf("c"), 940);
  EXPECT_EQ(BalanceOf("d"), 900);
  EXPECT_EQ(Available("d"), 900);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.holds WHERE state = 4")[0][0].as<int>(), 4);
  absl::StatusOr<StatementPage> statement = ledger_->GetStatement("a", 2, "");
  ASSERT_TRUE(statement.ok()) << statement.status();
  ASSERT_EQ(statement->lines.size(), 2u);
  EXPECT_EQ(statement->lines[0].kind, EntryKind::kPayout);
  EXPECT_EQ(statement->lines[0].amount, 240);
  EXPECT_EQ(statement->lines[0].balance_after, 1140);
  EXPECT_EQ(statement->lines[0].game_id, "g1");
  EXPECT_EQ(statement->lines[1].kind, EntryKind::kStake);
  EXPECT_EQ(statement->lines[1].amount, -100);
  absl::StatusOr<StatementPage> rest = ledger_->GetStatement("a", 2, statement->next_page_token);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->lines.size(), 1u);
  EXPECT_EQ(rest->lines[0].kind, EntryKind::kCredit);
  EXPECT_TRUE(rest->next_page_token.empty());
  CheckLedger();

  // The whole outbox again: nothing moves twice.
  Sql("UPDATE game_results SET consumed_at = NULL");
  EXPECT_EQ(Drain(), 0);
  EXPECT_EQ(BalanceOf("a"), 1140);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.entries WHERE game_id = 'g1'")[0][0].as<int>(), 2);
  CheckLedger();
}

TEST_F(LedgerTest, StakeWithoutHoldComesFromTheAvailableBalance) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 100);
  for (int s = 0; s < 3; ++s) {
    AttachedHold(absl::StrCat("k", s), std::string(1, 'a' + s), 100, "g1", s);
  }
  Write({StakedSolo("g1")});  // d's stake has no hold
  Drain();
  EXPECT_EQ(Settlement("g1"), "settled");
  EXPECT_EQ(BalanceOf("d"), 0);
  EXPECT_EQ(BalanceOf("a"), 240);
  CheckLedger();
}

TEST_F(LedgerTest, StakeThatCannotBeCoveredLeavesTheGameUnsettled) {
  for (const char* p : {"a", "b", "c"}) Credit(p, 100);
  Credit("d", 99);
  for (int s = 0; s < 3; ++s) {
    AttachedHold(absl::StrCat("k", s), std::string(1, 'a' + s), 100, "g1", s);
  }
  Write({StakedSolo("g1")});
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(Settlement("g1"), "unsettled");
  EXPECT_EQ(BalanceOf("d"), 99);
  EXPECT_EQ(BalanceOf("a"), 100);
  EXPECT_EQ(Available("a"), 0);  // the hold stays attached for an operator
  EXPECT_EQ(metrics_->games_unsettled.Value(), 1);
  // The game is still rated.
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history WHERE game_id = 'g1'")[0][0]
                .as<int>(),
            4);
  CheckLedger();
}

TEST_F(LedgerTest, NonIntegralPayoutLeavesTheGameUnsettledButRated) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 100);
  OutboxGame g = StakedSolo("g1");
  g.seats[0].payout = 240.5;
  g.seats[1].payout = 119.5;
  Write({g});
  Drain();
  EXPECT_EQ(Settlement("g1"), "unsettled");
  EXPECT_NE(Sql("SELECT note FROM ratings.applied_games")[0][0].as<std::string>().find("240.5"),
            std::string::npos);
  EXPECT_TRUE(Sql("SELECT rated FROM ratings.applied_games")[0][0].as<bool>());
  EXPECT_EQ(BalanceOf("a"), 100);
  CheckLedger();
}

TEST_F(LedgerTest, PayoutsThatDoNotSumToThePotMoveNothing) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 100);
  OutboxGame g = StakedSolo("g1");
  g.seats[0].payout = 241;
  Write({g});
  Drain();
  EXPECT_EQ(Settlement("g1"), "unsettled");
  CheckLedger();
}

TEST_F(LedgerTest, PartnerGameWithBotsPaysTheWinningStakers) {
  Credit("a", 100);
  Credit("b", 100);
  OutboxGame g = OutboxGame::Partner("g1", {"a", "b", "bot1", "bot2"}, 1);
  g.seats[2].bot = g.seats[3].bot = true;
  g.seats[0].stake = 50;
  g.seats[1].stake = 50;
  g.seats[1].payout = 100;
  AttachedHold("k0", "a", 50, "g1", 0);
  AttachedHold("k1", "b", 50, "g1", 1);
  Write({g});
  Drain();
  EXPECT_EQ(Settlement("g1"), "settled");
  EXPECT_EQ(BalanceOf("a"), 50);
  EXPECT_EQ(BalanceOf("b"), 150);
  EXPECT_EQ(ledger_->GetBalance("bot1").status().code(), StatusCode::kNotFound);
  CheckLedger();
}

// Random credits, debits, holds, releases, attaches and staked games: the books
// balance after every step and no balance goes negative.
TEST_F(LedgerTest, RandomScenariosKeepTheBooksBalanced) {
  std::mt19937_64 rng(2024);
  const std::vector<std::string> players = {"p0", "p1", "p2", "p3", "p4", "p5"};
  for (const std::string& p : players) Credit(p, 200);
  std::vector<std::string> held;
  for (int step = 0; step < 60; ++step) {
    const std::string& p = players[rng() % players.size()];
    const int64_t amount = 1 + rng() % 150;
    switch (rng() % 5) {
      case 0:
        (void)ledger_->Move(EntryKind::kCredit, absl::StrCat("c", step), p, amount, "");
        break;
      case 1:
        (void)ledger_->Move(EntryKind::kDebit, absl::StrCat("d", step), p, amount, "");
        break;
      case 2: {
        absl::StatusOr<HoldInfo> h = ledger_->HoldStake(absl::StrCat("h", step), p, amount);
        if (h.ok()) held.push_back(h->hold_id);
        break;
      }
      case 3:
        if (!held.empty()) (void)ledger_->ReleaseHold(held[rng() % held.size()]);
        break;
      default: {
        // A staked solo game of four random distinct players, some with holds.
        std::vector<std::string> seats = players;
        std::shuffle(seats.begin(), seats.end(), rng);
        const std::string id = absl::StrCat("g", step);
        OutboxGame g = OutboxGame::Solo(id, {seats[0], seats[1], seats[2], seats[3]}, {1, 2, 3, 4});
        const int64_t stake = 1 + rng() % 80;
        for (int s = 0; s < 4; ++s) {
          g.seats[s].stake = stake;
          if (rng() % 2) {
            absl::StatusOr<HoldInfo> h =
                ledger_->HoldStake(absl::StrCat(id, "-", s), seats[s], stake);
            if (h.ok()) (void)ledger_->AttachHold(h->hold_id, id, s);
          }
        }
        const int64_t pot = 4 * stake;
        const int64_t first = pot * 6 / 10, second = pot * 3 / 10;
        g.seats[0].payout = first;
        g.seats[1].payout = second;
        g.seats[2].payout = pot - first - second;
        Write({g});
        Drain();
      }
    }
    CheckLedger();
    if (HasFailure()) FAIL() << "after step " << step;
  }
}

}  // namespace
}  // namespace trix::ratings
