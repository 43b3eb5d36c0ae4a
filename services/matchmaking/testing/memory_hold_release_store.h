// The stake holds to give back in memory (store/hold_release_store.h), for the
// tests of HoldReleases and the lobby. It reads the tickets of a
// MemoryTicketStore (which holds carried, spent) and hears the tickets that end
// unplayed from it, as the trigger on mm_tickets records their releases.
//
//   MemoryTicketStore tickets;
//   auto releases = std::make_unique<MemoryHoldReleaseStore>(&tickets);
//   ... releases->Row(hold_id) ...
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_HOLD_RELEASE_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_HOLD_RELEASE_STORE_H_

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/store/hold_release_store.h"
#include "services/matchmaking/testing/memory_ticket_store.h"

namespace trix::matchmaking {

class MemoryHoldReleaseStore : public HoldReleaseStore {
 public:
  // Listens to `tickets` (which must outlive it) for tickets ending unplayed.
  explicit MemoryHoldReleaseStore(MemoryTicketStore* tickets,
                                  absl::Duration lease = absl::Seconds(30));
  ~MemoryHoldReleaseStore() override;

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

  // The release as it stands (not yet done, or done), or nullopt.
  struct Stored {
    DueRelease row;  // `carried` not kept
    absl::Time created, due;
    std::optional<absl::Time> done;
  };
  std::optional<Stored> Row(const std::string& hold_id) const;
  // Makes every release not done due now (the test does not wait out a grace).
  void DueAll();

 private:
  // A ticket carrying `hold_id` ended unplayed with `status`.
  void TicketEnded(const std::string& hold_id, const std::string& status);
  // The holds carried by tickets of these statuses.
  std::set<std::string> HoldsOf(const std::set<std::string>& statuses) const;

  MemoryTicketStore* const tickets_;
  const absl::Duration lease_;
  mutable std::mutex mu_;
  std::map<std::string, Stored> rows_;  // by hold id
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_HOLD_RELEASE_STORE_H_
