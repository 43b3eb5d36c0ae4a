// The ledger's rules on the in-memory store (testing/memory_ledger_store.h):
// credits and debits, their replays and ceilings, holds held, replaced and
// released; every scenario ends with the books balanced. The store's part is
// checked on PostgreSQL too (store/ledger_store_contract_test.cc).
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/ratings/ledger.h"
#include "services/ratings/testing/memory_ledger_store.h"

namespace trix::ratings {
namespace {

using absl::StatusCode;

class LedgerMemoryTest : public ::testing::Test {
 protected:
  void Credit(const std::string& player, int64_t amount) {
    ASSERT_TRUE(ledger_.Move(EntryKind::kCredit, absl::StrCat("credit-", ++credits_), player,
                             amount, "test credit")
                    .ok());
  }
  int64_t Available(const std::string& p) {
    absl::StatusOr<BalanceInfo> b = ledger_.GetBalance(p);
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? b->available() : -1;
  }
  int64_t BalanceOf(const std::string& p) {
    absl::StatusOr<BalanceInfo> b = ledger_.GetBalance(p);
    return b.ok() ? b->balance : -1;
  }
  HoldInfo AttachedHold(const std::string& request, const std::string& player, int64_t amount,
                        const std::string& table, int seat) {
    absl::StatusOr<HoldInfo> h = ledger_.HoldStake(request, player, amount);
    EXPECT_TRUE(h.ok()) << h.status();
    absl::StatusOr<HoldInfo> a = ledger_.AttachHold(h->hold_id, table, seat);
    EXPECT_TRUE(a.ok()) << a.status();
    return *a;
  }
  // The books balance: every entry sums to zero, each account's balance is the
  // sum of its lines, a player's held the sum of their open holds, and the
  // balances together are zero.
  void CheckBooks() {
    const MemoryLedgerData data = store_.Data();
    std::map<std::string, int64_t> lines, held;
    for (const MemoryEntry& e : data.entries) {
      int64_t sum = 0;
      for (const auto& [id, line] : e.lines) {
        sum += line.amount;
        lines[id] += line.amount;
      }
      EXPECT_EQ(sum, 0);
    }
    for (const auto& [id, h] : data.holds) {
      const bool open = h.hold.state == HoldState::kHeld || h.hold.state == HoldState::kAttached;
      if (open) held[PlayerAccount(h.hold.player_id)] += h.hold.amount;
    }
    int64_t total = 0;
    for (const auto& [id, account] : data.accounts) {
      EXPECT_EQ(account.balance, lines[id]) << id;
      if (account.kind == "player") {
        EXPECT_EQ(account.held, held[id]) << id;
      }
      total += account.balance;
    }
    EXPECT_EQ(total, 0);
  }

  MemoryLedgerStore store_;
  Ledger ledger_{&store_};
  int credits_ = 0;
};

TEST_F(LedgerMemoryTest, CreditsAndDebitsAreIdempotentByRequestId) {
  absl::StatusOr<Transfer> first = ledger_.Move(EntryKind::kCredit, "r1", "p", 500, "purchase");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->balance.balance, 500);
  absl::StatusOr<Transfer> again = ledger_.Move(EntryKind::kCredit, "r1", "p", 500, "purchase");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->entry_id, first->entry_id);
  EXPECT_EQ(BalanceOf("p"), 500);
  EXPECT_EQ(ledger_.Move(EntryKind::kCredit, "r1", "p", 501, "purchase").status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_.Move(EntryKind::kDebit, "r2", "p", 501, "").status().code(),
            StatusCode::kFailedPrecondition);
  absl::StatusOr<Transfer> debit = ledger_.Move(EntryKind::kDebit, "r3", "p", 200, "refund");
  ASSERT_TRUE(debit.ok()) << debit.status();
  EXPECT_EQ(debit->balance.balance, 300);
  EXPECT_EQ(ledger_.Move(EntryKind::kDebit, "r4", "nobody", 1, "").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ledger_.GetBalance("nobody").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger_.Move(EntryKind::kCredit, "r5", "p", 0, "").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger_.Move(EntryKind::kCredit, "", "p", 5, "").status().code(),
            StatusCode::kInvalidArgument);
  CheckBooks();
}

TEST_F(LedgerMemoryTest, HoldsReserveMoneyUntilReleased) {
  Credit("p", 300);
  absl::StatusOr<HoldInfo> h = ledger_.HoldStake("ticket-1", "p", 200);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->state, HoldState::kHeld);
  EXPECT_EQ(Available("p"), 100);
  EXPECT_EQ(BalanceOf("p"), 300);
  EXPECT_EQ(ledger_.HoldStake("ticket-2", "p", 101).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_.Move(EntryKind::kDebit, "d1", "p", 101, "").status().code(),
            StatusCode::kFailedPrecondition);
  absl::StatusOr<HoldInfo> same = ledger_.HoldStake("ticket-1", "p", 200);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->hold_id, h->hold_id);
  EXPECT_EQ(ledger_.HoldStake("ticket-1", "p", 201).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(Available("p"), 100);

  absl::StatusOr<HoldInfo> released = ledger_.ReleaseHold(h->hold_id);
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(released->state, HoldState::kReleased);
  EXPECT_EQ(Available("p"), 300);
  EXPECT_TRUE(ledger_.ReleaseHold(h->hold_id).ok());  // a no-op
  EXPECT_EQ(Available("p"), 300);
  EXPECT_EQ(ledger_.AttachHold(h->hold_id, "t1", 0).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_.ReleaseHold("no-such-hold").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger_.HoldStake("ticket-3", "nobody", 1).status().code(), StatusCode::kNotFound);
  CheckBooks();
}

// A player whose balance covers one stake moves their waiting ticket's hold to
// another stake: the old hold is released in the same transaction.
TEST_F(LedgerMemoryTest, AHoldReplacesAnotherOfTheSamePlayerInOneStep) {
  Credit("p", 100);
  Credit("q", 100);
  const std::string at100 = ledger_.HoldStake("ticket-1", "p", 100)->hold_id;
  EXPECT_EQ(ledger_.HoldStake("ticket-2", "p", 50).status().code(),
            StatusCode::kFailedPrecondition);  // both at once: not covered
  absl::StatusOr<HoldInfo> at50 = ledger_.HoldStake("ticket-2", "p", 50, at100);
  ASSERT_TRUE(at50.ok()) << at50.status();
  EXPECT_EQ(at50->state, HoldState::kHeld);
  EXPECT_EQ(Available("p"), 50);
  EXPECT_EQ(ledger_.KeepHold(at100).status().code(), StatusCode::kFailedPrecondition);
  // Repeated, it answers the same hold; replacing a released hold passes it over.
  EXPECT_EQ(ledger_.HoldStake("ticket-2", "p", 50, at100)->hold_id, at50->hold_id);
  absl::StatusOr<HoldInfo> back = ledger_.HoldStake("ticket-3", "p", 100, at50->hold_id);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Available("p"), 0);
  // Refused, changing nothing: more than the balance, another player's hold, an
  // attached hold, no such hold.
  EXPECT_EQ(ledger_.HoldStake("ticket-4", "p", 101, back->hold_id).status().code(),
            StatusCode::kFailedPrecondition);
  const std::string of_q = ledger_.HoldStake("ticket-5", "q", 10)->hold_id;
  EXPECT_EQ(ledger_.HoldStake("ticket-6", "p", 10, of_q).status().code(),
            StatusCode::kInvalidArgument);
  const HoldInfo playing = AttachedHold("ticket-7", "q", 20, "g1", 0);
  EXPECT_EQ(ledger_.HoldStake("ticket-8", "q", 20, playing.hold_id).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger_.HoldStake("ticket-9", "q", 5, "no-such-hold").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ledger_.KeepHold(back->hold_id)->state, HoldState::kHeld);
  EXPECT_EQ(Available("p"), 0);
  EXPECT_EQ(Available("q"), 70);
  CheckBooks();
}

TEST_F(LedgerMemoryTest, AReplayMustMatchEveryFieldOfTheTransfer) {
  ASSERT_TRUE(ledger_.Move(EntryKind::kCredit, "r1", "bob", 100, "5|x").ok());
  // The same fields joined with "|" would read the same; the fields differ.
  absl::StatusOr<Transfer> clash = ledger_.Move(EntryKind::kCredit, "r1", "bob|100", 5, "x");
  EXPECT_EQ(clash.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_.GetBalance("bob|100").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger_.Move(EntryKind::kDebit, "r1", "bob", 100, "5|x").status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ledger_.Move(EntryKind::kCredit, "r1", "bob", 100, "5|y").status().code(),
            StatusCode::kAlreadyExists);
  absl::StatusOr<Transfer> replay = ledger_.Move(EntryKind::kCredit, "r1", "bob", 100, "5|x");
  ASSERT_TRUE(replay.ok()) << replay.status();
  EXPECT_EQ(replay->balance.balance, 100);
  CheckBooks();
}

TEST_F(LedgerMemoryTest, TransfersAndBalancesHaveCeilings) {
  Ledger ledger(&store_, {.max_transfer = 1000, .max_balance = 1500});
  absl::StatusOr<Transfer> big = ledger.Move(EntryKind::kCredit, "r1", "p", 1001, "");
  EXPECT_EQ(big.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(big.status().message().find("largest transfer, 1000"), std::string::npos);
  EXPECT_EQ(ledger.Move(EntryKind::kDebit, "r2", "p", 1001, "").status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(ledger.Move(EntryKind::kCredit, "r3", "p", 1000, "").ok());
  absl::StatusOr<Transfer> over = ledger.Move(EntryKind::kCredit, "r4", "p", 501, "");
  EXPECT_EQ(over.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(over.status().message().find("above the largest balance, 1500"), std::string::npos);
  EXPECT_TRUE(ledger.Move(EntryKind::kCredit, "r5", "p", 500, "").ok());
  EXPECT_EQ(BalanceOf("p"), 1500);
  // The defaults refuse what once overflowed the single world account.
  EXPECT_EQ(ledger_.Move(EntryKind::kCredit, "r6", "q", 9'000'000'000'000'000'000, "")
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  CheckBooks();
}

TEST_F(LedgerMemoryTest, CreditsMoveThroughManyWorldAccounts) {
  for (int i = 0; i < 40; ++i) Credit(absl::StrCat("p", i), 10);
  const MemoryLedgerData data = store_.Data();
  std::set<std::string> worlds;
  int64_t world_balance = 0;
  for (const auto& [id, account] : data.accounts) {
    if (account.kind != "world") continue;
    world_balance += account.balance;
    if (account.balance != 0) worlds.insert(id);
  }
  EXPECT_GE(worlds.size(), 8u);
  EXPECT_EQ(worlds.count("world"), 0u);
  EXPECT_EQ(world_balance, -400);
  // A player's credits always name the same one.
  Credit("p0", 5);
  std::set<std::string> of_p0;
  for (const MemoryEntry& e : store_.Data().entries) {
    if (!e.lines.count(PlayerAccount("p0"))) continue;
    for (const auto& [id, line] : e.lines) {
      if (id != PlayerAccount("p0")) of_p0.insert(id);
    }
  }
  EXPECT_EQ(of_p0.size(), 1u);
  CheckBooks();
}

}  // namespace
}  // namespace trix::ratings
