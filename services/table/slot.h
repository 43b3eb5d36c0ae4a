// INTERNAL to TableHost: one hosted table and its strand.
//
// The mutex guards only the command queue and the strand's flags. Everything else
// belongs to the strand: exactly one command runs at a time for a table (and none
// while its append is in flight), so the table and its subscribers need no lock.
// The atomics are what other threads may read without the strand (listings,
// maintenance).
#ifndef TRIX_SERVICES_TABLE_SLOT_H_
#define TRIX_SERVICES_TABLE_SLOT_H_

#include <array>
#include <atomic>
#include <deque>
#include <list>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/table/table.h"
#include "services/table/table_host.h"

namespace trix::table {

struct TableHost::Slot {
  explicit Slot(std::string table_id) : id(std::move(table_id)) {}

  const std::string id;

  absl::Mutex mu;
  std::list<Command> queue ABSL_GUARDED_BY(mu);  // holds nothing while empty
  bool running ABSL_GUARDED_BY(mu) = false;  // a Drain is scheduled or running
  bool waiting ABSL_GUARDED_BY(mu) = false;  // an append or reload is in flight
  // Who of the suspending work and the completion has arrived (0..2); the second
  // runs `continuation` (see TableHost::Drain).
  int arrivals ABSL_GUARDED_BY(mu) = 0;
  std::function<void()> continuation ABSL_GUARDED_BY(mu);
  // After a failed reload, this many queued commands get load_status; then the
  // next command tries to load again.
  int failed_budget ABSL_GUARDED_BY(mu) = 0;
  // A placeholder for a table a claim round claimed and is still reading
  // (TableHost::AwaitClaimed): the table is coming, so commands wait in `held`, in
  // order, until the round's read arrives (then they queue behind its load), or
  // are refused once they waited HostOptions::load_wait (TableHost::OnLoadWaitOver).
  bool awaiting_claim ABSL_GUARDED_BY(mu) = false;
  struct Held {
    absl::Time since;
    Command command;
  };
  std::deque<Held> held ABSL_GUARDED_BY(mu);

  // Strand state.
  std::unique_ptr<Table> table;  // null: must be (re)loaded from the store
  absl::Status load_status;      // why `table` is null
  bool evicted = false;          // no longer hosted; commands get load_status
  // A placeholder for a table a call asked for that this instance did not host:
  // its first load locates the table and adopts it if nobody holds it.
  bool adopting = false;
  // A placeholder's table as a claim round read it (TableHost::AdoptClaimed): set
  // before the slot is published, taken by its load.
  std::unique_ptr<absl::StatusOr<StoredGame>> claimed;
  // A call's placeholder, counted in TableHost::adoptions_ until its load ends;
  // a claim round's is not (its batch bounds it). Set before publication.
  bool for_call = false;
  struct Subscriber {
    int viewer;
    std::shared_ptr<UpdateSink> sink;
  };
  std::vector<Subscriber> subscribers;
  size_t streamed = 0;  // events [0, streamed) were sent to the subscribers
  // The log length known durable: loaded, or acknowledged by the store. A reload
  // that finds the stored log shorter (a failover lost commits) counts a rewind.
  int64_t acknowledged = 0;

  // Readable from any thread.
  // Written once, before `seats_known` is set (at publication, or by the strand
  // when a placeholder adopts its table); read only after it.
  std::array<std::string, 4> token_hashes;
  std::array<std::string, 4> player_ids;
  std::atomic<bool> seats_known{false};
  std::atomic<bool> hosted{false};          // loaded under this instance's lease: renewed
  std::atomic<int> phase{0};                // v1::Phase
  std::atomic<bool> finished{false};
  std::atomic<int64_t> finished_at_us{0};
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_SLOT_H_
