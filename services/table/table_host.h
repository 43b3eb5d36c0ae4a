// The table service's logic: hosts many tables in one process, with no knowledge
// of gRPC (the wiring is grpc_service.h). Its parts: each table's Strand
// (strand.h) in its Slot (slot.h), the Committer that writes and reads the
// tables' logs (committer.h), the Fleet that keeps the instance's lease,
// claims and registry entry (fleet.h), and the Adoptions that bound the tables
// looked up for calls and remember the ids found unknown (adoptions.h). It owns
//   - the tables, each behind its own strand: the table's commands (an action, a
//     clock that ran out, a new subscriber) run strictly one after another, and a
//     command that changed the table holds the strand until its log entries are
//     durable, so nothing is broadcast or answered before it is written, and the
//     next action is judged on durable state. Different tables never wait for each
//     other: strands run on a small worker pool and appends are group-committed by
//     the store without holding any thread;
//   - the clocks (one DeadlineTimer for all tables);
//   - the streams (UpdateSink), fed after each durable append with one update per
//     viewer: exactly the events it may see, and a seat's prompt;
//   - recovery: at start it takes back the tables of its own previous runs and
//     those whose lease lapsed, before it reports SERVING; then periodically it
//     claims lapsed tables in bounded batches, rebuilds them from their logs and
//     resumes their clocks (a call that adopts a free table starts a round at
//     once; a call for a table a round claimed waits for its load, up to
//     load_wait). It renews its instance lease, which keeps every table
//     it owns, and releases each table it stops hosting (table_host_fleet.cc);
//   - the fleet: it registers itself (address, capacity, live tables, heartbeat)
//     so that any instance can say where a table lives. A call for a table it does
//     not host adopts the table on the spot when nobody holds its lease, or answers
//     UNAVAILABLE with the table's location (refusals.h). An instance that may have
//     missed renewing its leases (paused, clock jump, database away) revalidates
//     them before it serves anything from a table;
//   - quarantine: a table whose log does not replay, or whose server-side moves
//     break an engine invariant, is marked broken in the store and closed with
//     FAILED_PRECONDITION "table quarantined: ..."; every other table plays on.
//
// If an append fails, the table is rebuilt from the store before its next command,
// so memory never runs ahead of the log (the failed action is answered UNAVAILABLE
// and may be retried with the same request id). An append refused because the log
// is shorter than acknowledged (DATA_LOSS: an asynchronous failover lost commits)
// rebuilds the table at once, counts the rewind (trix_table_log_rewinds_total) and
// sends every open stream a fresh snapshot of the table as stored. A table that
// appends nothing more (ended here, or waiting on a seat) is found by comparing
// every hosted table's stored log with what it acknowledged once the database
// answers again after it was away or refused an append.
//
//   TableHost host(options, store.get(), &registry);
//   host.Start();
//   host.Act(request, [](absl::StatusOr<v1::ActResponse> r) { ... });
//   host.Shutdown();
#ifndef TRIX_SERVICES_TABLE_TABLE_HOST_H_
#define TRIX_SERVICES_TABLE_TABLE_HOST_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "prometheus/registry.h"
#include "services/table/adoptions.h"
#include "services/table/committer.h"
#include "services/table/deadline_timer.h"
#include "services/table/fleet.h"
#include "services/table/host_metrics.h"
#include "services/table/table.h"
#include "services/table/table_store.h"
#include "services/table/update_sink.h"
#include "services/table/worker_pool.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

struct HostOptions {
  // This process's name as a lease owner and in the instance registry. It differs
  // between two runs of the same instance (main appends a boot id), so that a
  // restarted process can tell its previous run's leases from its own.
  std::string instance_id = "table-0";
  // The instance's name without the boot id ("table-0" of "table-0#3f2a"): at start
  // it takes back the tables of its previous runs at once. Empty: it does not.
  std::string instance_name;
  // host:port that clients dial to reach this instance (the registry's address);
  // may be set later, with Advertise(), once the listening port is known.
  std::string advertise_address;
  // Used for every clock a CreateTable request leaves at zero.
  int default_contract_ms = 30000;
  int default_doubling_ms = 20000;
  int default_card_ms = 20000;
  int max_clock_ms = 3600000;
  // The lease a table is held under, as the store takes it at CreateGame.
  absl::Duration lease_ttl = table::StoreOptions().lease_ttl;
  // How often leases are renewed and orphans claimed (a third of the ttl is safe).
  absl::Duration maintenance_every = absl::Seconds(5);
  // Lapsed tables claimed per maintenance round at most (rounds are jittered), so
  // that after a long outage instances share the tables instead of stampeding.
  int claim_batch = 200;
  // The first round that finds lapsed tables after one that found none (an
  // instance died) claims up to this share of the instance's room (max_tables
  // minus the tables it hosts) rather than claim_batch: an instance with more room
  // takes more of the dead one's tables at once, and leaves the rest to the
  // others' rounds. Zero: every round claims claim_batch.
  double claim_room_share = 0.5;
  // A call for a table a claim round claimed and is still loading waits for it
  // this long at most, on no thread, rather than be refused; past it, UNAVAILABLE
  // "retry". Zero: refused at once.
  absl::Duration load_wait = absl::Seconds(2);
  // Start() waits this long at most for the tables it claimed to load.
  absl::Duration adopt_timeout = absl::Seconds(30);
  int worker_threads = 2;
  int io_threads = 4;
  // Bounds, each answered at once when reached (docs in README, "Bounds"): the
  // commands waiting on one table (RESOURCE_EXHAUSTED: that table is flooded), and
  // the database reads waiting for an io thread (UNAVAILABLE: retry shortly).
  size_t max_table_commands = 64;
  // Spectator streams (Watch) open on one table at most; one more is
  // RESOURCE_EXHAUSTED. A seat's streams are not counted: each seat has one.
  // Zero: no limit.
  size_t max_spectators_per_table = 256;
  size_t max_queued_reads = 1024;
  // Tables being loaded at once for calls that named a table this instance does
  // not host (adoption on the spot, or NOT_FOUND for an id the database does not
  // know), so that a flood of made-up ids costs at most this many lookups at a
  // time. A call past them waits, in order, for one to end (up to load_wait; at
  // a failover every seat of a dead instance's tables asks at once), while up to
  // max_waiting_adoptions tables wait; past those it is UNAVAILABLE "retry in a
  // second".
  size_t max_adoptions = 64;
  size_t max_waiting_adoptions = 1024;
  // An id the database does not know is remembered this long (for at most
  // max_unknown_tables ids), so that repeated calls for it are answered NOT_FOUND
  // without a lookup each. Table ids are random (CreateTable draws a UUID), so an
  // id that was looked up and not found becomes a table only if its creator drew
  // that very id; the short memory bounds even that. A table created here is
  // forgotten as unknown at once. Zero: every call looks up.
  absl::Duration unknown_table_memory = absl::Seconds(2);
  size_t max_unknown_tables = 10000;
  int max_tables = 20000;
  // CreateTable refuses a stake above this (whole units; at most engine::kMaxStake).
  int64_t max_stake = engine::kMaxStake;
  // A finished table stays in memory this long for late subscribers.
  absl::Duration finished_linger = absl::Minutes(2);
  // How long a CreateTable answer (with its seat tokens) is kept for retries.
  absl::Duration create_answer_memory = absl::Minutes(10);
  // Shutdown waits this long at most for appends in flight.
  absl::Duration drain_timeout = absl::Seconds(10);
};

template <typename T>
using Reply = std::function<void(absl::StatusOr<T>)>;

// The answer to an action, with `broadcast_follows` true when the action was
// applied just now: the reply then runs on the table's strand right before the
// step's updates are sent to its streams (UpdateSink::Send, then Flush), so that
// a Play stream can stage the answer to ride in the same update as the action's
// events. False for every other answer (an error, a repeated request_id), which
// nothing follows.
using ActReply =
    std::function<void(absl::StatusOr<v1::ActResponse> answer, bool broadcast_follows)>;

// The claimed tables an instance reads in one snapshot when it adopts them
// (TableHost::AdoptClaimed): a dead instance's thousands come back in batches of
// three statements rather than three transactions each.
inline constexpr size_t kLoadBatch = 100;

struct Slot;  // one hosted table and its strand (slot.h)

class TableHost {
 public:
  // `store` and `registry` must outlive the host.
  TableHost(HostOptions options, TableStore* store, prometheus::Registry* registry);
  ~TableHost();  // Shutdown()

  // Claims and resumes orphaned tables, then starts the clock and maintenance
  // threads. Until then every call answers UNAVAILABLE.
  absl::Status Start();
  // Drains: refuses new work, lets queued commands and appends finish (for up to
  // `drain_timeout`), ends every stream with UNAVAILABLE (clients resume elsewhere
  // with after_seq), and releases the leases so another instance can take the
  // tables at once.
  void Shutdown();
  bool serving() const { return started_.load() && !draining_.load(); }

  // Each reply runs exactly once, on some host thread; it must not block.
  void CreateTable(const v1::CreateTableRequest& request,
                   Reply<v1::CreateTableResponse> reply);
  void Act(v1::ActRequest request, Reply<v1::ActResponse> reply);
  // Act for a Play stream: the same judgement, answered through ActReply.
  void ActOnStream(v1::ActRequest request, ActReply reply);
  //
  // Spectating (GetTable, Subscribe as a spectator, GetGameRecord without a seat
  // token) of a table created without public_spectating is PERMISSION_DENIED
  // unless `trusted` (the edge says the caller is the trusted backend).
  void GetTable(const v1::GetTableRequest& request, Reply<v1::TableView> reply,
                bool trusted = true);
  // `seat_token` empty: a spectator (Watch). Errors end the sink.
  void Subscribe(const std::string& table_id, const std::string& seat_token,
                 bool spectator, uint64_t after_seq, std::shared_ptr<UpdateSink> sink,
                 bool trusted = true);
  void ListPlayerTables(const v1::ListPlayerTablesRequest& request,
                        Reply<v1::ListPlayerTablesResponse> reply);
  void ListPlayerGames(const v1::ListPlayerGamesRequest& request,
                       Reply<v1::ListPlayerGamesResponse> reply);
  void GetGameRecord(const v1::GetGameRecordRequest& request,
                     Reply<v1::GameRecord> reply, bool trusted = true);
  void LocateTable(const v1::LocateTableRequest& request, Reply<v1::TableLocation> reply);
  // Ends a table with no result (table_host_void.cc): durable before it is
  // answered (the log's last entry, the game's end and the voided outbox row in
  // one commit); then its streams get TableVoided and end OK, and Act is
  // FAILED_PRECONDITION "table voided: ...". A voided table again: the first
  // answer, already_voided. A finished one: FAILED_PRECONDITION.
  void VoidTable(const v1::VoidTableRequest& request, Reply<v1::VoidTableResponse> reply);

  // Called from the maintenance thread whenever the store's readiness changes
  // (the database went away or came back), for the health service.
  void SetReadinessListener(std::function<void(bool ready)> listener) {
    absl::MutexLock lock(&mu_);
    readiness_listener_ = std::move(listener);
  }

  // The seat `seat_token` is of at `table_id`, checked against a table hosted
  // here, from any thread (no strand): NOT_FOUND when the table is not hosted
  // here, PERMISSION_DENIED when the token is none of its seats'. For keying rate
  // limits on verified identities.
  absl::StatusOr<int> VerifySeat(const std::string& table_id,
                                 const std::string& seat_token) const;
  // The player sitting at the seat VerifySeat finds.
  absl::StatusOr<std::string> PlayerOfSeat(const std::string& table_id,
                                           const std::string& seat_token) const;

  // The address registered for this instance (before Start()).
  void Advertise(std::string address) {
    absl::MutexLock lock(&mu_);
    advertise_address_ = std::move(address);
  }

  // For tests and metrics.
  size_t table_count() const;
  HostMetrics& metrics() { return metrics_; }
  size_t pending_clocks() const { return timer_.pending(); }
  // Runs one maintenance round now (renew leases, heartbeat, claim orphans, drop
  // finished).
  void RunMaintenance();
  // Breaks a hosted table's invariant as a bug would (tests of quarantine).
  void BreakTableForTesting(const std::string& table_id, const std::string& reason);

 private:
  // A strand command. `status` is OK when slot.table is loaded, else why not.
  using Command = std::function<void(Slot& slot, const absl::Status& status)>;

  std::shared_ptr<Slot> FindSlot(const std::string& table_id) const;
  // Queues `command` on the table's strand. A `bounded` command (one a client
  // asked for) finds max_table_commands waiting: it runs at once, off the strand,
  // with RESOURCE_EXHAUSTED (commands only reply when their status is not OK).
  void Post(const std::shared_ptr<Slot>& slot, Command command, bool bounded = true);
  // Whether a command for a table being loaded (a claim round's, or a call's that
  // waits for an adoption) waits for it, on no thread, up to load_wait.
  bool MayHold() const;
  // Runs `read` on the io pool, or answers `refuse` with UNAVAILABLE when
  // max_queued_reads are waiting.
  void PostRead(std::function<void()> read,
                std::function<void(const absl::Status&)> refuse);
  // The table's slot; a placeholder that adopts the table if it is not hosted.
  // For a call (`for_call`), nullptr with the reason in `refused` when Adoptions
  // refuses it (the id was just found unknown, or max_adoptions placeholders are
  // loading and max_waiting_adoptions wait); one that waits holds its commands.
  std::shared_ptr<Slot> SlotFor(const std::string& table_id, bool for_call = false,
                                absl::Status* refused = nullptr);
  // A placeholder for a table this instance claimed and has read (`claimed`), which
  // it restores without asking the database again; the hosted slot if there is one.
  std::shared_ptr<Slot> ClaimedSlot(const std::string& table_id,
                                    absl::StatusOr<StoredGame> claimed);
  std::shared_ptr<Slot> NewPlaceholder(const std::string& table_id, bool for_call,
                                       bool awaiting_claim = false)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Publishes a placeholder for each claimed table not hosted yet, before the
  // claim round reads them: calls for them wait (Strand::HoldForLoad) instead of being
  // refused or claiming the table a second time.
  void AwaitClaimed(const std::vector<std::string>& table_ids);
  // Hands a placeholder that awaits its claim the table as read; its held
  // commands queue behind the load. False when the slot awaited nothing.
  bool DeliverClaimed(Slot& slot, absl::StatusOr<StoredGame>& claimed);
  // On the wait timer's thread: refuses the commands held past load_wait.
  void OnLoadWaitOver(const std::string& table_id);
  // Refuses with `status` the commands held on `slot` since `before` or earlier
  // (all of them: absl::InfiniteFuture()); answers when the oldest left came.
  absl::optional<absl::Time> RefuseHeld(Slot& slot, absl::Time before,
                                        const absl::Status& status);
  absl::Status LoadWaitOver(const std::string& table_id) const;
  // Claims lapsed and released tables (Fleet::ClaimRound) and adopts them.
  void ClaimRound();
  // A ClaimRound on the io pool now, unless one is under way.
  void ClaimRoundNow();
  // Runs the slot's strand (strand.h) on this thread.
  void Drain(std::shared_ptr<Slot> slot);
  // Strand work that starts an append or a reload suspends the strand
  // (Strand::Suspend); the operation's completion passes the rest of the work
  // here. `here`: the completing thread may run the continuation itself rather than
  // hand it to a worker.
  void Complete(const std::shared_ptr<Slot>& slot, std::function<void()> continuation,
                bool here = false);
  // Writes `step` and then runs `after` on the strand: OK once durable, else the
  // store's error (the table is then reloaded before its next command).
  void Commit(const std::shared_ptr<Slot>& slot, Step step,
              std::function<void(const absl::Status&)> after);
  // An append the store refused: the table is dropped from memory (reloaded by
  // the next command) and `after` told to retry, or the lease is lost.
  void CommitFailed(const std::shared_ptr<Slot>& slot, const absl::Status& status,
                    const std::function<void(const absl::Status&)>& after);
  void Broadcast(Slot& slot);
  // Drops the table from memory (it ran ahead of the log, or the log fell
  // behind it): the strand's next command reloads it from the store.
  void Unload(Slot& slot);
  // Compares every hosted table's stored log with what it acknowledged, after the
  // database was away or refused an append (Committer::TakeDoubt): a failover to a
  // replica that lacked the last commits rewinds tables that append nothing more
  // (ended here, or waiting on a seat) as well; each found shorter is rebuilt from
  // the log (Reload counts the rewind) and plays on.
  absl::Status CheckStoredLogs();
  // On the strand: the table acknowledged more than the log holds (`stored`).
  void RebuildRewound(const std::shared_ptr<Slot>& slot, int64_t stored);
  // Sends every stream a snapshot of the table as loaded (its streams had been
  // sent events the log no longer holds), and a seat its prompt.
  void SendSnapshots(Slot& slot);
  // Sets what other threads read of the table (its phase, whether it finished).
  void UpdateListing(Slot& slot);
  void ScheduleClock(Slot& slot);
  void OnClock(const std::string& table_id);
  // Posts a command that makes the server's due moves (deals, autopilot), after
  // scheduling the table's clock if `restart_clock` (a table just loaded).
  void PlayDueMoves(const std::shared_ptr<Slot>& slot, bool restart_clock);
  void Reload(std::shared_ptr<Slot> slot);
  // On the strand: stops hosting the table (its lease is gone or its log moved on
  // without us); streams end UNAVAILABLE and the lease is released for a reclaim.
  // `status` is what its streams end with and what later commands get.
  void Evict(Slot& slot, const absl::Status& status);
  void CloseStreams(Slot& slot, const absl::Status& status);
  // On the strand: starts a new stream of a viewer (Subscribe, Watch, Play). A
  // seat's new stream replaces its older one, which ends ABORTED.
  void OpenStream(Slot& slot, const std::string& seat_token, bool spectator,
                  uint64_t after_seq, const std::shared_ptr<UpdateSink>& sink,
                  bool trusted);
  // RESOURCE_EXHAUSTED when the table has max_spectators_per_table spectators.
  absl::Status RoomForSpectator(Slot& slot);
  // Ends `seat`'s current stream: a newer one takes its place.
  void ReplaceSeatStream(Slot& slot, int seat);
  // On the strand: the table broke an invariant; never again hosted anywhere
  // until an operator clears games.broken.
  void Quarantine(Slot& slot, const std::string& reason);
  // On the io pool: marks the table broken, which releases it; when the database
  // refuses, releases it (now or in maintenance) so that it does not stay ours.
  void MarkBroken(const std::string& table_id, const std::string& reason);
  void CountQuarantine(const std::string& table_id, const std::string& reason);
  // After an append was refused with "lease lost": UNAVAILABLE with the location.
  void LoseLease(const std::shared_ptr<Slot>& slot, const absl::Status& why,
                 std::function<void(const absl::Status&)> after);

  // The fleet (table_host_fleet.cc). On the io pool: locates, claims and loads a
  // placeholder's table.
  void AdoptOnCall(const std::shared_ptr<Slot>& slot);
  // On a worker: a placeholder whose table its claim round read (and read well)
  // replays it with no database call; one that does not replay is quarantined or
  // released on the io pool (NotRestored).
  void AdoptRead(const std::shared_ptr<Slot>& slot);
  // Either adoption's end: the table hosted, or the placeholder forgotten.
  void FinishAdoption(const std::shared_ptr<Slot>& slot,
                      absl::StatusOr<std::unique_ptr<Table>> table, bool here);
  // A call's adoption ended: the table that has waited longest for one starts
  // (Adoptions::StartWaiting), unless a claim round delivered it meanwhile.
  void StartWaitingAdoption();
  absl::StatusOr<std::unique_ptr<Table>> ClaimAndLoad(const std::string& table_id);
  absl::StatusOr<std::unique_ptr<Table>> LoadClaimed(const std::string& table_id);
  // A claimed table from what was read of it; on DATA_LOSS it is quarantined, on
  // any other error the claim is released.
  absl::StatusOr<std::unique_ptr<Table>> RestoreClaimed(
      const std::string& table_id, absl::StatusOr<StoredGame> stored);
  // RestoreClaimed's failure: quarantines or releases the table (store writes).
  absl::Status NotRestored(const std::string& table_id, const absl::Status& failure);
  void Adopted(const std::shared_ptr<Slot>& slot, std::unique_ptr<Table> table);
  void Forget(Slot& slot, const absl::Status& status);
  // Runs `then` once the leases are known to be fresh (at once, usually), or with
  // UNAVAILABLE when they cannot be confirmed.
  void WhenFresh(std::function<void(const absl::Status&)> then);
  // Renews the instance's lease (Fleet::Renew); after a lapse, the hosted tables
  // claimed meanwhile are evicted with their location. `refresh`: for a call that
  // found the leases stale (Fleet::Refresh), OK when they are fresh now.
  absl::Status RenewHosted(bool refresh);
  // The live tables hosted under this instance's lease.
  std::vector<std::shared_ptr<Slot>> LiveHosted() const;
  // A hosted table's lease was not renewed: its streams end with its location.
  void LostLease(const std::shared_ptr<Slot>& slot);
  void Heartbeat();
  // Claims and loads this instance's previous runs' tables and the lapsed ones
  // before Start() returns.
  void AdoptAtStart();
  void Touch(const std::shared_ptr<Slot>& slot, std::function<void()> loaded);

  // Recovery.
  // Adopts tables this instance claimed: reads them kLoadBatch at a time on the io
  // pool (one snapshot, three statements a batch) and restores each in its slot;
  // `loaded` runs once per table when its slot has loaded it, or failed to.
  void AdoptClaimed(const std::vector<std::string>& table_ids,
                    std::function<void()> loaded);
  // Drops the finished tables that lingered their time, and expired answers and
  // unknown ids; returns the tables dropped.
  std::vector<std::string> DropExpired();
  absl::Status AddSlot(std::unique_ptr<Table> table, std::shared_ptr<Slot>* out);
  void MaintenanceLoop();

  absl::Status ResolveSettings(const v1::CreateTableRequest& request,
                               v1::internal::TableSettings* settings) const;
  absl::Status CheckCreate(const v1::CreateTableRequest& request) const;
  void CreateStored(v1::CreateTableRequest request, NewGame game,
                    std::unique_ptr<Table> table, v1::CreateTableResponse response,
                    Reply<v1::CreateTableResponse> reply);
  // A repeated CreateTable whose caller chose every seat token (and so proves it
  // created `existing`): the same table, answered from the database, when its
  // mode and seats (players, stakes) are the request's; ALREADY_EXISTS when not.
  bool AnswerByTokens(const std::string& existing, const v1::CreateTableRequest& request,
                      const v1::CreateTableResponse& asked,
                      Reply<v1::CreateTableResponse>& reply);
  // Answers a repeated CreateTable from memory: the table when the request is the
  // same as the first, ALREADY_EXISTS when it differs; false when not remembered.
  bool AnswerRepeat(const v1::CreateTableRequest& request, Reply<v1::CreateTableResponse>& reply);
  // On the strand: voids the hosted table and commits it.
  void VoidHosted(const std::shared_ptr<Slot>& slot, const std::string& reason,
                  const Reply<v1::VoidTableResponse>& reply);
  // On the io pool: voids a quarantined table in the store, without rebuilding it.
  void VoidQuarantined(const std::string& table_id, const std::string& reason,
                       const Reply<v1::VoidTableResponse>& reply);
  // On the strand: judges a seat's action and commits it.
  void Judge(const std::shared_ptr<Slot>& slot, const v1::ActRequest& request,
             const ActReply& reply);
  // A spectator's view read from the log (a table not hosted here); `trusted`
  // as for GetTable.
  void ViewFromStore(const std::string& table_id, Reply<v1::TableView> reply,
                     bool trusted);
  absl::Status Available() const;

  const HostOptions options_;
  TableStore* const store_;
  HostMetrics metrics_;
  // Writes the tables' logs and reads them back; the strand waits (Commit).
  Committer committer_;
  // The instance's leases, claims, owed releases and registry entry.
  Fleet fleet_;
  // Calls' adoptions loading and waiting, and the ids found unknown. Its lock is
  // taken inside mu_, never the other way round.
  Adoptions adoptions_;
  WorkerPool workers_;
  WorkerPool io_;
  DeadlineTimer timer_;
  // When the first command held on a loading placeholder has waited load_wait.
  DeadlineTimer load_waits_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
  struct CreateAnswer {
    v1::CreateTableRequest request;
    v1::CreateTableResponse response;
    absl::Time expires;
  };
  absl::flat_hash_map<std::string, CreateAnswer> create_answers_ ABSL_GUARDED_BY(mu_);

  std::function<void(bool)> readiness_listener_ ABSL_GUARDED_BY(mu_);
  std::string advertise_address_ ABSL_GUARDED_BY(mu_);
  bool store_ready_ = true;  // maintenance thread only
  std::atomic<bool> claim_round_running_{false};  // ClaimRoundNow
  std::atomic<bool> started_{false};
  std::atomic<bool> draining_{false};
  absl::Notification stop_maintenance_;
  std::thread maintenance_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_TABLE_HOST_H_
