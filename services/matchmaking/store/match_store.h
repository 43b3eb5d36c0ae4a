// What the matcher needs from durable storage, as an interface, so that grouping,
// pool leases and placing can be tested without PostgreSQL (an in-memory store,
// testing/memory_match_store.h) and run in production on PostgreSQL
// (postgres_match_store.h). Both keep the same contract, which
// store/match_store_contract_test.cc checks against each.
//
// A PoolSession is one matcher's hold on its pools: a pool is leased by one
// session at a time, until the session ends (in PostgreSQL, an advisory lock on
// the session's own connection, which goes with the connection when its replica
// dies, as soon as the server notices: not always before the next call). A session's calls throw std::exception when it is lost, and every lease
// goes with it: the matcher opens another. The commit of placed tables' seats is
// the store's, not the session's: it runs on the shared connections, and only
// the placements still recorded are finished by it.
//
//   std::unique_ptr<PoolSession> session = store->OpenSession();
//   if (session->TryLease("complex-partner/0")) { ... session->ReadWaiting(...) ... }
//   absl::StatusOr<std::set<std::string>> mine = store->CommitPlacements(outcome);
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_MATCH_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_MATCH_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/ticket_store.h"
#include "trix/v1/table.pb.h"

namespace trix::matchmaking {

// One table to make, as its placement is recorded (mm_placements): its
// CreateTable request (its request_id names the placement), its seats (a bot's
// without a ticket), the tickets it seats and when it became possible.
struct PlannedTable {
  std::string pool;
  int bots = 0;
  std::vector<std::string> tickets;
  v1::CreateTableRequest request;
  std::vector<AssignmentRow> seats;
  absl::Time possible;
};
using PlannedTables = std::vector<const PlannedTable*>;

// What a batch of placements comes to, for the commit of their seats:
// `created`, placements whose tables were made, with their tickets and seats
// (`rows`, each with its placement in `row_requests`); `failed`, placements whose
// tables could not be made, with their tickets, of which `given_up` may have
// made theirs (to be voided, table_voids.h).
struct PlacementOutcome {
  std::vector<std::string> created, created_tickets;
  std::vector<std::string> failed, failed_tickets, given_up;
  std::vector<AssignmentRow> rows;
  std::vector<std::string> row_requests;
};

// What a lease of a pool takes over from its previous holder: the placements it
// left unfinished (their requests as stored: seat tokens not restored), and how
// many tickets it had claimed without a placement, now back in the queue.
struct PoolTakeover {
  std::vector<PlannedTable> placements;
  int64_t requeued = 0;
};

// The waiting tickets of some pools (by seq), and the ticket sequence's last
// number before they were read: a ticket numbered later is read next time.
struct PoolRead {
  int64_t numbered = 0;
  std::vector<TicketRow> tickets;
};

// For ClaimEach: the tables to record for the claimed tickets, and the claimed
// tickets to put back in the queue (their group fell apart).
struct ClaimPlan {
  PlannedTables tables;
  std::vector<std::string> back;
};

// A recorded placement's seat `seat`, its ticket `ticket_id` ("" for a bot),
// added to `table` (whose request and possible are read already) as TakeOver
// gives it: a bot's seat counts in `bots`, a person's ticket in `tickets`.
void AddRecordedSeat(int seat, const std::string& ticket_id, PlannedTable& table);

class PoolSession {
 public:
  virtual ~PoolSession() = default;

  // Leases `pool` for this session, unless another session holds it.
  virtual bool TryLease(const std::string& pool) = 0;
  // On a pool just leased: the previous holder's placements, and its claimed
  // tickets without one put back in the queue.
  virtual PoolTakeover TakeOver(const std::string& pool) = 0;
  // The waiting tickets of `pools` numbered after `after` (0: all of them).
  virtual PoolRead ReadWaiting(const std::vector<std::string>& pools, int64_t after) = 0;
  // Claims every table's tickets (waiting -> placing) and records the
  // placements, at once: false, with nothing changed, unless every ticket was
  // still waiting.
  virtual bool ClaimWhole(const PlannedTables& tables) = 0;
  // Claims those of `ticket_ids` still waiting, then does what `plan` makes of
  // the claimed ones, in the same transaction.
  virtual void ClaimEach(
      const std::vector<std::string>& ticket_ids,
      const std::function<ClaimPlan(const std::set<std::string>& claimed)>& plan) = 0;
};

class MatchStore {
 public:
  virtual ~MatchStore() = default;

  // A new session, with no leases; throws when the store cannot be reached.
  virtual std::unique_ptr<PoolSession> OpenSession() = 0;
  // Commits a batch's outcome at once: the created placements still recorded
  // are deleted, their tickets (still placing in them) matched and their seats
  // inserted; the failed placements are deleted and their tickets go back to
  // the queue; those given up are recorded as tables to void. Returns the
  // placements it finished (request ids), or why nothing was committed.
  virtual absl::StatusOr<std::set<std::string>> CommitPlacements(
      const PlacementOutcome& outcome) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_MATCH_STORE_H_
