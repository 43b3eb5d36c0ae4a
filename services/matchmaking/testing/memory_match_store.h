// An in-memory MatchStore for tests of the matcher, with MatchStore's contract
// (store/match_store.h; store/match_store_contract_test.cc runs the same checks
// on it and on PostgreSQL): a pool leased by one session at a time until the
// session ends, claims that take a table's tickets whole or not at all,
// placements recorded with their claim and finished or dropped by the commit of
// their outcome. Tickets are queued and cancelled here directly (what the ticket
// store does in production), and what the matcher wrote can be read back. Knobs
// make it misbehave: commits that fail, sessions that are lost (as when the
// matcher's connection drops, taking its leases with it).
//
//   MemoryMatchStore store;
//   TicketRow t = store.Queue({.ticket_id = "t1", .player_id = "p1", .pool = pool});
//   Matcher matcher({.store = &store, ...}, &tables, ...);
//   store.Status("t1");  // "matched"
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_MATCH_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_MATCH_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "services/matchmaking/store/match_store.h"

namespace trix::matchmaking {

class MemoryMatchStore : public MatchStore {
 public:
  std::unique_ptr<PoolSession> OpenSession() override;
  absl::StatusOr<std::set<std::string>> CommitPlacements(
      const PlacementOutcome& outcome) override;

  // Queues a ticket: numbered next, waiting (queued now unless set). Returns it
  // as stored.
  TicketRow Queue(TicketRow row);
  // Cancels the ticket if it still waits.
  void Cancel(const std::string& ticket_id);
  // The ticket's status ("waiting", "placing", "matched", "cancelled"), or ""
  // for an unknown ticket.
  std::string Status(const std::string& ticket_id) const;
  // The placement the ticket is claimed into, or "".
  std::string GroupOf(const std::string& ticket_id) const;
  // The placements recorded and not finished, by request id.
  std::vector<std::string> Placements() const;
  // Every seat committed, in the order committed.
  std::vector<AssignmentRow> Assignments() const;
  // The placements given up, recorded as tables to void.
  std::vector<std::string> Voids() const;
  // Pools leased by some session.
  std::set<std::string> Leased() const;

  // The next `n` commits fail with `status`, committing nothing.
  void FailCommits(int n, absl::Status status);
  // Every open session is lost: its leases go, and its calls throw.
  void LoseSessions();

 private:
  class Session;
  struct StoredTicket {
    TicketRow row;
    std::string group;
  };
  struct StoredPlacement {
    std::string pool, request;  // the request as stored (SeatTokens::Stored)
    absl::Time possible;
    std::vector<std::pair<int, std::string>> seats;  // seat, ticket ("" for a bot)
  };

  // Calls of a session: throw once it is lost.
  void CheckLive(int64_t session) const;
  bool TryLease(int64_t session, const std::string& pool);
  void EndSession(int64_t session);
  PoolTakeover TakeOver(int64_t session, const std::string& pool);
  PoolRead ReadWaiting(int64_t session, const std::vector<std::string>& pools,
                       int64_t after);
  bool ClaimWhole(int64_t session, const PlannedTables& tables);
  void ClaimEach(int64_t session, const std::vector<std::string>& ticket_ids,
                 const std::function<ClaimPlan(const std::set<std::string>&)>& plan);
  void Record(const PlannedTables& tables);
  // The placements of `pool` as TakeOver gives them.
  std::vector<PlannedTable> PlacementsOf(const std::string& pool) const;

  mutable std::recursive_mutex mu_;
  int64_t sessions_ = 0;
  std::set<int64_t> lost_;
  std::map<std::string, int64_t> leases_;  // pool -> session
  int64_t seq_ = 0;
  std::map<std::string, StoredTicket> tickets_;
  std::map<std::string, StoredPlacement> placements_;
  std::vector<AssignmentRow> assignments_;
  std::vector<std::string> voids_;
  int failing_commits_ = 0;
  absl::Status commit_failure_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_MATCH_STORE_H_
