// The ledger on a real database: holds attached to tables, the settlement of
// staked games from the outbox, the sweep, concurrent attaches and database
// errors (ledger_memory_test.cc: the rules of transfers and holds on the
// in-memory store); every scenario ends with the books balanced.
#include "services/ratings/ledger.h"

#include <atomic>
#include <pqxx/pqxx>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/ratings/hold_sweeper.h"
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
  // a, b, c and d each hold 100, attached to their seat 0..3 of table g1.
  void HoldStakesAtG1() {
    for (int s = 0; s < 4; ++s) {
      AttachedHold(absl::StrCat("k", s), std::string(1, 'a' + s), 100, "g1", s);
    }
  }
  std::string Settlement(const std::string& game) {
    return Sql("SELECT settlement FROM ratings.applied_games WHERE game_id = '" + game + "'")[0][0]
        .as<std::string>();
  }
};

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
  HoldStakesAtG1();
  Write({OutboxGame::StakedSolo("g1")});
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

// A stake of a whole balance (and of more than half of it): the hold leaves
// `held` before the stake leaves `balance`, so held <= balance holds throughout
// and the game after it is applied too.
TEST_F(LedgerTest, AStakeOfAWholeBalanceSettles) {
  Credit("a", 100);
  Credit("b", 100);
  Credit("c", 150);
  Credit("d", 1000);
  HoldStakesAtG1();
  Write({OutboxGame::StakedSolo("g1"),
         OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {4, 3, 2, 1})});
  EXPECT_EQ(Drain(), 2);
  EXPECT_EQ(Settlement("g1"), "settled");
  EXPECT_EQ(Settlement("g2"), "unstaked");
  EXPECT_EQ(BalanceOf("a"), 240);
  EXPECT_EQ(BalanceOf("b"), 120);
  EXPECT_EQ(BalanceOf("c"), 90);
  EXPECT_EQ(BalanceOf("d"), 900);
  EXPECT_EQ(Available("b"), 120);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history WHERE game_id = 'g2'")[0][0].as<int>(),
            4);
  CheckLedger();
}

// A settlement the database refuses (here a trigger on the journal) is set aside:
// the game is rated, the 100 games after it are applied in the same drain, its
// holds stay attached past their TTL, and once the cause is gone a retry settles it.
TEST_F(LedgerTest, ARefusedSettlementIsSetAsideWhileTheGamesAfterItGoOn) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  HoldStakesAtG1();
  Sql("CREATE FUNCTION refuse_g1() RETURNS trigger LANGUAGE plpgsql AS "
      "$$ BEGIN RAISE EXCEPTION 'the journal refuses g1'; END $$");
  Sql("CREATE TRIGGER refuse_g1 BEFORE INSERT ON ratings.entries FOR EACH ROW "
      "WHEN (NEW.game_id = 'g1') EXECUTE FUNCTION refuse_g1()");
  std::vector<OutboxGame> games = {OutboxGame::StakedSolo("g1")};
  for (int i = 2; i <= 101; ++i) {
    games.push_back(OutboxGame::Solo(absl::StrCat("g", i), {"a", "b", "c", "d"}, {1, 2, 3, 4}));
  }
  Write(games);
  EXPECT_EQ(Drain(), 101);
  EXPECT_EQ(Settlement("g1"), "set_aside");
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), 404);
  EXPECT_EQ(metrics_->settlements_set_aside.Value(), 1);
  EXPECT_EQ(BalanceOf("a"), 1000);
  EXPECT_EQ(Available("a"), 900);  // its hold is still attached
  pqxx::result aside = Sql(
      "SELECT attempts, error, resolved IS NULL FROM ratings.set_aside_settlements "
      "WHERE game_id = 'g1'");
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(aside[0][0].as<int>(), 1);
  EXPECT_THAT(aside[0][1].as<std::string>(), ::testing::HasSubstr("the journal refuses g1"));
  EXPECT_TRUE(aside[0][2].as<bool>());

  // Past their TTL, the holds of a set-aside table wait for it.
  Sql("UPDATE ratings.holds SET updated = now() - interval '2 hours'");
  Ledger swept(ledger_store_.get(), {.attached_ttl = absl::Hours(1)});
  EXPECT_EQ(swept.ReleaseExpiredHolds(10).value_or(-1), 0);

  // Still refused: tried again and still set aside; then the cause goes away.
  EXPECT_EQ(consumer_->RetrySetAside(*connection_, absl::ZeroDuration()), 0);
  EXPECT_EQ(Sql("SELECT attempts FROM ratings.set_aside_settlements")[0][0].as<int>(), 2);
  Sql("DROP TRIGGER refuse_g1 ON ratings.entries");
  EXPECT_EQ(consumer_->RetrySetAside(*connection_, absl::Hours(1)), 0);  // tried too lately
  EXPECT_EQ(consumer_->RetrySetAside(*connection_, absl::ZeroDuration()), 1);
  EXPECT_EQ(Settlement("g1"), "settled");
  EXPECT_EQ(BalanceOf("a"), 1140);
  EXPECT_EQ(BalanceOf("d"), 900);
  EXPECT_EQ(Available("a"), 1140);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.set_aside_settlements WHERE resolved IS NULL")[0][0]
                .as<int>(),
            0);
  EXPECT_EQ(consumer_->RetrySetAside(*connection_, absl::ZeroDuration()), 0);
  EXPECT_EQ(metrics_->games_settled.Value(), 1);
  CheckLedger();
}

TEST_F(LedgerTest, AStakeWithoutItsHoldSettlesNothingForThatSeat) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  for (int s = 0; s < 3; ++s) {
    AttachedHold(absl::StrCat("k", s), std::string(1, 'a' + s), 100, "g1", s);
  }
  Write({OutboxGame::StakedSolo("g1")});  // d's stake has no hold
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(Settlement("g1"), "unheld");
  EXPECT_NE(Sql("SELECT note FROM ratings.applied_games")[0][0].as<std::string>().find(
                "seat 3 (d) settled nothing: no hold attached to it"),
            std::string::npos);
  // The pot is a, b and c's 300, split 70/30/0 among three stakers.
  EXPECT_EQ(BalanceOf("a"), 1110);
  EXPECT_EQ(BalanceOf("b"), 990);
  EXPECT_EQ(BalanceOf("c"), 900);
  EXPECT_EQ(BalanceOf("d"), 1000);
  EXPECT_EQ(metrics_->unheld_stakes.Value(), 1);
  EXPECT_EQ(metrics_->games_settled.Value(), 0);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history WHERE game_id = 'g1'")[0][0]
                .as<int>(),
            4);
  CheckLedger();
}

TEST_F(LedgerTest, AStakedGameWithNoHoldsMovesNoMoney) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  Write({OutboxGame::StakedSolo("g1")});
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(Settlement("g1"), "unheld");
  for (const char* p : {"a", "b", "c", "d"}) EXPECT_EQ(BalanceOf(p), 1000) << p;
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.entries WHERE game_id = 'g1'")[0][0].as<int>(), 0);
  EXPECT_EQ(metrics_->unheld_stakes.Value(), 4);
  EXPECT_TRUE(Sql("SELECT rated FROM ratings.applied_games")[0][0].as<bool>());
  CheckLedger();
}

TEST_F(LedgerTest, AHoldOfAnotherAmountOrPlayerIsReleasedNotSettled) {
  for (const char* p : {"a", "b", "c", "d", "x"}) Credit(p, 1000);
  const HoldInfo small = AttachedHold("k0", "a", 50, "g1", 0);     // the stake is 100
  const HoldInfo others = AttachedHold("k1", "x", 100, "g1", 1);   // b's seat
  AttachedHold("k2", "c", 100, "g1", 2);
  AttachedHold("k3", "d", 100, "g1", 3);
  Write({OutboxGame::StakedSolo("g1")});
  Drain();
  EXPECT_EQ(Settlement("g1"), "unheld");
  // c and d are the only stakers: the better placed (c) takes the pot.
  EXPECT_EQ(BalanceOf("a"), 1000);
  EXPECT_EQ(BalanceOf("b"), 1000);
  EXPECT_EQ(BalanceOf("c"), 1100);
  EXPECT_EQ(BalanceOf("d"), 900);
  EXPECT_EQ(Available("a"), 1000);
  EXPECT_EQ(Available("x"), 1000);
  EXPECT_EQ(Sql("SELECT state FROM ratings.holds WHERE hold_id = '" + small.hold_id + "'")[0][0]
                .as<int>(),
            3);
  EXPECT_EQ(Sql("SELECT state FROM ratings.holds WHERE hold_id = '" + others.hold_id + "'")[0][0]
                .as<int>(),
            3);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.holds WHERE state = 4")[0][0].as<int>(), 2);
  CheckLedger();
}

TEST_F(LedgerTest, APartnerPotWithAnUnheldSeatGoesToTheHeldWinners) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 100);
  OutboxGame g = OutboxGame::Partner("g1", {"a", "b", "c", "d"}, 0);
  for (int s = 0; s < 4; ++s) g.seats[s].stake = 50;
  g.seats[0].payout = 100;
  g.seats[2].payout = 100;
  AttachedHold("k0", "a", 50, "g1", 0);
  AttachedHold("k1", "b", 50, "g1", 1);
  AttachedHold("k3", "d", 50, "g1", 3);  // c (seat 2) has none
  Write({g});
  Drain();
  EXPECT_EQ(Settlement("g1"), "unheld");
  EXPECT_EQ(BalanceOf("a"), 200);
  EXPECT_EQ(BalanceOf("b"), 50);
  EXPECT_EQ(BalanceOf("c"), 100);
  EXPECT_EQ(BalanceOf("d"), 50);
  CheckLedger();
}

TEST_F(LedgerTest, AnAttachedHoldIsReleasedOnlyByNamingItsTable) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  std::vector<HoldInfo> holds;
  for (int s = 0; s < 4; ++s) {
    holds.push_back(AttachedHold(absl::StrCat("k", s), std::string(1, 'a' + s), 100, "g1", s));
  }
  const std::string d = holds[3].hold_id;
  EXPECT_EQ(ledger_->ReleaseHold(d).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_->ReleaseHold(d, "g2").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Available("d"), 900);
  absl::StatusOr<HoldInfo> released = ledger_->ReleaseHold(d, "g1");
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(released->state, HoldState::kReleased);
  EXPECT_EQ(Available("d"), 1000);
  EXPECT_TRUE(ledger_->ReleaseHold(d, "g1").ok());  // a no-op
  EXPECT_TRUE(ledger_->ReleaseHold(d).ok());
  EXPECT_EQ(Available("d"), 1000);
  Write({OutboxGame::StakedSolo("g1")});
  Drain();
  EXPECT_EQ(Settlement("g1"), "unheld");
  EXPECT_EQ(BalanceOf("d"), 1000);
  EXPECT_EQ(BalanceOf("a"), 1110);
  EXPECT_EQ(ledger_->ReleaseHold(holds[0].hold_id, "g1").status().code(),
            StatusCode::kFailedPrecondition);  // settled
  CheckLedger();
}

TEST_F(LedgerTest, AVoidedTableReleasesItsHoldsAndMovesNothing) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  HoldStakesAtG1();
  AttachedHold("other", "a", 100, "g2", 0);  // another table's: stays
  OutboxGame voided = OutboxGame::StakedSolo("g1");
  voided.void_reason = "dealer misconfigured";
  Write({voided});
  EXPECT_EQ(Drain(), 1);
  EXPECT_EQ(Settlement("g1"), "voided");
  const pqxx::result applied = Sql("SELECT rated, note FROM ratings.applied_games");
  EXPECT_FALSE(applied[0][0].as<bool>());
  EXPECT_EQ(applied[0][1].as<std::string>(), "dealer misconfigured");
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), 0);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.holds WHERE table_id = 'g1' AND state = 3")[0][0]
                .as<int>(),
            4);
  EXPECT_EQ(Available("a"), 900);
  for (const char* p : {"b", "c", "d"}) EXPECT_EQ(Available(p), 1000) << p;
  EXPECT_EQ(metrics_->games_voided.Value(), 1);
  EXPECT_EQ(metrics_->games_quarantined.Value(), 0);
  // Exactly once: the outbox again changes nothing.
  Sql("UPDATE game_results SET consumed_at = NULL");
  EXPECT_EQ(Drain(), 0);
  EXPECT_EQ(metrics_->games_voided.Value(), 1);
  CheckLedger();
}

TEST_F(LedgerTest, NonIntegralPayoutLeavesTheGameUnsettledButRated) {
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 100);
  OutboxGame g = OutboxGame::StakedSolo("g1");
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
  OutboxGame g = OutboxGame::StakedSolo("g1");
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

// A waiting ticket's hold, kept within its TTL, outlives it; one no longer kept
// is released by the sweep and cannot be kept again.
TEST_F(LedgerTest, AKeptHoldOutlivesItsHeldTtl) {
  Ledger ledger(ledger_store_.get(),
                {.held_ttl = absl::Minutes(1), .attached_ttl = absl::Hours(1)});
  for (const char* p : {"a", "b", "c"}) Credit(p, 1000);
  const std::string kept = ledger.HoldStake("t-a", "a", 100)->hold_id;
  const std::string lapsed = ledger.HoldStake("t-b", "b", 100)->hold_id;
  const HoldInfo playing = AttachedHold("t-c", "c", 100, "g1", 0);
  Sql("UPDATE ratings.holds SET updated = now() - interval '50 seconds'");
  absl::StatusOr<HoldInfo> k = ledger.KeepHold(kept);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->state, HoldState::kHeld);
  absl::StatusOr<HoldInfo> attached = ledger.KeepHold(playing.hold_id);
  ASSERT_TRUE(attached.ok()) << attached.status();
  EXPECT_EQ(attached->state, HoldState::kAttached);
  EXPECT_EQ(attached->table_id, "g1");
  Sql("UPDATE ratings.holds SET updated = updated - interval '20 seconds'");
  HoldSweeper sweeper(&ledger, metrics_.get(), absl::Seconds(30));
  EXPECT_EQ(sweeper.SweepOnce(), 1);
  EXPECT_EQ(Available("a"), 900);
  EXPECT_EQ(Available("b"), 1000);
  EXPECT_EQ(ledger.KeepHold(lapsed).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger.KeepHold("no-such-hold").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger.KeepHold("").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(LedgerTest, HoldsPastTheirTtlAreReleasedOnceBySweep) {
  Ledger ledger(ledger_store_.get(),
                {.held_ttl = absl::Minutes(1), .attached_ttl = absl::Hours(1)});
  for (const char* p : {"a", "b", "c", "d"}) Credit(p, 1000);
  const std::string queued = ledger.HoldStake("t-a", "a", 100)->hold_id;
  const std::string fresh = ledger.HoldStake("t-b", "b", 100)->hold_id;
  const HoldInfo playing = AttachedHold("t-c", "c", 100, "g1", 2);
  const HoldInfo stale = AttachedHold("t-d", "d", 100, "g1", 3);
  Sql("UPDATE ratings.holds SET updated = now() - interval '2 minutes', "
      "created = now() - interval '3 hours' WHERE hold_id = '" + queued + "'");
  Sql("UPDATE ratings.holds SET updated = now() - interval '30 minutes' WHERE hold_id = '" +
      playing.hold_id + "'");
  Sql("UPDATE ratings.holds SET updated = now() - interval '2 hours' WHERE hold_id = '" +
      stale.hold_id + "'");
  absl::StatusOr<OpenHolds> open = ledger.GetOpenHolds();
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ(open->past_ttl, 2);
  EXPECT_GE(open->oldest_seconds, 3 * 3600 - 60);

  // Two replicas sweeping at once release each hold once.
  Ledger other(ledger_store_.get(),
               {.held_ttl = absl::Minutes(1), .attached_ttl = absl::Hours(1)});
  HoldSweeper mine(&ledger, metrics_.get(), absl::Seconds(30));
  HoldSweeper theirs(&other, metrics_.get(), absl::Seconds(30));
  std::atomic<int> released{0};
  std::thread t([&] { released += theirs.SweepOnce(); });
  released += mine.SweepOnce();
  t.join();
  EXPECT_EQ(released.load(), 2);
  EXPECT_EQ(metrics_->holds_expired.Value(), 2);
  EXPECT_EQ(mine.SweepOnce(), 0);
  EXPECT_EQ(metrics_->holds_past_ttl.Value(), 0);
  EXPECT_GT(metrics_->oldest_open_hold_seconds.Value(), 0);
  EXPECT_EQ(Available("a"), 1000);
  EXPECT_EQ(Available("b"), 900);
  EXPECT_EQ(Available("c"), 900);
  EXPECT_EQ(Available("d"), 1000);
  // The table's result then settles nothing for the seat whose hold lapsed.
  OutboxGame g = OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {4, 3, 1, 2});
  g.seats[2].stake = g.seats[3].stake = 100;
  g.seats[2].payout = 200;
  Write({g});
  Drain();
  EXPECT_EQ(Settlement("g1"), "unheld");
  EXPECT_EQ(BalanceOf("c"), 1000);  // the only held staker: its stake back
  EXPECT_EQ(BalanceOf("d"), 1000);
  EXPECT_EQ(Sql("SELECT state FROM ratings.holds WHERE hold_id = '" + fresh + "'")[0][0].as<int>(),
            1);  // within its TTL: still held
  CheckLedger();
}

TEST_F(LedgerTest, ConcurrentAttachesToOneSeatLetOneThrough) {
  std::vector<std::string> holds;
  for (int i = 0; i < 8; ++i) {
    const std::string p = absl::StrCat("p", i);
    Credit(p, 100);
    holds.push_back(ledger_->HoldStake(absl::StrCat("t", i), p, 100)->hold_id);
  }
  std::atomic<int> ok{0}, taken{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      const absl::Status s = ledger_->AttachHold(holds[i], "t1", 0).status();
      if (s.ok()) ++ok;
      if (s.code() == StatusCode::kFailedPrecondition) ++taken;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(taken.load(), 7);
  CheckLedger();
}

TEST_F(LedgerTest, ADatabaseErrorReachesTheCallerAsAnErrorId) {
  Credit("p", 100);
  const std::string hold = ledger_->HoldStake("t", "p", 100)->hold_id;
  Sql("ALTER TABLE ratings.holds ADD CONSTRAINT no_boom CHECK (table_id IS DISTINCT FROM 'boom')");
  const absl::Status s = ledger_->AttachHold(hold, "boom", 0).status();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::StartsWith("attaching a hold: "));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("(database error "));
  EXPECT_EQ(std::string(s.message()).find("no_boom"), std::string::npos);
  EXPECT_EQ(std::string(s.message()).find("holds"), std::string::npos);
  // What the call itself answers passes unchanged.
  EXPECT_EQ(ledger_->AttachHold("nope", "t1", 0).status().message(), "no such hold");
}

}  // namespace
}  // namespace trix::ratings
