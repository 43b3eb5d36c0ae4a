// INTERNAL to TableHost (table_host*.cc): one hosted table and its strand. It
// knows nothing of the host, which holds it by shared_ptr.
//
// Everything but the atomics belongs to the strand: exactly one command runs at a
// time for a table (and none while its append is in flight), so the table and its
// subscribers need no lock.
// The atomics are what other threads may read without the strand (listings,
// maintenance).
#ifndef TRIX_SERVICES_TABLE_SLOT_H_
#define TRIX_SERVICES_TABLE_SLOT_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "services/table/strand.h"
#include "services/table/table.h"
#include "services/table/table_store.h"
#include "services/table/update_sink.h"

namespace trix::table {

struct Slot {
  explicit Slot(std::string table_id) : id(std::move(table_id)) {}

  const std::string id;

  // The table's commands, one at a time (strand.h). A placeholder for a table a
  // claim round claimed and is still reading (TableHost::AwaitClaimed) holds them
  // until the round's read arrives (then they queue behind its load), or refuses
  // them once they waited HostOptions::load_wait (TableHost::OnLoadWaitOver).
  Strand strand{id};

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
  // A call's placeholder, counted in the host's Adoptions (adoptions.h) until
  // its load ends; a claim round's is not (its batch bounds it). Set before
  // publication.
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
