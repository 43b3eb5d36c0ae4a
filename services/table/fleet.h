// This instance's standing in the fleet of table instances, as the table host
// keeps it through the store: its lease (renewed in one write that keeps every
// table it hosts), whether that lease is fresh enough to serve from, the claim
// rounds that take lapsed tables, the releases it owes, where a table lives, and
// its registry heartbeat. It holds no table: the host names the tables it hosts
// (Hosted) and drops the ones a renewal did not keep.
#ifndef TRIX_SERVICES_TABLE_FLEET_H_
#define TRIX_SERVICES_TABLE_FLEET_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/table/table_store.h"

namespace trix::table {

// HostOptions' fields of the same names (their defaults are there).
struct FleetOptions {
  std::string instance_name;  // without the boot id; empty: no previous runs
  absl::Duration lease_ttl;
  int claim_batch = 0;
  double claim_room_share = 0;
  int max_tables = 0;  // the capacity the registry shows
};

class Fleet {
 public:
  // The tables the host holds under this instance's lease, as a renewal sees
  // them (both calls under the renewal's lock, one renewal at a time).
  class Hosted {
   public:
    virtual ~Hosted() = default;
    // The live tables hosted now.
    virtual std::vector<std::string> List() = 0;
    // Lets go of each table List named that the renewal did not keep.
    virtual void DropLost(const absl::flat_hash_set<std::string>& kept) = 0;
  };

  // `store` must outlive the fleet.
  Fleet(FleetOptions options, TableStore* store);

  // Leases.
  // Whether the leases were renewed recently enough that none can have lapsed.
  bool LeasesFresh() const;
  // Renews the instance's lease; the hosted tables claimed meanwhile are dropped
  // before the leases count as fresh.
  absl::Status Renew(Hosted& hosted);
  // For a call that found the leases stale: renews, at most once per half second
  // while the database is away; whether they are fresh now.
  bool Refresh(Hosted& hosted);

  // Claims.
  // Claims lapsed and released tables for a round with `room` for more: a
  // share of the room in the first round after one that claimed nothing, else
  // claim_batch. Returns their ids.
  std::vector<std::string> ClaimRound(int room);
  // Claims up to `limit` orphaned tables; returns their ids.
  std::vector<std::string> ClaimOrphans(int limit);
  // Takes back the tables of this instance's previous runs.
  std::vector<std::string> ClaimPreviousRuns();
  // Claims one table a call asked for: false when another instance holds it.
  absl::StatusOr<bool> Claim(const std::string& table_id);

  // Releases.
  // Gives back a claim whose table could not be loaded (a no-op when the lease is
  // not ours); when the database refuses, it is owed (ReleaseOwed).
  void ReleaseClaim(const std::string& table_id);
  // Tables no longer hosted whose release may not have got through: the
  // instance's lease keeps them ours until ReleaseOwed gets one through.
  void OweReleases(const std::vector<std::string>& table_ids);
  // Releases the tables owed, except those `hosted_here` (hosted again).
  void ReleaseOwed(const std::function<bool(const std::string&)>& hosted_here);
  // Releases tables no longer hosted here (those still ours; the rest are left as
  // they are); when the database refuses, they are owed. Returns its answer.
  absl::Status ReleaseLeases(const std::vector<std::string>& table_ids);
  // Releases a table already owed (OweReleases), whatever the database answers: a
  // lease no longer ours fails harmlessly, and ReleaseOwed repeats the rest.
  void Release(const std::string& table_id);

  // Where a table lives as the store says: its lease holder and address, whether
  // it finished, whether it is quarantined.
  absl::StatusOr<TableHome> Home(const std::string& table_id);
  // Where a table lives: UNAVAILABLE with its location, or why it is not served.
  absl::Status Locate(const std::string& table_id, absl::string_view why);
  // Tells the registry this instance's address, tables and whether it drains.
  void Heartbeat(const std::string& address, int live_tables, bool draining);

 private:
  absl::Status RenewLocked(Hosted& hosted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(renew_mu_);
  int ClaimLimit(int room) const;

  const FleetOptions options_;
  TableStore* const store_;
  // Monotonic time (µs) when the last successful renewal started: a lease renewed
  // then lasts at least lease_ttl from then, whatever the wall clock does.
  std::atomic<int64_t> renewed_at_us_{0};
  absl::Mutex renew_mu_;  // one renewal at a time
  int64_t renew_failed_at_us_ ABSL_GUARDED_BY(renew_mu_) = 0;
  // Whether the last claim round claimed anything (ClaimLimit).
  std::atomic<bool> claimed_last_round_{false};
  absl::Mutex mu_;
  absl::flat_hash_set<std::string> owed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_FLEET_H_
