// The matcher: one per replica, the loop that turns waiting tickets into tables.
//
// Each pool (mode x stake level) is matched by exactly one replica at a time: the
// one holding the pool's PostgreSQL advisory lock, taken on the matcher's own
// connection. When a replica dies its connection closes and the lock passes to
// another replica within `lease_retry`, which first returns the dead replica's
// half-placed tickets to the queue. Every `tick` the holder reads the pool's
// waiting tickets, groups them in memory (Pool), claims the grouped tickets
// (waiting -> placing) and hands the batch to a placer thread, which creates the
// tables (TableClient, placement.h) and commits the assignments with the tickets' new status in
// one transaction (only if the tickets are still its own placing ones); only then are the
// assignments handed to `on_assigned` (other replicas find them when they poll
// their streams' tickets). So a ticket is grouped once, an assignment exists before anyone
// is told of it, and a crash at any point leaves either waiting tickets or
// committed assignments. A placement not finished (its seats could not be
// committed, or its table may have been made without an answer) stays recorded
// and is placed again later by a placer, with backoff: the same request and seat
// tokens, so the same table. Only a failure that proves no table was made
// (ProvesNoTable), or `give_up_placing` of unanswered requests, returns its
// tickets to the queue; a placement given up is recorded, in the same statement,
// as a table to void (table_voids.h). Every read and write of tickets, leases and
// placements goes through options.store (store/match_store.h).
//
// Its parts: the pool leases (matcher_leases.cc), the grouping of each leased
// pool's tickets (PoolTickets, pool_tickets.h: who plays whom, no database), the
// claims and tables asked for (matcher.cc), and the placers that create the
// tables and commit the assignments (matcher_placing.cc).
//
//   Matcher matcher({.store = &store, ...}, &placement, reserve_bot, on_assigned,
//                   &registry);
//   matcher.Start(); ... matcher.Stop();
#ifndef TRIX_SERVICES_MATCHMAKING_MATCHER_H_
#define TRIX_SERVICES_MATCHMAKING_MATCHER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "services/matchmaking/placement.h"
#include "services/matchmaking/pool.h"
#include "services/matchmaking/pool_tickets.h"
#include "services/matchmaking/stage_log.h"
#include "services/matchmaking/store/match_store.h"
#include "services/matchmaking/ticket_store.h"
#include "trix/v1/common.pb.h"

namespace trix::matchmaking {

struct PoolSpec {
  std::string name;  // "<mode>/<stake>"
  v1::Mode mode;
  int64_t stake = 0;
  PoolOptions options;
};

// "complex-partner/0".
std::string PoolName(const v1::Mode& mode, int64_t stake);

struct BotSeat {
  std::string bot_id;
  std::string name;
  std::string stream_id;  // the bot stream that plays it (store/postgres_bot_streams.h)
  std::string level;      // the account's level (BotLevelName); "" when unknown
};

// What a table asks bot fill for, one seat at a time.
struct BotAsk {
  v1::Mode mode;
  std::vector<std::string> taken;  // the table's bots already chosen
  std::optional<int> near_rating;  // the human players' mean displayed rating
  std::string level;               // bot_roster.h BotLevelName; "" for any
};

// The stake holds of tickets about to be seated (MatcherOptions::check_holds):
// those whose hold is gone (released, past its TTL) and those that could not be
// checked (the ratings service did not answer). Every other one is held, and was
// kept just now.
struct HoldCheck {
  std::set<std::string> gone, unchecked;
};

struct MatcherOptions {
  MatchStore* store = nullptr;  // tickets, pool leases, placements (required)
  std::vector<PoolSpec> pools;
  absl::Duration tick = absl::Milliseconds(5);
  absl::Duration lease_retry = absl::Seconds(1);
  // How often the leased pools are read for the tickets other replicas queued:
  // those numbered since the read before last (a queueing transaction that
  // straddles one read is seen by the next). Each read touches only the newest
  // end of the pool's index, not the entries that the tickets matched since the
  // last vacuum left behind.
  absl::Duration read_every = absl::Milliseconds(50);
  // How often they are read whole, which also drops tickets cancelled elsewhere
  // (one grouped meanwhile fails its claim, and the pool is read whole at once).
  absl::Duration full_read_every = absl::Seconds(1);
  v1::Clocks clocks;  // for the tables it creates; zero: the table service's
  int placers = 4;  // batches placed and committed at once
  // How long a placement whose table may exist is asked for again before its
  // tickets go back to the queue (and the table, if made, is voided).
  absl::Duration give_up_placing = absl::Minutes(2);
  absl::Duration stage_log_every;  // 0: off (stage_log.h)
  const SeatTokens* seat_tokens = nullptr;  // the seats' tokens (required)
  // Checks the holds of a staked table's tickets before the table is made (null:
  // not checked). A table with a seat whose hold is gone or unchecked is not
  // made: its tickets go back to the queue, and `end_unheld` ends those whose hold
  // is gone. A table that may have been made already (asked again) is not held up.
  std::function<HoldCheck(const std::vector<std::string>& ticket_ids)> check_holds;
  std::function<void(const std::vector<std::string>& ticket_ids)> end_unheld;
};

class Matcher {
 public:
  // A bot account with room for one more table of `ask.mode` and not among
  // `ask.taken` (the table's other bots), the nearest `ask.near_rating` (the
  // table's human players' mean rating), or nullopt: the table's autopilot plays
  // the seat.
  using ReserveBot = std::function<std::optional<BotSeat>(const BotAsk& ask)>;
  // Committed assignments (players' and bots'), for delivery.
  using OnAssigned = std::function<void(const std::vector<AssignmentRow>&)>;

  Matcher(MatcherOptions options, TableClient* placement, ReserveBot reserve_bot,
          OnAssigned on_assigned, prometheus::Registry* registry);
  ~Matcher();

  void Start();
  void Stop();
  // Tickets this replica just admitted (committed), and tickets it just cancelled
  // or superseded: taken in at the next tick instead of waiting for the periodic
  // read of the pools, which finds other replicas' tickets.
  void Offer(const std::vector<TicketRow>& rows);
  void Withdraw(const std::vector<std::string>& ticket_ids);
  // Pools this replica matches now, for tests.
  std::vector<std::string> LeasedPools() const;
  // Waiting players per pool as last seen by this replica's leased pools.
  int Waiting(const std::string& pool) const;

  // What a batch of placements comes to, for the commit of their seats.
  using Placements = PlacementOutcome;

 private:
  struct PoolState {
    const PoolSpec* spec;
    PoolTickets tickets;  // who is waiting, and who plays whom
    prometheus::Gauge* waiting = nullptr;
    prometheus::Histogram* wait = nullptr;
  };
  // One table to create: its placement (request and seats) and how it fares.
  struct Job : PlannedTable {
    prometheus::Histogram* wait = nullptr;
    std::vector<absl::Time> queued;
    absl::Time unanswered_since = absl::InfinitePast();  // its first lost answer
    bool asked = false;  // its CreateTable was sent: its table may exist
  };
  struct Batch {
    std::vector<Job> jobs;
    // When a tick grouped it, and when it was claimed and queued (stage_log.h).
    absl::Time seen, claimed, enqueued;
    int retries = 0;  // times it was placed before, unfinished
    bool recovered = false;  // a previous holder's placements: tables may exist
    absl::Time due;   // placed again (retries > 0) from then on
  };
  static constexpr size_t kMaxBatchesQueued = 8;
  // A claim's tables go to the placers in batches of at most this many, so that
  // the first tables of a big claim are committed and sent while the rest are
  // still being created.
  static constexpr size_t kTablesPerBatch = 12;
  void Run();
  void PlaceLoop();
  // The next batch due for a placer, or nullopt once stopped and drained.
  std::optional<Batch> NextBatch();
  // Places the batch and commits what it can. Returns what is to be placed again:
  // every job when the seats could not be committed (the database is away), else
  // the jobs whose tables may have been made without an answer and the staked
  // ones whose holds could not be checked. Their placements stay recorded.
  std::vector<Job> Place(Batch& batch);
  // Creates the batch's tables, one answer per job. A staked job never asked for
  // is not: one with a seat whose hold is gone gets FAILED_PRECONDITION (its
  // tickets go back to the queue; those whose hold is gone in `gone`), one whose
  // holds could not be checked is held back (`held_back`: placed again later).
  std::vector<Placed> CreateHeldTables(Batch& batch, std::set<std::string>& gone,
                                       std::set<size_t>& held_back);
  // The tickets of the batch's staked jobs never asked for (nor recovered from a
  // previous holder of the pool).
  std::vector<std::string> StakedTickets(const Batch& batch) const;
  // Place's steps: what each CreateTable answer comes to (the jobs that may have
  // made a table unanswered in `unanswered`), the commit (the placements this
  // matcher finished, or why nothing was committed), the streams told and the
  // stages logged.
  Placements Sort(Batch& batch, const std::vector<Placed>& placed, absl::Time created_at,
                  const std::set<size_t>& held_back,
                  std::vector<size_t>& unanswered);
  absl::StatusOr<std::set<std::string>> Commit(const Placements& p);
  void Deliver(const Batch& batch, const std::vector<Placed>& placed, Placements& p,
               const std::set<std::string>& mine, absl::Time now);
  void LogStages(const Batch& batch, absl::Time started, absl::Time created_at,
                 absl::Time committed);
  // Whether a job whose CreateTable failed with `failure` is to be asked for again.
  bool AskAgain(Job& job, const absl::Status& failure, absl::Time now);
  // Queues `batch` for the placers (at most kMaxBatchesQueued wait).
  void Enqueue(Batch batch);
  // Keeps the unfinished `jobs` for the placers after a backoff (no wait here).
  void PlaceLater(std::vector<Job> jobs, int retries);
  // The jobs as the store records them.
  static PlannedTables TablesOf(const std::vector<Job>& jobs);
  // The group's table request and seats (bots reserved).
  Job MakeJob(const PoolState& state, const Group& group);
  // Claims what is still waiting and keeps the groups that stayed whole (`batch`);
  // returns whether any claimed ticket went back to the queue.
  bool ClaimEach(std::vector<std::pair<PoolState*, Group>>& groups, Batch* batch);
  // In ClaimEach's transaction: a job for each group whose tickets were all
  // `claimed` (into `batch`), and the claimed tickets of the others to put back.
  ClaimPlan WholeGroups(std::vector<std::pair<PoolState*, Group>>& groups,
                        const std::set<std::string>& claimed, Batch& batch);
  // The placements a previous holder of `state`'s pool left unfinished, as jobs.
  std::vector<Job> UnfinishedPlacements(std::vector<PlannedTable> tables,
                                        const PoolState& state) const;
  void Connect();
  void TryLeases();
  // One tick: returns whether anything was grouped.
  bool Tick();
  // Reads the leased pools' waiting tickets: all of them (whole), or the newest.
  void ReadPools(bool whole);
  void TakeInbox();
  // Returns whether any grouped ticket went back to the queue.
  bool PlaceAndCommit(std::vector<std::pair<PoolState*, Group>>& groups, absl::Time seen);
  v1::CreateTableRequest TableRequest(const PoolState& state, const Group& group,
                                      std::vector<AssignmentRow>* seats);

  const MatcherOptions options_;
  TableClient* const placement_;
  ReserveBot reserve_bot_;
  OnAssigned on_assigned_;
  std::unique_ptr<PoolSession> session_;  // its leases live as long as it does
  std::map<std::string, PoolState> leased_;  // matcher thread only
  absl::Time last_lease_try_ = absl::InfinitePast();
  absl::Time last_full_read_ = absl::InfinitePast();
  absl::Time last_read_ = absl::InfinitePast();
  // The ticket sequence's last number at the last read and the one before.
  int64_t numbered_last_read_ = 0;
  int64_t numbered_read_before_ = 0;
  // Waits up to a tick for tickets offered meanwhile.
  void AwaitOffers();
  std::mutex inbox_mu_;
  std::condition_variable inbox_cv_;
  std::vector<TicketRow> offered_;
  std::vector<std::string> withdrawn_;
  mutable std::mutex published_mu_;
  std::map<std::string, int> published_waiting_;  // for Waiting()/LeasedPools()
  std::atomic<bool> stop_{false};
  std::atomic<bool> reread_{false};  // a placer put tickets back
  std::thread thread_;
  std::mutex batches_mu_;
  std::condition_variable batches_cv_;
  std::deque<Batch> batches_;
  std::vector<Batch> later_;  // to be placed again at their `due`
  bool placers_stop_ = false;
  std::vector<std::thread> placers_;

  StageLog stages_;
  prometheus::Family<prometheus::Gauge>* waiting_family_ = nullptr;
  prometheus::Family<prometheus::Histogram>* wait_family_ = nullptr;
  prometheus::Counter* matches_ = nullptr;
  prometheus::Counter* bot_fills_ = nullptr;
  prometheus::Counter* placement_failures_ = nullptr;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_MATCHER_H_
