// LedgerStore in memory, for tests of the ledger's rules without PostgreSQL; the
// contract test (store/ledger_store_contract_test.cc) runs the same cases on it
// and on PostgresLedgerStore. Transactions run one at a time, each on a copy of
// the data that a successful end puts in place. The schema's checks stand behind
// it as they do on PostgreSQL: no balance but a world account's below zero, held
// within the balance, every entry summing to zero; a transaction that breaks one
// fails and changes nothing.
//
//   MemoryLedgerStore store;
//   Ledger ledger(&store);
//   ledger.Move(EntryKind::kCredit, "req-1", "p1", 500, "");
#ifndef TRIX_SERVICES_RATINGS_TESTING_MEMORY_LEDGER_STORE_H_
#define TRIX_SERVICES_RATINGS_TESTING_MEMORY_LEDGER_STORE_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "services/ratings/store/ledger_store.h"

namespace trix::ratings {

// A row of ratings.accounts.
struct MemoryAccount {
  std::string kind;  // player, world or pot
  int64_t balance = 0;
  int64_t held = 0;
};

// A row of ratings.lines: the amount and the account's balance after it.
struct MemoryLine {
  int64_t amount = 0;
  int64_t balance_after = 0;
};

// A row of ratings.entries with its lines by account.
struct MemoryEntry {
  EntryKind kind = EntryKind::kCredit;
  std::string request_id, game_id, reason;
  absl::Time created;
  std::map<std::string, MemoryLine> lines;
};

// A row of ratings.holds.
struct MemoryHold {
  HoldInfo hold;
  std::string request_id;
  int64_t entry_id = 0;  // the STAKE entry that settled it
  absl::Time created, updated;
};

struct MemoryLedgerData {
  std::map<std::string, MemoryAccount> accounts;  // world and world:0 .. world:15 at first
  std::vector<MemoryEntry> entries;               // entry_id - 1
  std::map<std::string, MemoryHold> holds;        // by hold id
  std::set<std::string> set_aside;  // tables whose settlement is set aside, unresolved
};

class MemoryLedgerStore : public LedgerStore {
 public:
  MemoryLedgerStore();

  absl::Status Transact(absl::string_view context,
                        absl::FunctionRef<absl::Status(LedgerTransaction&)> work) override;
  absl::StatusOr<std::optional<BalanceInfo>> ReadBalance(const std::string& player_id) override;
  absl::StatusOr<std::optional<std::vector<StatementEntry>>> ReadStatement(
      const std::string& player_id, int64_t before, int limit) override;
  absl::StatusOr<std::vector<std::string>> FindSweepable(const HoldTtls& ttls,
                                                         int limit) override;
  absl::StatusOr<OpenHolds> ReadOpenHolds(const HoldTtls& ttls) override;

  // A transaction left open across calls (a consumer batch's, whose settlements
  // commit with the batch): it holds the store from its start to its end, as
  // Transact does. Each Run is a savepoint of it; what the runs kept is put in
  // place by Commit, and dropped when it ends without one.
  class OpenTransaction {
   public:
    explicit OpenTransaction(MemoryLedgerStore& store);
    // Runs `work` as Transact does, keeping what it changed when it returns OK.
    absl::Status Run(absl::string_view context,
                     absl::FunctionRef<absl::Status(LedgerTransaction&)> work);
    // The table's settlement set aside (true) or resolved (false).
    void SetAside(const std::string& table_id, bool set_aside);
    void Commit();

   private:
    MemoryLedgerStore& store_;
    std::lock_guard<std::mutex> lock_;
    MemoryLedgerData data_;
  };

  // Set-up and inspection, outside any transaction.
  // The table's settlement set aside (true) or resolved (false).
  void SetAside(const std::string& table_id, bool set_aside = true);
  // The hold as if placed and last changed `age` earlier.
  void Age(const std::string& hold_id, absl::Duration age);
  MemoryLedgerData Data();

 private:
  std::mutex mu_;  // held by a transaction from its start to its end
  MemoryLedgerData data_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_MEMORY_LEDGER_STORE_H_
