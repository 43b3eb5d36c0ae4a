// Tables matchmaking made that nobody is to play, voided until done. A placement
// given up (its CreateTable unanswered for Matcher's `give_up_placing`) may have
// made its table, whose seat tokens nobody got: the statement that gives it up
// records it in mm_table_voids (migration 0030). Any replica then asks the
// placement's request again (the same request and seat tokens: any instance
// answers it with the table it made, or makes it) until the table is known, and
// voids it (VoidTable, "placement given up"), retrying with backoff (the
// TableVoidStore, store/table_void_store.h) whatever fails; the voided table's outbox row makes the ratings service release
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
#include "services/matchmaking/seat_tokens.h"
#include "services/matchmaking/store/table_void_store.h"

namespace trix::matchmaking {

inline constexpr char kVoidGivenUp[] = "placement given up";

class TableVoids {
 public:
  // `seat_tokens` gives the stored request back its seat tokens (stored without).
  TableVoids(TableVoidStore* store, TableClient* tables, const SeatTokens* seat_tokens,
             TableEnds* releases, prometheus::Registry* registry,
             absl::Duration every = absl::Seconds(1));
  ~TableVoids();
  void Start();
  void Stop();
  // One pass over the due voids; returns how many were finished. Public for tests.
  int VoidDue();

 private:
  // Finishes one void; false: to be tried again.
  bool VoidOne(DueVoid due);
  // Asks the void's request again for its table (into `due`); false: not known.
  bool FindTable(DueVoid& due);
  void Loop();

  TableVoidStore* const store_;
  TableClient* const tables_;
  const SeatTokens* const seat_tokens_;
  TableEnds* const releases_;
  const absl::Duration every_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
  prometheus::Gauge* pending_ = nullptr;
  prometheus::Gauge* oldest_ = nullptr;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TABLE_VOIDS_H_
