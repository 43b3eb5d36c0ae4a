// The ledger's storage (ledger.h), behind an interface so that the ledger's rules
// can run without PostgreSQL (testing/memory_ledger_store.h): the accounts with
// their balances and held amounts, the journal (entries and their lines), and the
// stake holds.
//
// A LedgerTransaction is one transaction: what it writes becomes visible together,
// or not at all. Its Lock* calls take the row locks a PostgreSQL transaction
// takes, accounts always before holds, and hold them until it ends. Its calls
// throw what the storage throws (libpqxx's exceptions on PostgreSQL).
//
//   absl::Status s = store.Transact("holding a stake", [&](LedgerTransaction& tx) {
//     std::optional<BalanceInfo> b = tx.LockBalance("p1");
//     ...
//     return absl::OkStatus();  // commits; an error rolls everything back
//   });
#ifndef TRIX_SERVICES_RATINGS_STORE_LEDGER_STORE_H_
#define TRIX_SERVICES_RATINGS_STORE_LEDGER_STORE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/ratings/ledger.h"

namespace trix::ratings {

// Amounts per account; an account moved twice in one entry gets one line.
using LedgerLines = std::map<std::string, int64_t>;

// An entry posted under a request id, as seen by a later call with the same id:
// its kind, its reason and its line on one account (nullopt: none).
struct PostedTransfer {
  int64_t entry_id = 0;
  EntryKind kind = EntryKind::kCredit;
  std::string reason;
  std::optional<int64_t> amount;
};

// How long an open hold lives past its last change: HELD, ATTACHED.
struct HoldTtls {
  absl::Duration held;
  absl::Duration attached;
};

class LedgerTransaction {
 public:
  virtual ~LedgerTransaction() = default;

  // Serializes the transactions that lock the same key until they end (an
  // idempotency key, a table seat).
  virtual void LockKey(const std::string& key) = 0;

  // Accounts. A player's account is PlayerAccount(player_id).
  // Adds the account ("player" or "pot") unless it exists.
  virtual void OpenAccount(const std::string& account_id, const std::string& kind) = 0;
  // Locks the player's account; nullopt when it does not exist.
  virtual std::optional<BalanceInfo> LockBalance(const std::string& player_id) = 0;
  // Adds `amount` (negative: takes it back) to the player's held amount.
  virtual void AddHeld(const std::string& player_id, int64_t amount) = 0;

  // The journal.
  // The entry posted under `request_id`, with its line on `account_id`.
  virtual std::optional<PostedTransfer> FindTransfer(const std::string& request_id,
                                                     const std::string& account_id) = 0;
  // Posts an entry (request_id and game_id may be empty) and its non-zero lines,
  // each moving its account's balance; returns the entry id.
  virtual int64_t PostEntry(EntryKind kind, const std::string& request_id,
                            const std::string& game_id, const std::string& reason,
                            const LedgerLines& lines) = 0;

  // Holds.
  // The hold placed under `request_id` (not locked).
  virtual std::optional<HoldInfo> FindHoldByRequest(const std::string& request_id) = 0;
  // Locks the hold, its account first; nullopt when there is none.
  virtual std::optional<HoldInfo> LockHold(const std::string& hold_id) = 0;
  // Locks the holds attached to the table, their accounts first, in account
  // order; the holds in seat order.
  virtual std::vector<HoldInfo> LockTableHolds(const std::string& table_id) = 0;
  // A new HELD hold (a new hold id); its amount is not added to held here.
  virtual HoldInfo AddHold(const std::string& request_id, const std::string& player_id,
                           int64_t amount) = 0;
  // Whether a hold is attached to the table and seat.
  virtual bool SeatTaken(const std::string& table_id, int seat) = 0;
  // A locked open hold's money back to the available balance; the hold RELEASED.
  virtual void ReleaseHold(const HoldInfo& hold) = 0;
  // A locked HELD hold ATTACHED to the table and seat.
  virtual void AttachHold(const std::string& hold_id, const std::string& table_id,
                          int seat) = 0;
  // A locked hold's TTL starts again.
  virtual void KeepHold(const std::string& hold_id) = 0;
  // A locked hold SETTLED by the entry `entry_id` (its amount left held before).
  virtual void SettleHold(const std::string& hold_id, int64_t entry_id) = 0;
  // Whether the hold is open and the sweep may release it: past its TTL, and not
  // attached to a table whose settlement is set aside to be tried again.
  virtual bool Sweepable(const std::string& hold_id, const HoldTtls& ttls) = 0;
};

class LedgerStore {
 public:
  virtual ~LedgerStore() = default;

  // Runs `work` in one transaction, committed when it returns OK and rolled back
  // otherwise; what the storage throws becomes an error status prefixed by
  // `context`.
  virtual absl::Status Transact(absl::string_view context,
                                absl::FunctionRef<absl::Status(LedgerTransaction&)> work) = 0;

  // Reads, each in a transaction of its own. nullopt: the player has no account.
  virtual absl::StatusOr<std::optional<BalanceInfo>> ReadBalance(
      const std::string& player_id) = 0;
  // The player's lines below entry `before`, newest first, up to `limit` (from
  // the history's storage: a standby's may lag).
  virtual absl::StatusOr<std::optional<std::vector<StatementEntry>>> ReadStatement(
      const std::string& player_id, int64_t before, int limit) = 0;
  // Up to `limit` holds the sweep may release (LedgerTransaction::Sweepable), the
  // longest unchanged first.
  virtual absl::StatusOr<std::vector<std::string>> FindSweepable(const HoldTtls& ttls,
                                                                 int limit) = 0;
  // The open holds: the oldest one's age and how many are past their TTL.
  virtual absl::StatusOr<OpenHolds> ReadOpenHolds(const HoldTtls& ttls) = 0;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_LEDGER_STORE_H_
