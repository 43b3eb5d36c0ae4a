// Tables matchmaking made that nobody is to play, voided until done. A placement
// given up (its CreateTable unanswered for Matcher's `give_up_placing`) may have
// made its table, whose seat tokens nobody got: the statement that gives it up
// records it in mm_table_voids (migration 0030). Any replica then asks the
// placement's request again (the same request and seat tokens: any instance
// answers it with the table it made, or makes it) until the table is known, and
// voids it (VoidTable, "placement given up"), retrying with backoff (RetryTable)
// whatever fails; the voided table's outbox row makes the ratings service release
// the holds attached to it, and matchmaking releases its seats' holds by table too
// (HoldReleases::EndTable).
#ifndef TRIX_SERVICES_MATCHMAKING_TABLE_VOIDS_H_
#define TRIX_SERVICES_MATCHMAKING_TABLE_VOIDS_H_

#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "services/matchmaking/hold_releases.h"
#include "services/matchmaking/placement.h"
#include "services/matchmaking/retry_table.h"
#include "services/matchmaking/seat_tokens.h"
#include "services/storage/connection_pool.h"

namespace trix::matchmaking {

inline constexpr char kVoidGivenUp[] = "placement given up";

class TableVoids {
 public:
  // `seat_tokens` gives the stored request back its seat tokens (stored without).
  TableVoids(storage::ConnectionPool* db, Placement* placement, const SeatTokens* seat_tokens,
             HoldReleases* releases, prometheus::Registry* registry,
             absl::Duration every = absl::Seconds(1));
  ~TableVoids();
  void Start();
  void Stop();
  // One pass over the due voids; returns how many were finished. Public for tests.
  int VoidDue();

 private:
  // Finishes one void; false: to be tried again.
  bool VoidOne(const std::string& request_id, const std::string& request,
               std::string table_id, std::string address, const std::string& reason);
  void Loop();

  storage::ConnectionPool* const db_;
  Placement* const placement_;
  const SeatTokens* const seat_tokens_;
  HoldReleases* const releases_;
  const absl::Duration every_;
  RetryTable table_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
  prometheus::Gauge* pending_ = nullptr;
  prometheus::Gauge* oldest_ = nullptr;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TABLE_VOIDS_H_
