// An in-memory TableStore for tests of the table logic, with the store's contract
// (dense logs, leases, idempotent request ids, results on the last append) and
// knobs to make it misbehave: fail the next appends, or hold appends until the test
// releases them (to see that nothing is streamed or answered before "durable").
//
// Several MemoryStores can share one MemoryDatabase, each with its own instance id,
// to test two instances and lease takeover. Leases behave as PostgreSQL's
// (migrations/0034): a renewal keeps every game the instance owns, hosted or not,
// until it is released or its lease lapses and another instance claims it.
//
//   auto db = std::make_shared<MemoryDatabase>();
//   MemoryStore store(db, "table-1");
//   store.FailNextAppends(1, absl::UnavailableError("disk on fire"));
#ifndef TRIX_SERVICES_TABLE_TESTING_MEMORY_STORE_H_
#define TRIX_SERVICES_TABLE_TESTING_MEMORY_STORE_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "services/table/table_store.h"

namespace trix::table {

struct MemoryDatabase {
  struct Game {
    StoredGame stored;
    std::string lease_owner;
    absl::Time lease_until;
    std::string broken;
    std::vector<std::string> outbox;  // the outbox rows written for the game
  };
  absl::Mutex mu;
  std::map<std::string, Game> games ABSL_GUARDED_BY(mu);
  std::map<std::string, std::string> request_ids ABSL_GUARDED_BY(mu);  // -> game id
  std::map<std::string, table::InstanceState> instances ABSL_GUARDED_BY(mu);
};

class MemoryStore final : public TableStore {
 public:
  MemoryStore(std::shared_ptr<MemoryDatabase> db, std::string instance_id,
              absl::Duration lease_ttl = absl::Seconds(30));
  ~MemoryStore() override;

  // Fault injection.
  void FailNextAppends(int count, absl::Status status);
  // While held, appends queue and are neither written nor answered.
  void HoldAppends(bool hold);
  size_t held_appends() const;
  void SetUnavailable(bool unavailable);  // every call fails UNAVAILABLE
  // The next `count` calls of `method` ("LoadGame", "LoadGames", "Locate", "ClaimTable",
  // "ReleaseLease", "MarkBroken") fail with `status`: a database error in the
  // middle of a load.
  void FailNextCalls(const std::string& method, int count, absl::Status status);
  // While held, calls of `method` wait (a slow database); `calls` counts the calls
  // of `method` that reached the store.
  void HoldCalls(const std::string& method, bool hold);
  int64_t calls(const std::string& method) const;
  // Answers each append inside Append() itself, before it returns (a store is
  // allowed to), instead of on the writer thread.
  void SetInlineAppends(bool inline_appends);
  int64_t appends() const;

  absl::Status CheckReady() override;
  absl::Status CreateGame(const NewGame& game,
                          std::string* existing_game_id) override;
  void Append(AppendRequest request,
              std::function<void(absl::Status)> done) override;
  absl::StatusOr<StoredGame> LoadGame(const std::string& game_id) override;
  absl::StatusOr<std::vector<absl::StatusOr<StoredGame>>> LoadGames(
      const std::vector<std::string>& game_ids) override;
  absl::StatusOr<std::vector<std::string>> RenewHosted(
      absl::Duration ttl, const std::vector<std::string>& hosted) override;
  absl::StatusOr<std::vector<std::string>> ClaimOrphans(absl::Duration ttl,
                                                        int limit) override;
  absl::StatusOr<bool> ClaimTable(const std::string& game_id,
                                  absl::Duration ttl) override;
  absl::StatusOr<std::vector<std::string>> ClaimPreviousRuns(const std::string& name,
                                                             absl::Duration ttl) override;
  absl::Status ReleaseLease(const std::string& game_id) override;
  absl::Status ReleaseLeases(const std::vector<std::string>& game_ids) override;
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> LogLengths(
      const std::vector<std::string>& game_ids) override;
  absl::Status MarkBroken(const std::string& game_id, const std::string& reason) override;
  absl::Status VoidQuarantined(const AppendRequest& request) override;
  absl::Status Heartbeat(const table::InstanceState& state) override;
  absl::StatusOr<table::TableHome> Locate(const std::string& game_id) override;
  absl::StatusOr<std::vector<GameListing>> ListActive(
      const std::string& player_id) override;
  absl::StatusOr<std::vector<GameListing>> ListFinished(
      const std::string& player_id, int limit, const std::string& before) override;

 private:
  // A stored game, or NOT_FOUND; the caller holds db_->mu.
  absl::StatusOr<StoredGame> Stored(const std::string& game_id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu);
  struct Pending {
    AppendRequest request;
    std::function<void(absl::Status)> done;
  };
  absl::Status Write(const AppendRequest& request);
  // The injected failure for this call of `method`, if any (FailNextCalls).
  absl::Status Injected(const std::string& method);
  void Writer();

  const std::shared_ptr<MemoryDatabase> db_;
  const std::string instance_id_;
  const absl::Duration lease_ttl_;

  mutable absl::Mutex mu_;
  std::deque<Pending> queue_ ABSL_GUARDED_BY(mu_);
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool unavailable_ ABSL_GUARDED_BY(mu_) = false;
  bool inline_ ABSL_GUARDED_BY(mu_) = false;
  int fail_count_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status fail_status_ ABSL_GUARDED_BY(mu_);
  int64_t appends_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::pair<int, absl::Status>> failing_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, bool> held_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> calls_ ABSL_GUARDED_BY(mu_);
  std::thread writer_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_TESTING_MEMORY_STORE_H_
