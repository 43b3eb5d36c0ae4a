// The stake holds matchmaking is to give back (hold_releases.h) as durable
// storage, behind an interface so that HoldReleases and the lobby can be tested
// without PostgreSQL (testing/memory_hold_release_store.h). A release is a row
// retried until done, leased by one replica at a time (RetryTable's contract: a
// lease moves a row's `due` ahead, a row tried and failed is due again after
// RetryBackoff(tries)). Besides the rows written here, a ticket cancelled or
// superseded records its hold's release in the same change (TicketStore; on
// PostgreSQL, the trigger on mm_tickets of migration 0030).
// store/hold_release_store_contract_test.cc checks both against one contract.
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_HOLD_RELEASE_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_HOLD_RELEASE_STORE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/store/retry_table.h"
#include "services/pg/connection_pool.h"

namespace trix::matchmaking {

// Why a hold is released (mm_hold_releases.reason).
inline constexpr char kReleaseAdmission[] = "admission";
inline constexpr char kReleaseGameOver[] = "game over";
inline constexpr char kReleaseVoided[] = "table voided";
inline constexpr char kReleaseGone[] = "table gone";

// A stake about to be held for a ticket (HoldStake's arguments).
struct HoldIntent {
  std::string request_id;
  std::string player_id;
  int64_t amount = 0;
};

// A release, as leased: the hold (for an admission's, its HoldStake request id),
// the table it names ("" for none), why, and whether a waiting, placing or
// matched ticket carries the hold now.
struct DueRelease {
  std::string hold_id;
  int tries = 0;  // this one counted
  std::string table_id, reason;
  std::string player_id;  // an admission's: HoldStake's arguments
  int64_t amount = 0;
  bool carried = false;
};

class HoldReleaseStore {
 public:
  virtual ~HoldReleaseStore() = default;

  // Records admissions' stakes before they are held, due after `grace` (a row
  // of the same request id is due again, not done).
  virtual absl::Status Expect(const std::vector<HoldIntent>& holds, absl::Duration grace) = 0;
  // The admissions' holds are carried by queued tickets: their rows go.
  virtual absl::Status Queued(const std::vector<std::string>& request_ids) = 0;
  // The releases not done among `hold_ids` are due now.
  virtual absl::Status DueNow(const std::vector<std::string>& hold_ids) = 0;
  // At once: the seats of `table_id` are finished, and the holds of its staked
  // seats recorded for release (naming `named_table`, "" for none) with
  // `reason`, due now, unless done already.
  virtual absl::Status EndTable(const std::string& table_id, const std::string& named_table,
                                const std::string& reason) = 0;
  // The holds among `hold_ids` that a ticket no longer waiting or placing carried.
  virtual absl::StatusOr<std::set<std::string>> Spent(
      const std::vector<std::string>& hold_ids) = 0;
  // Whether a waiting, placing or matched ticket carries the hold.
  virtual absl::StatusOr<bool> Carried(const std::string& hold_id) = 0;
  // Records the releases of the tickets cancelled or superseded within `within`
  // that carried a hold and have none.
  virtual absl::Status RecordEnded(absl::Duration within) = 0;

  // Leases up to `limit` due releases, oldest due first.
  virtual absl::StatusOr<std::vector<DueRelease>> Lease(int limit) = 0;
  virtual absl::Status Done(const std::string& hold_id) = 0;
  // Tried `tries` times and failed: due again after a backoff.
  virtual absl::Status Later(const std::string& hold_id, int tries) = 0;
  // The releases not done, and the age of the oldest.
  virtual absl::StatusOr<RetryTable::Backlog> Pending() = 0;
  // Deletes releases done more than `keep` ago.
  virtual absl::Status Sweep(absl::Duration keep) = 0;
};

// On PostgreSQL: mm_hold_releases (migration 0030), through RetryTable.
class PostgresHoldReleaseStore : public HoldReleaseStore {
 public:
  explicit PostgresHoldReleaseStore(pg::ConnectionPool* db);

  absl::Status Expect(const std::vector<HoldIntent>& holds, absl::Duration grace) override;
  absl::Status Queued(const std::vector<std::string>& request_ids) override;
  absl::Status DueNow(const std::vector<std::string>& hold_ids) override;
  absl::Status EndTable(const std::string& table_id, const std::string& named_table,
                        const std::string& reason) override;
  absl::StatusOr<std::set<std::string>> Spent(const std::vector<std::string>& hold_ids) override;
  absl::StatusOr<bool> Carried(const std::string& hold_id) override;
  absl::Status RecordEnded(absl::Duration within) override;
  absl::StatusOr<std::vector<DueRelease>> Lease(int limit) override;
  absl::Status Done(const std::string& hold_id) override;
  absl::Status Later(const std::string& hold_id, int tries) override;
  absl::StatusOr<RetryTable::Backlog> Pending() override;
  absl::Status Sweep(absl::Duration keep) override;

 private:
  pg::ConnectionPool* const db_;
  RetryTable table_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_HOLD_RELEASE_STORE_H_
