#include <utility>

#include "services/table/table_store.h"

namespace trix::table {
namespace {

class PostgresStore final : public TableStore {
 public:
  explicit PostgresStore(storage::GameStore* store) : store_(store) {}

  absl::Status CheckReady() override { return store_->CheckReady(); }
  absl::Status CreateGame(const storage::NewGame& game,
                          std::string* existing_game_id) override {
    return store_->CreateGame(game, existing_game_id);
  }
  void Append(storage::AppendRequest request,
              std::function<void(absl::Status)> done) override {
    store_->Append(std::move(request), std::move(done));
  }
  bool MayContinueOnAppendThread() override { return !store_->appends_queued(); }
  absl::StatusOr<storage::StoredGame> LoadGame(const std::string& game_id) override {
    return store_->LoadGame(game_id);
  }
  absl::Status RenewLeases(absl::Duration ttl) override {
    return store_->RenewLeases(ttl);
  }
  absl::StatusOr<std::vector<std::string>> ClaimOrphans(absl::Duration ttl,
                                                        int limit) override {
    return store_->ClaimOrphans(ttl, limit);
  }
  absl::Status ReleaseLease(const std::string& game_id) override {
    return store_->ReleaseLease(game_id);
  }
  absl::StatusOr<std::vector<storage::GameListing>> ListActive(
      const std::string& player_id) override {
    return store_->ListActive(player_id);
  }
  absl::StatusOr<std::vector<storage::GameListing>> ListFinished(
      const std::string& player_id, int limit, const std::string& before) override {
    return store_->ListFinished(player_id, limit, before);
  }

 private:
  storage::GameStore* const store_;
};

}  // namespace

std::unique_ptr<TableStore> PostgresTableStore(storage::GameStore* store) {
  return std::make_unique<PostgresStore>(store);
}

}  // namespace trix::table
