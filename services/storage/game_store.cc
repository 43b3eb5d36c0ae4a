#include "services/storage/game_store.h"

#include <algorithm>
#include <future>
#include <mutex>
#include <pqxx/nontransaction>
#include <pqxx/result>
#include <pqxx/transaction>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/storage/game_store_impl.h"
#include "services/storage/game_store_sql.h"
#include "services/storage/migrations.h"
#include "services/storage/pg_array.h"

namespace trix::storage {
namespace {

std::string Bytes(const pqxx::field& field) { return pqxx::binarystring(field).str(); }

}  // namespace

GameStore::GameStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GameStore::~GameStore() = default;

absl::StatusOr<std::unique_ptr<GameStore>> GameStore::Open(const StoreOptions& options) {
  if (options.url.empty()) return absl::InvalidArgumentError("no database url");
  if (options.instance_id.empty()) return absl::InvalidArgumentError("no instance id");
  if (options.connections < 1 || options.max_batch < 1) {
    return absl::InvalidArgumentError("connections and max_batch must be at least 1");
  }
  if (options.lease_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("lease_ttl must be positive");
  }
  absl::StatusOr<std::string> url = ConnectionUrl(options.url);
  if (!url.ok()) return url.status();
  StoreOptions checked = options;
  checked.url = *std::move(url);
  return std::unique_ptr<GameStore>(new GameStore(std::make_unique<Impl>(checked)));
}

absl::Status GameStore::Migrate(const std::string& migrations_dir) {
  absl::StatusOr<std::vector<Migration>> migrations = ReadMigrations(migrations_dir);
  if (!migrations.ok()) return migrations.status();
  {
    // Recorded before applying: after a failed run, CheckReady() must say so.
    std::vector<int64_t> versions;
    for (const Migration& m : *migrations) versions.push_back(m.version);
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->migrated = std::move(versions);
  }
  return impl_->pool.Run(
      "migrating", [&](pqxx::connection& c) { return ApplyMigrations(c, *migrations); });
}

absl::Status GameStore::CheckReady() {
  std::optional<std::vector<int64_t>> expected;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    expected = impl_->migrated;
  }
  return impl_->pool.Run("checking readiness", [&](pqxx::connection& c) {
    const std::vector<int64_t> applied = AppliedVersions(c);
    // Without a Migrate() in this process (a one-shot migrate job ran it), any
    // recorded migration will do; with one, each of its versions must be there.
    if (!expected.has_value()) {
      return applied.empty() ? absl::FailedPreconditionError("no migration applied")
                             : absl::OkStatus();
    }
    for (int64_t version : *expected) {
      if (!std::binary_search(applied.begin(), applied.end(), version)) {
        return absl::FailedPreconditionError(
            absl::StrCat("migration ", version, " is not applied"));
      }
    }
    return absl::OkStatus();
  });
}

absl::Status GameStore::CreateGame(const NewGame& game, std::string* existing_game_id) {
  if (game.game_id.empty()) return absl::InvalidArgumentError("a game needs an id");
  if (existing_game_id != nullptr) existing_game_id->clear();
  PgArray seats(PgType::kInt2), players(PgType::kText), names(PgType::kText),
      bots(PgType::kBool), stakes(PgType::kInt8), hashes(PgType::kText);
  for (int seat = 0; seat < 4; ++seat) {
    const SeatRecord& record = game.seats[seat];
    seats.AddInt(seat);
    players.AddString(record.player_id);
    names.AddString(record.display_name);
    bots.AddBool(record.bot);
    stakes.AddInt(record.stake);
    hashes.AddString(record.token_hash);
  }
  return impl_->pool.Run("creating a game", [&](pqxx::connection& c) {
    // One statement, committed on its own: one round trip per game.
    pqxx::nontransaction tx(c);
    const pqxx::result inserted = tx.exec_params(
        sql::kInsertGame, game.game_id, game.request_id, game.mode,
        pqxx::binarystring(game.config), impl_->options.instance_id,
        absl::ToInt64Microseconds(impl_->options.lease_ttl), seats.Finish(),
        players.Finish(), names.Finish(), bots.Finish(), stakes.Finish(), hashes.Finish());
    if (!inserted.empty()) return absl::OkStatus();
    // ON CONFLICT DO NOTHING: the request id (or, astronomically rarely, the game
    // id) is taken. The clashing row is committed by now: the insert waited.
    const pqxx::result existing =
        tx.exec_params("SELECT id FROM games WHERE request_id = $1", game.request_id);
    if (existing.empty()) {
      return absl::AlreadyExistsError(absl::StrCat("game id ", game.game_id, " is taken"));
    }
    const std::string id = existing[0][0].as<std::string>();
    if (existing_game_id != nullptr) *existing_game_id = id;
    return absl::AlreadyExistsError(
        absl::StrCat("request ", game.request_id, " already created game ", id));
  });
}

void GameStore::Append(AppendRequest request, std::function<void(absl::Status)> done) {
  impl_->writer.Append(std::move(request), std::move(done));
}

absl::Status GameStore::AppendSync(AppendRequest request) {
  std::promise<absl::Status> promise;
  std::future<absl::Status> result = promise.get_future();
  Append(std::move(request),
         [&promise](absl::Status s) { promise.set_value(std::move(s)); });
  return result.get();
}

AppendStats GameStore::append_stats() const { return impl_->writer.stats(); }

bool GameStore::appends_queued() const { return impl_->writer.busy(); }

absl::StatusOr<StoredGame> GameStore::LoadGame(const std::string& game_id) {
  StoredGame stored;
  absl::Status status = impl_->pool.Run("loading a game", [&](pqxx::connection& c) {
    // One snapshot for the three reads: a concurrent append shows in all or none.
    pqxx::transaction<pqxx::repeatable_read, pqxx::read_only> tx(c);
    const pqxx::result games = tx.exec_params(sql::kSelectGame, game_id);
    if (games.empty())
      return absl::NotFoundError(absl::StrCat("game ", game_id, " not found"));
    const pqxx::row g = games[0];
    stored.game.game_id = game_id;
    stored.game.request_id = g[0].is_null() ? "" : g[0].as<std::string>();
    stored.game.mode = g[1].as<std::string>();
    stored.game.config = Bytes(g[2]);
    stored.created = absl::FromUnixMicros(g[3].as<int64_t>());
    if (!g[4].is_null()) stored.deadline = absl::FromUnixMicros(g[4].as<int64_t>());
    stored.finished = !g[5].is_null();
    if (stored.finished) stored.result = g[5].as<std::string>();

    const pqxx::result seats = tx.exec_params(sql::kSelectSeats, game_id);
    if (seats.size() != 4) {
      return absl::DataLossError(
          absl::StrCat("game ", game_id, " has ", seats.size(), " seats stored"));
    }
    for (const pqxx::row& row : seats) {
      const int seat = row[0].as<int>();
      if (seat < 0 || seat > 3) {
        return absl::DataLossError(absl::StrCat("game ", game_id, " has seat ", seat));
      }
      SeatRecord& record = stored.game.seats[seat];
      record.player_id = row[1].as<std::string>();
      record.display_name = row[2].as<std::string>();
      record.bot = row[3].as<bool>();
      record.stake = row[4].as<int64_t>();
      record.token_hash = row[5].as<std::string>();
    }

    const pqxx::result log = tx.exec_params(sql::kSelectLog, game_id);
    stored.entries.reserve(log.size());
    for (const pqxx::row& row : log) {
      LogEntry entry;
      entry.index = row[0].as<int64_t>();
      if (entry.index != static_cast<int64_t>(stored.entries.size())) {
        return absl::DataLossError(
            absl::StrCat("game ", game_id, " misses log entry ", stored.entries.size()));
      }
      entry.seat = row[1].as<int>();
      entry.request_id = row[2].as<std::string>();
      entry.payload = Bytes(row[3]);
      entry.response = Bytes(row[4]);
      entry.time = absl::FromUnixMicros(row[5].as<int64_t>());
      stored.entries.push_back(std::move(entry));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return stored;
}

}  // namespace trix::storage
