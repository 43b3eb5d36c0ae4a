#include "services/pg/migrations.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <pqxx/result>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "services/common/service_main.h"
#include "services/table/store/game_store.h"
#include "services/pg/testing/database_test.h"
#include "services/table/store/testing/sample_games.h"

namespace trix::pg {
namespace {

namespace fs = std::filesystem;
using table::GameStore;
using table::SampleAppend;
using table::SampleGame;

// A scratch folder of migration files, removed at the end of the test.
class MigrationFolder {
 public:
  MigrationFolder() {
    const ::testing::TestInfo* test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / (std::string("mamlaka-migrations-") +
                                         test->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~MigrationFolder() { fs::remove_all(path_); }

  void Write(const std::string& file, const std::string& text) {
    std::ofstream(path_ / file) << text;
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(StoreMigrationsTest, ReadsSqlFilesInNumericOrder) {
  MigrationFolder folder;
  folder.Write("10_later.sql", "SELECT 10;");
  folder.Write("9_earlier.sql", "SELECT 9;");
  folder.Write("README.md", "not a migration");
  absl::StatusOr<std::vector<Migration>> migrations = ReadMigrations(folder.path());
  ASSERT_TRUE(migrations.ok()) << migrations.status();
  ASSERT_EQ(migrations->size(), 2u);
  EXPECT_EQ((*migrations)[0].version, 9);
  EXPECT_EQ((*migrations)[0].name, "earlier");
  EXPECT_EQ((*migrations)[0].sql, "SELECT 9;");
  EXPECT_EQ((*migrations)[1].version, 10);
  EXPECT_EQ((*migrations)[1].name, "later");
}

TEST(StoreMigrationsTest, RejectsBadFolders) {
  EXPECT_EQ(ReadMigrations("/nonexistent/migrations").status().code(),
            absl::StatusCode::kNotFound);
  {
    MigrationFolder folder;
    EXPECT_EQ(ReadMigrations(folder.path()).status().code(), absl::StatusCode::kNotFound);
  }
  {
    MigrationFolder folder;
    folder.Write("games.sql", "SELECT 1;");
    EXPECT_EQ(ReadMigrations(folder.path()).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  {
    MigrationFolder folder;
    folder.Write("0001_a.sql", "SELECT 1;");
    folder.Write("1_b.sql", "SELECT 2;");
    absl::Status status = ReadMigrations(folder.path()).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("share version 1"), absl::string_view::npos)
        << status;
  }
  {
    MigrationFolder folder;
    folder.Write("0001_empty.sql", " \n");
    EXPECT_EQ(ReadMigrations(folder.path()).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

// Against a fresh database that no migration has touched.
class StoreMigrationsDbTest : public DatabaseTest {
 protected:
  StoreMigrationsDbTest() : DatabaseTest({.migrate = false}) {}
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    store_ = OpenStore("migrator");
  }

  std::unique_ptr<GameStore> OpenStore(const std::string& instance) {
    absl::StatusOr<std::unique_ptr<GameStore>> store =
        GameStore::Open({.url = db_->url(), .instance_id = instance});
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Eight stores (instances i0..i7) migrating from `dir` at the same moment; each
  // must succeed.
  std::vector<std::unique_ptr<GameStore>> MigrateConcurrently(const std::string& dir) {
    constexpr int kInstances = 8;
    std::vector<std::unique_ptr<GameStore>> stores;
    for (int i = 0; i < kInstances; ++i)
      stores.push_back(OpenStore("i" + std::to_string(i)));
    std::vector<absl::Status> statuses(kInstances);
    std::vector<std::thread> threads;
    for (int i = 0; i < kInstances; ++i) {
      threads.emplace_back([&, i] { statuses[i] = stores[i]->Migrate(dir); });
    }
    for (std::thread& thread : threads) thread.join();
    for (const absl::Status& status : statuses) EXPECT_OK(status);
    return stores;
  }

  pqxx::result Query(const std::string& sql) {
    pqxx::connection connection(db_->url());
    pqxx::nontransaction tx(connection);
    return tx.exec(sql);
  }

  // "version:name" of every recorded migration, in order.
  std::vector<std::string> Recorded() {
    std::vector<std::string> out;
    for (const pqxx::row& row :
         Query("SELECT version, name FROM schema_migrations ORDER BY version")) {
      out.push_back(row[0].as<std::string>() + ":" + row[1].as<std::string>());
    }
    return out;
  }

  // "version:name" of every migration in the project's folder: what a full run
  // must record (each area adds its own files).
  std::vector<std::string> ProjectMigrations() {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<Migration>> all = ReadMigrations(TestDatabase::MigrationsDir());
    EXPECT_TRUE(all.ok()) << all.status();
    if (!all.ok()) return out;
    for (const Migration& m : *all) out.push_back(std::to_string(m.version) + ":" + m.name);
    return out;
  }

  // What a full run records: the project's migrations, the game tables' first.
  void ExpectTheProjectMigrationsRecorded() {
    const std::vector<std::string> recorded = Recorded();
    EXPECT_EQ(recorded, ProjectMigrations());
    ASSERT_GE(recorded.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(recorded.begin(), recorded.begin() + 4),
              (std::vector<std::string>{"1:games", "2:game_log", "3:game_results",
                                        "4:game_log_without_foreign_key"}));
  }

  // Writes the project's migrations up to version `last` into `folder`, named as
  // in migrations/.
  void WriteProjectMigrations(MigrationFolder& folder, int64_t last) {
    absl::StatusOr<std::vector<Migration>> all =
        ReadMigrations(TestDatabase::MigrationsDir());
    ASSERT_TRUE(all.ok()) << all.status();
    for (const Migration& m : *all) {
      if (m.version > last) continue;
      char version[16];
      std::snprintf(version, sizeof(version), "%04lld",
                    static_cast<long long>(m.version));
      folder.Write(std::string(version) + "_" + m.name + ".sql", m.sql);
    }
  }

  std::unique_ptr<GameStore> store_;
};

constexpr int64_t kAllMigrations = std::numeric_limits<int64_t>::max();

TEST_F(StoreMigrationsDbTest, AppliesTheProjectMigrationsOnce) {
  EXPECT_EQ(store_->CheckReady().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(store_->Migrate(TestDatabase::MigrationsDir()));
  ASSERT_NO_FATAL_FAILURE(ExpectTheProjectMigrationsRecorded());
  EXPECT_EQ(Query("SELECT count(*) FROM information_schema.tables WHERE table_name IN "
                  "('games', 'game_seats', 'game_log', 'game_results')")[0][0]
                .as<int>(),
            4);
  EXPECT_OK(store_->CheckReady());
  // Idempotent: a second run (a restart) applies nothing and changes nothing.
  const std::string applied_at =
      Query("SELECT max(applied_at)::text FROM schema_migrations")[0][0]
          .as<std::string>();
  ASSERT_OK(store_->Migrate(TestDatabase::MigrationsDir()));
  EXPECT_EQ(Recorded().size(), ProjectMigrations().size());
  EXPECT_EQ(Query("SELECT max(applied_at)::text FROM schema_migrations")[0][0]
                .as<std::string>(),
            applied_at);
}

TEST_F(StoreMigrationsDbTest, ConcurrentInstancesApplyEachMigrationOnce) {
  MigrationFolder folder;
  // The sleep widens the window in which unlocked instances would both apply 2.
  folder.Write("1_counter.sql", "CREATE TABLE applied (n int);");
  folder.Write("2_bump.sql", "SELECT pg_sleep(0.2); INSERT INTO applied VALUES (2);");
  folder.Write("3_bump.sql", "INSERT INTO applied VALUES (3);");
  MigrateConcurrently(folder.path());
  EXPECT_EQ(Query("SELECT string_agg(n::text, ',' ORDER BY n) FROM applied")[0][0]
                .as<std::string>(),
            "2,3");
  EXPECT_EQ(Recorded(), (std::vector<std::string>{"1:counter", "2:bump", "3:bump"}));
}

TEST_F(StoreMigrationsDbTest, ConcurrentInstancesMigrateTheProjectSchema) {
  const std::vector<std::unique_ptr<GameStore>> stores =
      MigrateConcurrently(TestDatabase::MigrationsDir());
  ASSERT_NO_FATAL_FAILURE(ExpectTheProjectMigrationsRecorded());
  for (const auto& store : stores) EXPECT_OK(store->CheckReady());
}

TEST_F(StoreMigrationsDbTest, AFailedMigrationLeavesNoTraceAndStopsTheRun) {
  MigrationFolder folder;
  folder.Write("1_good.sql", "CREATE TABLE good (n int);");
  folder.Write("2_bad.sql", "CREATE TABLE half (n int); SELEC broken;");
  folder.Write("3_never.sql", "CREATE TABLE never (n int);");
  const absl::Status status = store_->Migrate(folder.path());
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  // The statement and the server's text stay in the log (pg_status.h).
  EXPECT_NE(status.message().find("database error"), absl::string_view::npos) << status;
  EXPECT_EQ(Recorded(), (std::vector<std::string>{"1:good"}));
  EXPECT_EQ(Query("SELECT count(*) FROM information_schema.tables WHERE table_name IN "
                  "('good', 'half', 'never')")[0][0]
                .as<int>(),
            1);
  EXPECT_EQ(store_->CheckReady().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StoreMigrationsDbTest, AChangedAppliedMigrationIsRefused) {
  MigrationFolder folder;
  folder.Write("1_a.sql", "CREATE TABLE a (n int);");
  ASSERT_OK(store_->Migrate(folder.path()));
  folder.Write("1_a.sql", "CREATE TABLE a (n bigint);");
  folder.Write("2_b.sql", "CREATE TABLE b (n int);");
  const absl::Status status = store_->Migrate(folder.path());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("1_a changed"), absl::string_view::npos) << status;
  EXPECT_EQ(Recorded(), (std::vector<std::string>{"1:a"}));
}

// What each service runs at start-up: applied once the database answers; a changed
// migration, which no retry can mend, ends the wait at once.
TEST_F(StoreMigrationsDbTest, MigrateWithRetryAppliesAndGivesUpOnAChangedMigration) {
  const service::StopSignals signals;
  MigrationFolder folder;
  folder.Write("1_a.sql", "CREATE TABLE a (n int);");
  ASSERT_OK(MigrateWithRetry(db_->url(), folder.path(), "migrations test", signals));
  EXPECT_EQ(Recorded(), (std::vector<std::string>{"1:a"}));
  folder.Write("1_a.sql", "CREATE TABLE a (n bigint);");
  const absl::Status status =
      MigrateWithRetry(db_->url(), folder.path(), "migrations test", signals);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_FALSE(MayRetryMigration(status));
}

// A database that does not answer yet is waited for, until a stop signal.
TEST(StoreMigrationsTest, MigrateWithRetryWaitsForTheDatabaseUntilAStopSignal) {
  const service::StopSignals signals;
  MigrationFolder folder;
  folder.Write("1_a.sql", "CREATE TABLE a (n int);");
  ASSERT_EQ(raise(SIGTERM), 0);  // pending: the first wait between attempts ends
  const absl::Status status = MigrateWithRetry(
      "postgresql://postgres@127.0.0.1:1/nobody?connect_timeout=2", folder.path(),
      "migrations test", signals);
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  EXPECT_TRUE(MayRetryMigration(absl::UnavailableError("the database is down")));
}

TEST_F(StoreMigrationsDbTest, LaterMigrationsBuildOnEarlierOnes) {
  MigrationFolder folder;
  folder.Write("9_table.sql", "CREATE TABLE t (n int);");
  folder.Write("10_column.sql", "ALTER TABLE t ADD COLUMN m int;");
  ASSERT_OK(store_->Migrate(folder.path()));
  EXPECT_EQ(Recorded(), (std::vector<std::string>{"9:table", "10:column"}));
  // A newer file appears later (the next release): only it is applied.
  folder.Write("11_index.sql", "CREATE INDEX t_m ON t (m);");
  ASSERT_OK(store_->Migrate(folder.path()));
  EXPECT_EQ(Recorded(), (std::vector<std::string>{"9:table", "10:column", "11:index"}));
}

// A database that the released migrations (up to 0017) built, with a game in play,
// upgraded to this release's: the game keeps playing, and its lease keeps working.
TEST_F(StoreMigrationsDbTest, UpgradingAReleasedSchemaKeepsItsGamesPlaying) {
  constexpr int64_t kReleased = 17;
  MigrationFolder folder;
  ASSERT_NO_FATAL_FAILURE(WriteProjectMigrations(folder, kReleased));
  ASSERT_OK(store_->Migrate(folder.path()));
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 2)));

  ASSERT_NO_FATAL_FAILURE(WriteProjectMigrations(folder, kAllMigrations));
  ASSERT_OK(store_->Migrate(folder.path()));
  EXPECT_EQ(Recorded(), ProjectMigrations());
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 2, 1)));
  absl::StatusOr<std::vector<std::string>> renewed =
      store_->RenewHosted(absl::Minutes(1), {"g1"});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_EQ(*renewed, std::vector<std::string>{"g1"});
  // Its lease (the game's own and its instance's, migrations/0034) lapses: another
  // instance adopts it and appends where the log ends.
  Query("UPDATE games SET lease_until = now() - interval '1 second'");
  Query("UPDATE table_instances SET lease_until = now() - interval '1 second'");
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  absl::StatusOr<std::vector<std::string>> claimed =
      other->ClaimOrphans(absl::Minutes(1), 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(*claimed, std::vector<std::string>{"g1"});
  EXPECT_EQ(store_->AppendSync(SampleAppend("g1", 3, 1)).code(),
            absl::StatusCode::kAborted);
  ASSERT_OK(other->AppendSync(SampleAppend("g1", 3, 1)));
  absl::StatusOr<table::StoredGame> game = other->LoadGame("g1");
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_EQ(game->entries.size(), 4u);
}

// Placements left by a matcher mid-placement when the release that keeps their
// seats in mm_placement_seats (up to 0025) is upgraded: each keeps its seats, in
// seat order, as the arrays the pool's next matcher reads; the child table goes.
TEST_F(StoreMigrationsDbTest, UpgradingKeepsTheSeatsOfLivePlacements) {
  MigrationFolder folder;
  ASSERT_NO_FATAL_FAILURE(WriteProjectMigrations(folder, 25));
  ASSERT_OK(store_->Migrate(folder.path()));
  Query("INSERT INTO mm_placements (request_id, pool, request, possible) VALUES "
        "('r1', 'partner/0', '', now()), ('r2', 'partner/0', '', now())");
  Query("INSERT INTO mm_placement_seats (request_id, seat, ticket_id) VALUES "
        "('r1', 2, 't2'), ('r1', 0, 't0'), ('r1', 1, NULL), ('r2', 3, 't3')");

  ASSERT_NO_FATAL_FAILURE(WriteProjectMigrations(folder, kAllMigrations));
  ASSERT_OK(store_->Migrate(folder.path()));
  EXPECT_EQ(Recorded(), ProjectMigrations());
  const pqxx::result placements = Query(
      "SELECT request_id, seats::text, seat_tickets::text FROM mm_placements "
      "ORDER BY request_id");
  ASSERT_EQ(placements.size(), 2u);
  EXPECT_EQ(placements[0][0].as<std::string>(), "r1");
  EXPECT_EQ(placements[0][1].as<std::string>(), "{0,1,2}");
  EXPECT_EQ(placements[0][2].as<std::string>(), "{t0,NULL,t2}");
  EXPECT_EQ(placements[1][0].as<std::string>(), "r2");
  EXPECT_EQ(placements[1][1].as<std::string>(), "{3}");
  EXPECT_EQ(placements[1][2].as<std::string>(), "{t3}");
  EXPECT_TRUE(Query("SELECT to_regclass('mm_placement_seats')")[0][0].is_null());
  // A seat without its ticket's slot, or one no table has, is refused.
  for (const char* seats : {"'{0,1}', '{t0}'", "'{4}', '{t4}'"}) {
    EXPECT_THROW(Query(std::string("INSERT INTO mm_placements (request_id, pool, "
                                   "request, possible, seats, seat_tickets) VALUES "
                                   "('r3', 'partner/0', '', now(), ") +
                       seats + ")"),
                 pqxx::check_violation);
  }
}

// Tickets queued when the release that packs the pages of mm_tickets full (up to
// 0026) is upgraded stay as they were; the pages written from then on keep room
// for their tickets' next versions, so that an update of a ticket's status (never
// HOT: status is in the partial indexes' predicates) stays on the ticket's page.
TEST_F(StoreMigrationsDbTest, UpgradingKeepsLiveTicketsAndRoomForTheirUpdates) {
  MigrationFolder folder;
  ASSERT_NO_FATAL_FAILURE(WriteProjectMigrations(folder, 26));
  ASSERT_OK(store_->Migrate(folder.path()));
  const std::string insert =
      "INSERT INTO mm_tickets (ticket_id, request_id, player_id, pool, team, format, "
      "rating, status, group_id) ";
  Query("INSERT INTO mm_placements (request_id, pool, request, possible, seats, "
        "seat_tickets) VALUES ('g1', 'partner/0', '', now(), '{0}', '{t1}')");
  Query(insert + "VALUES ('t0', 'r0', 'p0', 'partner/0', 2, 2, 1500, 'waiting', NULL), "
                 "('t1', 'r1', 'p1', 'partner/0', 2, 2, 1500, 'placing', 'g1')");

  ASSERT_NO_FATAL_FAILURE(WriteProjectMigrations(folder, kAllMigrations));
  ASSERT_OK(store_->Migrate(folder.path()));
  EXPECT_EQ(Recorded(), ProjectMigrations());
  const pqxx::result live = Query(
      "SELECT ticket_id, status, coalesce(group_id, '') FROM mm_tickets ORDER BY 1");
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0][1].as<std::string>(), "waiting");
  EXPECT_EQ(live[1][1].as<std::string>(), "placing");
  EXPECT_EQ(live[1][2].as<std::string>(), "g1");
  // Tickets claimed since, then matched: each new version on the ticket's page.
  Query(insert + "SELECT 'n' || i, 'r' || i, 'q' || i, 'partner/0', 2, 2, 1500, "
                 "'placing', 'g' || i / 4 FROM generate_series(1, 200) AS i");
  const std::string pages =
      "SELECT ticket_id, (ctid::text::point)[0] FROM mm_tickets "
      "WHERE ticket_id LIKE 'n%' ORDER BY 1";
  const pqxx::result queued = Query(pages);
  ASSERT_EQ(queued.size(), 200u);
  Query("UPDATE mm_tickets SET status = 'matched', changed = now() "
        "WHERE ticket_id LIKE 'n%'");
  const pqxx::result matched = Query(pages);
  ASSERT_EQ(matched.size(), 200u);
  int moved = 0;
  for (size_t i = 0; i < matched.size(); ++i) {
    moved += matched[i][1].as<std::string>() != queued[i][1].as<std::string>();
  }
  EXPECT_EQ(moved, 0);
}

}  // namespace
}  // namespace trix::pg
