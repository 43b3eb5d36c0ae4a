#include "services/table/store/game_store.h"

#include <algorithm>
#include <future>
#include <mutex>
#include <pqxx/nontransaction>
#include <pqxx/prepared_statement>
#include <pqxx/result>
#include <pqxx/transaction>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "services/table/store/game_store_impl.h"
#include "services/table/store/game_store_sql.h"
#include "services/table/store/log_entry_columns.h"
#include "services/pg/migrations.h"
#include "services/pg/array.h"

namespace trix::table {
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
  absl::StatusOr<std::string> url = pg::ConnectionUrl(options.url);
  if (!url.ok()) return url.status();
  StoreOptions checked = options;
  checked.url = *std::move(url);
  return std::unique_ptr<GameStore>(new GameStore(std::make_unique<Impl>(checked)));
}

void GameStore::ExpectMigrations(const std::string& migrations_dir) {
  absl::StatusOr<std::vector<pg::Migration>> migrations = pg::ReadMigrations(migrations_dir);
  if (!migrations.ok()) return;  // Migrate says why
  std::vector<int64_t> versions;
  for (const pg::Migration& m : *migrations) versions.push_back(m.version);
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->migrated = std::move(versions);
}

absl::Status GameStore::Migrate(const std::string& migrations_dir) {
  ExpectMigrations(migrations_dir);
  return pg::Migrate(impl_->pool, migrations_dir);
}

absl::Status GameStore::MigrateWithRetry(const std::string& migrations_dir,
                                         const service::StopSignals& signals) {
  ExpectMigrations(migrations_dir);
  return pg::MigrateWithRetry(
      impl_->options.url, migrations_dir,
      absl::StrCat("mamlaka migrations ", impl_->options.instance_id), signals);
}

absl::Status GameStore::CheckReady() {
  std::optional<std::vector<int64_t>> expected;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    expected = impl_->migrated;
  }
  return impl_->pool.Run("checking readiness", [&](pqxx::connection& c) {
    const std::vector<int64_t> applied = pg::AppliedVersions(c);
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

absl::Status GameStore::CreateGame(const table::NewGame& game, std::string* existing_game_id) {
  if (game.game_id.empty()) return absl::InvalidArgumentError("a game needs an id");
  for (size_t i = 0; i < game.entries.size(); ++i) {
    if (game.entries[i].index != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError("a new game's entries must start its log at 0");
    }
  }
  if (existing_game_id != nullptr) existing_game_id->clear();
  // Group commit, as the log's appends: creations that arrive while a batch is
  // being written share the next statement and its commit
  // (docs/experiments/2026-12-02-matchmaking-one-commit-per-batch.md). Whoever finds
  // no batch in flight writes what is queued.
  Creation mine;
  mine.game = &game;
  absl::MutexLock lock(&impl_->creations_mu);
  impl_->creations.push_back(&mine);
  auto my_turn = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(impl_->creations_mu) {
    return mine.done || !impl_->creating;
  };
  impl_->creations_mu.Await(absl::Condition(&my_turn));
  if (!mine.done) {
    std::vector<Creation*> batch;
    batch.swap(impl_->creations);
    impl_->creating = true;
    impl_->creations_mu.Unlock();
    impl_->WriteCreations(batch);
    impl_->creations_mu.Lock();
    impl_->creating = false;
    for (Creation* c : batch) c->done = true;
  }
  if (existing_game_id != nullptr) *existing_game_id = mine.existing_game_id;
  return mine.status;
}

namespace {

// Writes the games of `batch` with kInsertGames; the ids of those written.
absl::flat_hash_set<std::string> InsertGames(
    pqxx::transaction_base& tx, const std::vector<Creation*>& batch,
    const StoreOptions& options) {
  pg::PgArray ids(pg::PgType::kText), requests(pg::PgType::kText), modes(pg::PgType::kText),
      configs(pg::PgType::kBytea), deadlines(pg::PgType::kTimestampTz), lengths(pg::PgType::kInt8);
  pg::PgArray seat_games(pg::PgType::kText), seats(pg::PgType::kInt2), players(pg::PgType::kText),
      names(pg::PgType::kText), bots(pg::PgType::kBool), stakes(pg::PgType::kInt8),
      hashes(pg::PgType::kText);
  pg::PgArray entry_games(pg::PgType::kText);
  LogEntryColumns entries;
  for (const Creation* c : batch) {
    const table::NewGame& game = *c->game;
    ids.AddString(game.game_id);
    requests.AddString(game.request_id);
    modes.AddString(game.mode);
    configs.AddString(game.config);
    if (game.deadline) {
      deadlines.AddTime(*game.deadline);
    } else {
      deadlines.AddNull();
    }
    lengths.AddInt(static_cast<int64_t>(game.entries.size()));
    for (int seat = 0; seat < 4; ++seat) {
      const table::SeatRecord& record = game.seats[seat];
      seat_games.AddString(game.game_id);
      seats.AddInt(seat);
      players.AddString(record.player_id);
      names.AddString(record.display_name);
      bots.AddBool(record.bot);
      stakes.AddInt(record.stake);
      hashes.AddString(record.token_hash);
    }
    for (const table::LogEntry& entry : game.entries) {
      entry_games.AddString(game.game_id);
      entries.Add(entry);
    }
  }
  const LogEntryColumns::Arrays entry_arrays = entries.Finish();
  const pqxx::result inserted = tx.exec_params(
      sql::kInsertGames, options.instance_id, absl::ToInt64Microseconds(options.lease_ttl),
      ids.Finish(), requests.Finish(), modes.Finish(), configs.Finish(), deadlines.Finish(),
      lengths.Finish(), seat_games.Finish(), seats.Finish(), players.Finish(),
      names.Finish(), bots.Finish(), stakes.Finish(), hashes.Finish(), entry_games.Finish(),
      pqxx::prepare::make_dynamic_params(entry_arrays));
  absl::flat_hash_set<std::string> written;
  for (const pqxx::row& row : inserted) written.insert(row[0].as<std::string>());
  return written;
}

// Answers the creations of `batch` that were not `written`: ON CONFLICT DO
// NOTHING skipped them because their request id (or, astronomically rarely,
// their game id) was taken. The clashing rows are committed by now: the insert
// waited for them.
void AnswerClashes(pqxx::transaction_base& tx,
                   const std::vector<Creation*>& batch,
                   const absl::flat_hash_set<std::string>& written) {
  pg::PgArray clashed(pg::PgType::kText);
  for (const Creation* c : batch) {
    if (!written.contains(c->game->game_id)) clashed.AddString(c->game->request_id);
  }
  if (clashed.size() == 0) return;
  absl::flat_hash_map<std::string, std::string> existing;  // request id -> game id
  for (const pqxx::row& row : tx.exec_params(
           "SELECT request_id, id FROM games WHERE request_id = ANY($1::text[])",
           clashed.Finish())) {
    existing[row[0].as<std::string>()] = row[1].as<std::string>();
  }
  for (Creation* c : batch) {
    const table::NewGame& game = *c->game;
    if (written.contains(game.game_id)) continue;
    auto it = game.request_id.empty() ? existing.end() : existing.find(game.request_id);
    if (it == existing.end()) {
      c->status = absl::AlreadyExistsError(absl::StrCat("game id ", game.game_id, " is taken"));
    } else if (it->second != game.game_id) {  // else: written by an earlier try
      c->existing_game_id = it->second;
      c->status = absl::AlreadyExistsError(
          absl::StrCat("request ", game.request_id, " already created game ", it->second));
    }
  }
}

}  // namespace

void GameStore::Impl::WriteCreations(const std::vector<Creation*>& batch) {
  // One order for every writer's unique-key locks: two instances creating the
  // same request ids at once wait for each other instead of deadlocking.
  std::vector<Creation*> sorted = batch;
  std::sort(sorted.begin(), sorted.end(), [](Creation* a, Creation* b) {
    return a->game->request_id < b->game->request_id;
  });
  for (Creation* c : sorted) c->status = absl::OkStatus();
  const absl::Status written = pool.Run("creating games", [&](pqxx::connection& c) {
    pqxx::nontransaction tx(c);
    AnswerClashes(tx, sorted, InsertGames(tx, sorted, options));
    return absl::OkStatus();
  });
  if (written.ok()) return;
  // A failure of the statement fails the whole batch. Unless the database is
  // away, it may be one game's doing (a value the schema refuses): each game
  // alone then gets its own answer.
  if (batch.size() > 1 && !absl::IsUnavailable(written)) {
    for (Creation* c : batch) WriteCreations({c});
    return;
  }
  for (Creation* c : batch) c->status = written;
}

void GameStore::Append(table::AppendRequest request, std::function<void(absl::Status)> done) {
  impl_->writer.Append(std::move(request), std::move(done));
}

absl::Status GameStore::AppendSync(table::AppendRequest request) {
  std::promise<absl::Status> promise;
  std::future<absl::Status> result = promise.get_future();
  Append(std::move(request),
         [&promise](absl::Status s) { promise.set_value(std::move(s)); });
  return result.get();
}

AppendStats GameStore::append_stats() const { return impl_->writer.stats(); }

bool GameStore::appends_queued() const { return impl_->writer.busy(); }

absl::StatusOr<table::StoredGame> GameStore::LoadGame(const std::string& game_id) {
  absl::StatusOr<std::vector<absl::StatusOr<table::StoredGame>>> loaded = LoadGames({game_id});
  if (!loaded.ok()) return loaded.status();
  return std::move(loaded->front());
}

namespace {

// The rows of one game among a batch's: its game row, seats and log entries.
void ReadGameRow(const pqxx::row& g, table::StoredGame& stored) {
  stored.game.game_id = g[0].as<std::string>();
  stored.game.request_id = g[1].is_null() ? "" : g[1].as<std::string>();
  stored.game.mode = g[2].as<std::string>();
  stored.game.config = Bytes(g[3]);
  stored.created = absl::FromUnixMicros(g[4].as<int64_t>());
  if (!g[5].is_null()) stored.deadline = absl::FromUnixMicros(g[5].as<int64_t>());
  stored.finished = !g[6].is_null();
  if (stored.finished) stored.result = g[6].as<std::string>();
}

absl::Status ReadSeatRow(const pqxx::row& row, table::StoredGame& stored, int& seats) {
  const int seat = row[1].as<int>();
  if (seat < 0 || seat > 3) {
    return absl::DataLossError(absl::StrCat("game ", stored.game.game_id, " has seat ", seat));
  }
  table::SeatRecord& record = stored.game.seats[seat];
  record.player_id = row[2].as<std::string>();
  record.display_name = row[3].as<std::string>();
  record.bot = row[4].as<bool>();
  record.stake = row[5].as<int64_t>();
  record.token_hash = row[6].as<std::string>();
  ++seats;
  return absl::OkStatus();
}

absl::Status ReadLogRow(const pqxx::row& row, table::StoredGame& stored) {
  table::LogEntry entry;
  entry.index = row[1].as<int64_t>();
  if (entry.index != static_cast<int64_t>(stored.entries.size())) {
    return absl::DataLossError(absl::StrCat("game ", stored.game.game_id,
                                            " misses log entry ", stored.entries.size()));
  }
  entry.seat = row[2].as<int>();
  entry.request_id = row[3].as<std::string>();
  entry.payload = Bytes(row[4]);
  entry.response = Bytes(row[5]);
  entry.time = absl::FromUnixMicros(row[6].as<int64_t>());
  stored.entries.push_back(std::move(entry));
  return absl::OkStatus();
}

// One game of a batch being read: what was read, or why it cannot be.
struct Loading {
  table::StoredGame stored;
  absl::Status status = absl::NotFoundError("");
  int seats = 0;
};

}  // namespace

absl::StatusOr<std::vector<absl::StatusOr<table::StoredGame>>> GameStore::LoadGames(
    const std::vector<std::string>& game_ids) {
  absl::flat_hash_map<std::string, Loading> games;
  absl::Status status = impl_->pool.Run("loading games", [&](pqxx::connection& c) {
    games.clear();
    pg::PgArray ids(pg::PgType::kText);
    for (const std::string& id : game_ids) ids.AddString(id);
    const pqxx::binarystring id_array = ids.Finish();
    // One snapshot for the three reads: a concurrent append shows in all or none.
    pqxx::transaction<pqxx::repeatable_read, pqxx::read_only> tx(c);
    for (const pqxx::row& g : tx.exec_params(sql::kSelectGames, id_array)) {
      Loading& l = games[g[0].as<std::string>()];
      ReadGameRow(g, l.stored);
      l.status = absl::OkStatus();
    }
    for (const pqxx::row& row : tx.exec_params(sql::kSelectSeats, id_array)) {
      Loading& l = games[row[0].as<std::string>()];
      if (l.status.ok()) l.status = ReadSeatRow(row, l.stored, l.seats);
    }
    for (const pqxx::row& row : tx.exec_params(sql::kSelectLog, id_array)) {
      Loading& l = games[row[0].as<std::string>()];
      if (l.status.ok()) l.status = ReadLogRow(row, l.stored);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  std::vector<absl::StatusOr<table::StoredGame>> out;
  out.reserve(game_ids.size());
  for (const std::string& id : game_ids) {
    auto it = games.find(id);
    if (it == games.end() || absl::IsNotFound(it->second.status)) {
      out.push_back(absl::NotFoundError(absl::StrCat("game ", id, " not found")));
    } else if (!it->second.status.ok()) {
      out.push_back(it->second.status);
    } else if (it->second.seats != 4) {
      out.push_back(absl::DataLossError(
          absl::StrCat("game ", id, " has ", it->second.seats, " seats stored")));
    } else {
      out.push_back(std::move(it->second.stored));
    }
  }
  return out;
}

}  // namespace trix::table
