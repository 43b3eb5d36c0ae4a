// LedgerStore on PostgreSQL (migrations/0028, 0035 and those before): each
// transaction on a pooled connection; balances, every movement and the checks
// before it on the primary's pool, statements on the history's (a standby's).
// Every statement goes through exec_params: libpqxx 6's plain exec closes the
// whole transaction on an error, savepoint or not (the consumer settles behind a
// savepoint, postgres_ratings_store.cc).
#ifndef TRIX_SERVICES_RATINGS_STORE_POSTGRES_LEDGER_STORE_H_
#define TRIX_SERVICES_RATINGS_STORE_POSTGRES_LEDGER_STORE_H_

#include <pqxx/transaction>

#include "services/ratings/store/ledger_store.h"
#include "services/pg/connection_pool.h"

namespace trix::ratings {

// A LedgerTransaction in an open libpqxx transaction, which the caller commits
// (the consumer's batch settles games in its own).
class PostgresLedgerTransaction : public LedgerTransaction {
 public:
  explicit PostgresLedgerTransaction(pqxx::work& tx) : tx_(tx) {}

  void LockKey(const std::string& key) override;
  void OpenAccount(const std::string& account_id, const std::string& kind) override;
  std::optional<BalanceInfo> LockBalance(const std::string& player_id) override;
  void AddHeld(const std::string& player_id, int64_t amount) override;
  std::optional<PostedTransfer> FindTransfer(const std::string& request_id,
                                             const std::string& account_id) override;
  int64_t PostEntry(EntryKind kind, const std::string& request_id, const std::string& game_id,
                    const std::string& reason, const LedgerLines& lines) override;
  std::optional<HoldInfo> FindHoldByRequest(const std::string& request_id) override;
  std::optional<HoldInfo> LockHold(const std::string& hold_id) override;
  std::vector<HoldInfo> LockTableHolds(const std::string& table_id) override;
  HoldInfo AddHold(const std::string& request_id, const std::string& player_id,
                   int64_t amount) override;
  bool SeatTaken(const std::string& table_id, int seat) override;
  void ReleaseHold(const HoldInfo& hold) override;
  void AttachHold(const std::string& hold_id, const std::string& table_id, int seat) override;
  void KeepHold(const std::string& hold_id) override;
  void SettleHold(const std::string& hold_id, int64_t entry_id) override;
  bool Sweepable(const std::string& hold_id, const HoldTtls& ttls) override;

 private:
  pqxx::work& tx_;
};

class PostgresLedgerStore : public LedgerStore {
 public:
  // The pools outlive the store; statements are read from `history`, or from
  // `pool` when it is null.
  explicit PostgresLedgerStore(pg::ConnectionPool* pool,
                               pg::ConnectionPool* history = nullptr)
      : pool_(pool), history_(history != nullptr ? history : pool) {}

  absl::Status Transact(absl::string_view context,
                        absl::FunctionRef<absl::Status(LedgerTransaction&)> work) override;
  absl::StatusOr<std::optional<BalanceInfo>> ReadBalance(const std::string& player_id) override;
  absl::StatusOr<std::optional<std::vector<StatementEntry>>> ReadStatement(
      const std::string& player_id, int64_t before, int limit) override;
  absl::StatusOr<std::vector<std::string>> FindSweepable(const HoldTtls& ttls,
                                                         int limit) override;
  absl::StatusOr<OpenHolds> ReadOpenHolds(const HoldTtls& ttls) override;

 private:
  pg::ConnectionPool* const pool_;
  pg::ConnectionPool* const history_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_POSTGRES_LEDGER_STORE_H_
