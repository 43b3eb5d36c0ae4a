// Stake holds that matchmaking gives back, never stranded: a release is a row of
// mm_hold_releases (migration 0030), written in the same transaction as the change
// that ends the hold's use, and retried with backoff (RetryTable) by any replica
// until the ratings service has answered it: released, or nothing to release (no
// such hold, or one that is settled or attached to a table that was not named).
//
// Where releases come from:
// - a ticket cancelled or superseded: the database's trigger on mm_tickets;
// - a hold made for a ticket that was never queued (the admission failed, the
//   player was seated meanwhile, the process died, the ratings service's answer
//   was lost): Expect() records it by its HoldStake request id before the stake
//   is held, Queued() deletes that once the ticket carrying it is queued;
//   otherwise it is released a minute later (at once after NotQueued()): asked
//   for again under the same request id (idempotent: the same hold, or a new one
//   when none was made), and given back unless a ticket carries it;
// - a table whose game is over, voided or gone: EndTable(), which also finishes
//   its seats (the lobby's reconciliation, the table voids).
// - a staked room's start (rooms/room_service.h): its members' holds are
//   Expect()ed the same way before they are held, Queued() once attached to the
//   table's seats or given back at once, NotQueued() when the start is undone
//   and a hold could not be given back then.
// A release without a table is never done for a hold that a waiting, placing or
// matched ticket carries (a retry of the same request resumed it), unless the
// game of that match is over.
//
// Hold request ids (HoldStake's idempotency key) are HoldRequestId(): fixed length,
// one per player and request.
//
// The releases are kept in a HoldReleaseStore (store/hold_release_store.h) and
// given back through a RatingsClient (clients/ratings_client.h), both its own.
#ifndef TRIX_SERVICES_MATCHMAKING_HOLD_RELEASES_H_
#define TRIX_SERVICES_MATCHMAKING_HOLD_RELEASES_H_

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "services/matchmaking/clients/ratings_client.h"
#include "services/matchmaking/store/hold_release_store.h"

namespace trix::matchmaking {

// "mm-" and the first 32 hex digits of the SHA-256 of the player id and the
// request id (each preceded by its length, so that no two pairs read alike), and
// of `again` when not empty (a later ticket of the same request, its first one
// over). At most 35 bytes whatever the ids' lengths.
std::string HoldRequestId(const std::string& player_id, const std::string& request_id,
                          const std::string& again = "");

// The stake rules Quick Play's tickets and private rooms share. A stake is 0
// (free) or one of the configured `levels` (INVALID_ARGUMENT otherwise), and
// staking needs the ratings service (`ratings`; FAILED_PRECONDITION without).
absl::Status CheckStake(int64_t stake, const std::vector<int64_t>& levels, bool ratings);

// HoldStake, its refusal for want of money (no account, a balance too low) read
// as FAILED_PRECONDITION "the balance cannot cover the stake: ..."; any other
// status as the ratings service answered it.
absl::StatusOr<v1::Hold> HoldStake(RatingsClient& ratings,
                                   const v1::HoldStakeRequest& request);

struct HoldReleasesOptions {
  absl::Duration every = absl::Seconds(1);  // due releases tried this often
  // A hold made for a ticket is released this long after, unless a ticket carries it.
  absl::Duration admission_grace = absl::Minutes(1);
  absl::Duration keep = absl::Hours(2);     // done releases kept this long
};

// What the end of a table does to its seats and their holds (HoldReleases in
// production; an interface for the table voids' tests).
class TableEnds {
 public:
  virtual ~TableEnds() = default;
  // See HoldReleases::EndTable.
  virtual absl::Status EndTable(const std::string& table_id, const std::string& reason) = 0;
};

class HoldReleases : public TableEnds {
 public:
  // `ratings` may be null (no ratings service: nothing is ever held).
  HoldReleases(std::unique_ptr<HoldReleaseStore> store, std::unique_ptr<RatingsClient> ratings,
               HoldReleasesOptions options, prometheus::Registry* registry);
  ~HoldReleases();
  void Start();
  void Stop();

  // Stakes about to be held for tickets (see above), by request id.
  absl::Status Expect(const std::vector<HoldIntent>& holds);
  // Their tickets were queued (or resumed) carrying them: nothing to release.
  absl::Status Queued(const std::vector<std::string>& request_ids);
  // Their tickets were not queued: released as soon as may be.
  absl::Status NotQueued(const std::vector<std::string>& request_ids);
  // The game at `table_id` is over (`reason` kReleaseGameOver: its held stakes
  // go back, attached ones are left to settlement), voided or gone (the holds
  // are released naming the table): in one transaction, its staked seats' holds
  // are recorded for release and its seats finished.
  absl::Status EndTable(const std::string& table_id, const std::string& reason) override;
  // The holds among `hold_ids` that a ticket no longer waiting or placing
  // carried: a new ticket needs a hold of its own.
  absl::StatusOr<std::set<std::string>> Spent(const std::vector<std::string>& hold_ids);
  // Records the releases of recently ended tickets that have none (should the
  // trigger ever have been bypassed) and sweeps old done releases.
  absl::Status Reconcile();
  // Tries the due releases now instead of within `every`.
  void Kick();
  // One pass over the due releases; returns how many were finished. Public for tests.
  int ReleaseDue();

 private:
  // One due release tried: the ratings service's answer (whether it finishes
  // the release: Finished), and `in_use` when a ticket carries the hold.
  absl::Status Release(const DueRelease& due, bool* in_use);
  // An admission's release: the hold asked for again and given back unless a
  // ticket carries it (then `in_use`).
  absl::Status ReleaseExpected(const HoldIntent& intent, bool* in_use);
  void Loop();
  void Measure();

  const std::unique_ptr<HoldReleaseStore> store_;
  const std::unique_ptr<RatingsClient> ratings_;
  const HoldReleasesOptions options_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool kicked_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
  prometheus::Gauge* pending_ = nullptr;
  prometheus::Gauge* oldest_ = nullptr;
  prometheus::Family<prometheus::Counter>* outcomes_ = nullptr;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_HOLD_RELEASES_H_
