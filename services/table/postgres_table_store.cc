// PostgresTableStore (table_store.h): the host's store over GameStore and the
// instance registry.
#include <utility>

#include "services/table/table_store.h"

namespace trix::table {
namespace {

class PostgresStore final : public TableStore {
 public:
  PostgresStore(table::GameStore* store, table::InstanceRegistry* registry,
                table::GameStore* history)
      : store_(store), registry_(registry), history_(history) {}

  absl::Status CheckReady() override { return store_->CheckReady(); }
  absl::Status CreateGame(const NewGame& game,
                          std::string* existing_game_id) override {
    return store_->CreateGame(game, existing_game_id);
  }
  void Append(AppendRequest request,
              std::function<void(absl::Status)> done) override {
    store_->Append(std::move(request), std::move(done));
  }
  // The writer's thread is shared by every table: the host runs a table's work
  // there only while few other appends wait for it.
  bool MayContinueOnAppendThread() override { return true; }
  absl::StatusOr<std::vector<absl::StatusOr<StoredGame>>> LoadGames(
      const std::vector<std::string>& game_ids) override {
    return store_->LoadGames(game_ids);
  }
  absl::StatusOr<StoredGame> LoadGame(const std::string& game_id) override {
    return store_->LoadGame(game_id);
  }
  absl::StatusOr<StoredGame> LoadRecord(const std::string& game_id) override {
    return history_->LoadGame(game_id);
  }
  absl::StatusOr<std::vector<std::string>> RenewHosted(
      absl::Duration ttl, const std::vector<std::string>& hosted) override {
    return store_->RenewHosted(ttl, hosted);
  }
  absl::StatusOr<bool> ClaimTable(const std::string& game_id,
                                  absl::Duration ttl) override {
    return store_->ClaimTable(game_id, ttl);
  }
  absl::StatusOr<std::vector<std::string>> ClaimPreviousRuns(
      const std::string& name, absl::Duration ttl) override {
    // The earlier runs' registry rows go only once their tables are ours: a failed
    // claim leaves the registry as it was.
    absl::StatusOr<std::vector<std::string>> claimed =
        store_->ClaimPreviousRuns(name, ttl);
    if (claimed.ok()) registry_->ForgetPreviousRuns(name).IgnoreError();
    return claimed;
  }
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> LogLengths(
      const std::vector<std::string>& game_ids) override {
    return store_->LogLengths(game_ids);
  }
  absl::Status MarkBroken(const std::string& game_id,
                          const std::string& reason) override {
    return store_->MarkBroken(game_id, reason);
  }
  absl::Status VoidQuarantined(const AppendRequest& request) override {
    return store_->VoidQuarantined(request);
  }
  absl::Status Heartbeat(const table::InstanceState& state) override {
    return registry_->Heartbeat(state);
  }
  absl::StatusOr<table::TableHome> Locate(const std::string& game_id) override {
    return registry_->Locate(game_id);
  }
  absl::StatusOr<std::vector<std::string>> ClaimOrphans(absl::Duration ttl,
                                                        int limit) override {
    return store_->ClaimOrphans(ttl, limit);
  }
  absl::Status ReleaseLease(const std::string& game_id) override {
    return store_->ReleaseLease(game_id);
  }
  absl::Status ReleaseLeases(const std::vector<std::string>& game_ids) override {
    return store_->ReleaseLeases(game_ids);
  }
  absl::StatusOr<std::vector<GameListing>> ListActive(
      const std::string& player_id) override {
    return store_->ListActive(player_id);
  }
  absl::StatusOr<std::vector<GameListing>> ListFinished(
      const std::string& player_id, int limit, const std::string& before) override {
    return history_->ListFinished(player_id, limit, before);
  }

 private:
  table::GameStore* const store_;
  table::InstanceRegistry* const registry_;
  table::GameStore* const history_;  // store_, or a standby's
};

}  // namespace

std::unique_ptr<TableStore> PostgresTableStore(table::GameStore* store,
                                               table::InstanceRegistry* registry,
                                               table::GameStore* history) {
  return std::make_unique<PostgresStore>(store, registry,
                                         history != nullptr ? history : store);
}

}  // namespace trix::table
