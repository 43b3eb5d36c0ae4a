// GameStore: leases, listings, and a database that goes away.
#include <algorithm>
#include <chrono>
#include <map>
#include <pqxx/connection>
#include <pqxx/result>
#include <pqxx/transaction>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "services/table/store/game_store.h"
#include "services/table/store/testing/sample_games.h"
#include "services/table/store/testing/store_test.h"

namespace trix::table {
namespace {

class GameStoreLeaseTest : public StoreTest {
 protected:
  // Seconds until the lease of `game_id` lapses, as the server sees it.
  double LeaseLeft(const std::string& game_id) {
    return Sql(
               absl::StrCat("SELECT extract(epoch FROM lease_until - now()) FROM games "
                            "WHERE id = '",
                            game_id, "'"))[0][0]
        .as<double>();
  }
  std::string Owner(const std::string& game_id) {
    return Sql(absl::StrCat("SELECT lease_owner FROM games WHERE id = '", game_id,
                            "'"))[0][0]
        .as<std::string>();
  }
  // Seconds until the instance lease of `owner` lapses.
  double InstanceLeaseLeft(const std::string& owner) {
    return Sql(absl::StrCat("SELECT extract(epoch FROM lease_until - now()) "
                            "FROM table_instances WHERE instance_id = '",
                            owner, "'"))[0][0]
        .as<double>();
  }
  // Each game's id, row version and row lock: what a write or a lock changes.
  std::string GameVersions() {
    return Sql("SELECT string_agg(id || ':' || xmin::text || ':' || xmax::text, ',' "
               "ORDER BY id) FROM games")[0][0]
        .as<std::string>();
  }
  void Lapse(const std::string& game_id) {
    Sql(
        absl::StrCat("UPDATE games SET lease_until = now() - interval '1 second' "
                     "WHERE id = '",
                     game_id, "'"));
  }
  void Finish(const std::string& game_id) {
    table::AppendRequest last = SampleAppend(game_id, 0, 1);
    last.end = SampleEnd(game_id);
    ASSERT_OK(store_->AppendSync(last));
  }
};

TEST_F(GameStoreLeaseTest, CreatingAGameTakesItsLease) {
  std::unique_ptr<GameStore> store = OpenStore(
      {.url = db_->url(), .instance_id = "table-9", .lease_ttl = absl::Seconds(40)});
  ASSERT_OK(store->CreateGame(SampleGame("g1")));
  EXPECT_EQ(Owner("g1"), "table-9");
  EXPECT_NEAR(LeaseLeft("g1"), 40, 5);
}

// A renewal writes the instance's row and no game's (migrations/0034), and that
// lease keeps every running game of the instance, hosted or not, once the games'
// own leases have passed; a game of an instance that never renews is claimed.
TEST_F(GameStoreLeaseTest, RenewingWritesOneRowAndKeepsEveryGameOfTheInstance) {
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  ASSERT_OK(store_->CreateGame(SampleGame("mine")));
  ASSERT_OK(store_->CreateGame(SampleGame("mine-not-hosted")));
  ASSERT_OK(other->CreateGame(SampleGame("theirs")));
  const std::string versions = GameVersions();
  ASSERT_OK(store_->RenewLeases(absl::Hours(1)));
  ASSERT_OK(store_->RenewLeases(absl::Hours(1)));
  EXPECT_EQ(GameVersions(), versions);
  EXPECT_NEAR(InstanceLeaseLeft("table-1"), 3600, 5);
  EXPECT_EQ(Sql("SELECT count(*) FROM table_instances")[0][0].as<int>(), 1);
  for (const char* id : {"mine", "mine-not-hosted", "theirs"}) Lapse(id);
  std::unique_ptr<GameStore> third = OpenStore("table-3");
  absl::StatusOr<std::vector<std::string>> claimed =
      third->ClaimOrphans(absl::Minutes(1), 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(*claimed, std::vector<std::string>{"theirs"});
  EXPECT_FALSE(*third->ClaimTable("mine-not-hosted", absl::Minutes(1)));
  EXPECT_EQ(store_->RenewLeases(absl::ZeroDuration()).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(GameStoreLeaseTest, ClaimingTakesOnlyLapsedRunningGames) {
  for (const char* id : {"lapsed-1", "lapsed-2", "lapsed-finished", "live"}) {
    ASSERT_OK(store_->CreateGame(SampleGame(id)));
  }
  Finish("lapsed-finished");
  for (const char* id : {"lapsed-1", "lapsed-2", "lapsed-finished"}) Lapse(id);

  std::unique_ptr<GameStore> other = OpenStore("table-2");
  absl::StatusOr<std::vector<std::string>> first =
      other->ClaimOrphans(absl::Minutes(2), 1);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  absl::StatusOr<std::vector<std::string>> rest =
      other->ClaimOrphans(absl::Minutes(2), 10);
  ASSERT_TRUE(rest.ok()) << rest.status();
  ASSERT_EQ(rest->size(), 1u);
  std::vector<std::string> claimed = {first->front(), rest->front()};
  std::sort(claimed.begin(), claimed.end());
  EXPECT_EQ(claimed, (std::vector<std::string>{"lapsed-1", "lapsed-2"}));
  EXPECT_EQ(Owner("lapsed-1"), "table-2");
  EXPECT_NEAR(LeaseLeft("lapsed-1"), 120, 5);
  EXPECT_EQ(Owner("lapsed-finished"), "table-1");
  EXPECT_EQ(Owner("live"), "table-1");
  absl::StatusOr<std::vector<std::string>> none =
      other->ClaimOrphans(absl::Minutes(2), 10);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(other->ClaimOrphans(absl::Minutes(2), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(GameStoreLeaseTest, ConcurrentClaimersNeverTakeAGameTwice) {
  constexpr int kGames = 300, kInstances = 8;
  // Lapsed games of a dead instance, made in one statement rather than 300 commits.
  Sql(absl::StrCat(
      "INSERT INTO games (id, mode, config, lease_owner, lease_until) "
      "SELECT 'g' || i, 'classic-solo', '', 'dead', now() - interval '1 second' "
      "FROM generate_series(0, ",
      kGames - 1, ") AS i"));
  std::vector<std::unique_ptr<GameStore>> stores;
  for (int i = 0; i < kInstances; ++i)
    stores.push_back(OpenStore(absl::StrCat("claimer-", i)));
  std::vector<std::vector<std::string>> claims(kInstances);
  std::vector<absl::Status> errors(kInstances);
  std::vector<std::thread> threads;
  for (int i = 0; i < kInstances; ++i) {
    threads.emplace_back([&, i] {
      for (;;) {
        absl::StatusOr<std::vector<std::string>> got =
            stores[i]->ClaimOrphans(absl::Minutes(5), 7);
        if (!got.ok()) {
          errors[i] = got.status();
          return;
        }
        if (got->empty()) return;
        claims[i].insert(claims[i].end(), got->begin(), got->end());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::map<std::string, std::string> owners;
  for (const pqxx::row& row : Sql("SELECT id, lease_owner FROM games")) {
    owners[row[0].as<std::string>()] = row[1].as<std::string>();
  }
  std::set<std::string> all;
  int total = 0;
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_OK(errors[i]);
    for (const std::string& id : claims[i]) {
      EXPECT_TRUE(all.insert(id).second) << id << " claimed twice";
      EXPECT_EQ(owners[id], absl::StrCat("claimer-", i));
      ++total;
    }
  }
  EXPECT_EQ(total, kGames);
  EXPECT_EQ(all.size(), static_cast<size_t>(kGames));
}

// After its lease lapsed (the first renewal, here), an instance checks each hosted
// game, a chunk per transaction under share locks: a claim in flight is waited
// for and its game not answered as ours, and the earlier chunks' rows are free
// meanwhile. While the lease is held, a renewal reads no game.
TEST_F(GameStoreLeaseTest, AfterALapseRenewingChecksTheHostedGamesAChunkAtATime) {
  constexpr int kGames = 250;  // three chunks
  Sql(absl::StrCat(
      "INSERT INTO games (id, mode, config, lease_owner, lease_until) "
      "SELECT 'g' || lpad(i::text, 3, '0'), 'classic-solo', '', 'table-1', now() "
      "FROM generate_series(0, ",
      kGames - 1, ") AS i"));
  Sql("UPDATE games SET lease_owner = 'table-2' WHERE id = 'g007'");  // claimed before
  std::vector<std::string> hosted;
  for (int i = 0; i < kGames; ++i) hosted.push_back(absl::StrFormat("g%03d", i));

  // A claim in flight on a game of the last chunk: its row stays locked.
  pqxx::connection claimer(db_->url());
  pqxx::work claim(claimer);
  claim.exec("SELECT 1 FROM games WHERE id = 'g240' FOR NO KEY UPDATE");
  absl::StatusOr<std::vector<std::string>> renewed;
  std::thread renewal([&] { renewed = store_->RenewHosted(absl::Hours(1), hosted); });
  for (int i = 0; i < 200; ++i) {
    if (Sql("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND application_name LIKE 'mamlaka pool%'")
            .size() == 1) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(Sql("SELECT 1 FROM games WHERE id = 'g000' FOR NO KEY UPDATE NOWAIT").size(),
            1u);
  claim.exec("UPDATE games SET lease_owner = 'table-3' WHERE id = 'g240'");
  claim.commit();
  renewal.join();

  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_EQ(renewed->size(), static_cast<size_t>(kGames - 2));
  EXPECT_EQ(std::count(renewed->begin(), renewed->end(), "g007"), 0);
  EXPECT_EQ(std::count(renewed->begin(), renewed->end(), "g240"), 0);
  EXPECT_NEAR(InstanceLeaseLeft("table-1"), 3600, 5);

  // Held since: the answer is the hosted games as they are, and no game row is
  // written or locked.
  const std::string versions = GameVersions();
  absl::StatusOr<std::vector<std::string>> again =
      store_->RenewHosted(absl::Hours(1), *renewed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *renewed);
  EXPECT_EQ(GameVersions(), versions);
  // Lapsed again: the next renewal checks again.
  Sql("UPDATE table_instances SET lease_until = now() - interval '1 second'");
  Sql("UPDATE games SET lease_owner = 'table-3' WHERE id = 'g100'");
  again = store_->RenewHosted(absl::Hours(1), *renewed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->size(), static_cast<size_t>(kGames - 3));
}

TEST_F(GameStoreLeaseTest, ReleasingLetsAnotherInstanceClaimAtOnce) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  const absl::Status not_theirs = other->ReleaseLease("g1");
  EXPECT_EQ(not_theirs.code(), absl::StatusCode::kFailedPrecondition) << not_theirs;
  EXPECT_NE(not_theirs.message().find("leased to table-1"), absl::string_view::npos);
  EXPECT_EQ(store_->ReleaseLease("nope").code(), absl::StatusCode::kNotFound);
  ASSERT_OK(store_->ReleaseLease("g1"));
  absl::StatusOr<std::vector<std::string>> claimed =
      other->ClaimOrphans(absl::Minutes(1), 5);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(*claimed, std::vector<std::string>{"g1"});
  EXPECT_EQ(store_->AppendSync(SampleAppend("g1", 0, 1)).code(),
            absl::StatusCode::kAborted);
}

TEST_F(GameStoreLeaseTest, ReleasingAFleetReleasesOnlyOurRunningGames) {
  constexpr int kGames = 250;  // more than one transaction's chunk
  std::vector<std::string> ids;
  for (int i = 0; i < kGames; ++i) {
    ids.push_back(absl::StrFormat("g%03d", i));
    ASSERT_OK(store_->CreateGame(SampleGame(ids.back())));
  }
  Sql("UPDATE games SET lease_owner = 'table-2' WHERE id = 'g007'");
  ASSERT_NO_FATAL_FAILURE(Finish("g150"));
  ids.push_back("nope");

  ASSERT_OK(store_->ReleaseLeases(ids));
  EXPECT_EQ(Sql("SELECT count(*) FROM games WHERE lease_until = '-infinity'")[0][0]
                .as<int>(),
            kGames - 2);  // all but g007 and the finished g150
  EXPECT_GT(LeaseLeft("g007"), 5);
  std::unique_ptr<GameStore> other = OpenStore("table-3");
  absl::StatusOr<std::vector<std::string>> claimed =
      other->ClaimOrphans(absl::Minutes(1), kGames);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(claimed->size(), static_cast<size_t>(kGames - 2));  // nor g150: finished
  ASSERT_OK(store_->ReleaseLeases({}));
}

TEST_F(GameStoreLeaseTest, LogLengthsOfTheAskedGames) {
  ASSERT_OK(store_->CreateGame(SampleGame("short")));
  ASSERT_OK(store_->CreateGame(SampleGame("long")));
  ASSERT_OK(store_->AppendSync(SampleAppend("long", 0, 3)));
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> lengths =
      store_->LogLengths({"short", "long", "nope"});
  ASSERT_TRUE(lengths.ok()) << lengths.status();
  EXPECT_EQ(*lengths, (absl::flat_hash_map<std::string, int64_t>{{"short", 0}, {"long", 3}}));
}

class GameStoreListTest : public GameStoreLeaseTest {};

TEST_F(GameStoreListTest, ActiveGamesOfAPlayer) {
  ASSERT_OK(store_->CreateGame(SampleGame("a1", "", {"amal", "p1", "p2", "p3"})));
  ASSERT_OK(store_->CreateGame(SampleGame("a2", "", {"p0", "p1", "amal", "p3"})));
  ASSERT_OK(store_->CreateGame(SampleGame("done", "", {"amal", "p1", "p2", "p3"})));
  ASSERT_OK(store_->CreateGame(SampleGame("other", "", {"p0", "p1", "p2", "p3"})));
  Finish("done");
  absl::StatusOr<std::vector<table::GameListing>> active = store_->ListActive("amal");
  ASSERT_TRUE(active.ok()) << active.status();
  ASSERT_EQ(active->size(), 2u);
  // Newest first.
  EXPECT_EQ((*active)[0].game_id, "a2");
  EXPECT_EQ((*active)[0].seat, 2);
  EXPECT_EQ((*active)[1].game_id, "a1");
  EXPECT_EQ((*active)[1].seat, 0);
  EXPECT_EQ((*active)[1].mode, "complex-partner");
  EXPECT_FALSE((*active)[1].finished.has_value());
  EXPECT_TRUE(store_->ListActive("nobody")->empty());
}

TEST_F(GameStoreListTest, FinishedGamesPageNewestFirst) {
  constexpr int kGames = 25;
  for (int g = 0; g < kGames; ++g) {
    const std::string id = absl::StrCat("f", absl::Dec(g, absl::kZeroPad2));
    ASSERT_OK(store_->CreateGame(SampleGame(id, "", {"p0", "amal", "p2", "p3"})));
    Finish(id);
  }
  // Two games finishing in the same microsecond still page apart, by id, even
  // across a page boundary: f12 ties f10 (and so comes after f11).
  Sql("UPDATE games SET finished = (SELECT finished FROM games WHERE id = 'f10') "
      "WHERE id = 'f12'");
  std::vector<std::string> seen;
  std::string cursor;
  std::vector<size_t> page_sizes;
  for (;;) {
    absl::StatusOr<std::vector<table::GameListing>> page =
        store_->ListFinished("amal", 14, cursor);
    ASSERT_TRUE(page.ok()) << page.status();
    page_sizes.push_back(page->size());
    if (page->empty()) break;
    for (const table::GameListing& listing : *page) {
      seen.push_back(listing.game_id);
      EXPECT_EQ(listing.seat, 1);
      EXPECT_EQ(listing.total, 20);
      EXPECT_EQ(listing.place, 3);
      EXPECT_NE(listing.result.find(listing.game_id), std::string::npos);
      ASSERT_TRUE(listing.finished.has_value());
      if (listing.game_id != "f12") {
        EXPECT_GE(*listing.finished, listing.created);
      }
    }
    cursor = page->back().cursor;
  }
  EXPECT_EQ(page_sizes, (std::vector<size_t>{14, 11, 0}));
  std::vector<std::string> expected;
  for (int g = 24; g >= 13; --g) expected.push_back(absl::StrCat("f", g));
  for (const char* id : {"f11", "f12", "f10"}) expected.push_back(id);
  for (int g = 9; g >= 0; --g) expected.push_back(absl::StrCat("f0", g));
  EXPECT_EQ(seen.size(), static_cast<size_t>(kGames));
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(),
            static_cast<size_t>(kGames));
  EXPECT_EQ(seen, expected);
}

TEST_F(GameStoreListTest, ABotAtSeveralSeatsIsListedOncePerSeatAcrossPages) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1", "", {"bot", "p1", "bot", "bot"})));
  Finish("g1");
  std::vector<int> seats;
  std::string cursor;
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<std::vector<table::GameListing>> page =
        store_->ListFinished("bot", 1, cursor);
    ASSERT_TRUE(page.ok()) << page.status();
    if (page->empty()) break;
    seats.push_back(page->front().seat);
    cursor = page->front().cursor;
  }
  EXPECT_EQ(seats, (std::vector<int>{3, 2, 0}));
}

TEST_F(GameStoreListTest, BadPageRequestsAreInvalidArgument) {
  EXPECT_EQ(store_->ListFinished("amal", 0, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListFinished("amal", 10, "not a cursor!").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListFinished("amal", 10, "MTIz").status().code(),  // "123"
            absl::StatusCode::kInvalidArgument);
}

// The database goes away: connections are cut (as by a server restart), or the
// database stops accepting them for a while.
class GameStoreOutageTest : public GameStoreLeaseTest {};

TEST_F(GameStoreOutageTest, ACutPoolConnectionIsUnavailableOnceThenReplaced) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_TRUE(store_->LoadGame("g1").ok());
  TerminateConnections();
  EXPECT_EQ(store_->LoadGame("g1").status().code(), absl::StatusCode::kUnavailable);
  absl::StatusOr<table::StoredGame> again = store_->LoadGame("g1");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->game.game_id, "g1");
}

TEST_F(GameStoreOutageTest, TheWriterReconnectsByItselfAfterACut) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  TerminateConnections();
  // Nothing of the batch was written when the cut showed, so it is written again
  // on a new connection: the caller never sees the cut.
  EXPECT_OK(store_->AppendSync(SampleAppend("g1", 1, 1)));
  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok() || absl::IsUnavailable(stored.status())) << stored.status();
  stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->entries.size(), 2u);
}

TEST_F(GameStoreOutageTest, ADatabaseThatRefusesConnectionsIsUnavailableUntilBack) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  AllowConnections(false);
  TerminateConnections();
  EXPECT_EQ(store_->AppendSync(SampleAppend("g1", 1, 1)).code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->LoadGame("g1").status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->LoadGame("g1").status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->CheckReady().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->RenewLeases(absl::Minutes(1)).code(), absl::StatusCode::kUnavailable);
  AllowConnections(true);
  // Reconnects are backed off (at most 5 s after a failure, here ~100 ms): the
  // store answers again within that, not at once.
  absl::Status ready, appended;
  for (int i = 0; i < 200 && !ready.ok(); ++i) {
    ready = store_->CheckReady();
    if (!ready.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_OK(ready);
  // The refused append wrote nothing: the log continues at 1.
  for (int i = 0; i < 200; ++i) {
    appended = store_->AppendSync(SampleAppend("g1", 1, 1));
    if (!absl::IsUnavailable(appended)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_OK(appended);
  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->entries.size(), 2u);
}

TEST_F(GameStoreOutageTest, ACommitCutMidwayIsCheckedThenRetried) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  // The first commit that inserts into game_log kills its own session while
  // committing (a deferred trigger runs inside COMMIT): the writer cannot know
  // whether the batch landed, looks, finds it did not, and writes it again. A
  // sequence, not a table, counts the firings: it survives the rollback.
  Sql(R"sql(
    CREATE SEQUENCE commit_cuts;
    CREATE FUNCTION cut_first_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('commit_cuts') = 1 THEN
        PERFORM pg_terminate_backend(pg_backend_pid());
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER cut_first_commit AFTER INSERT ON game_log
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cut_first_commit();
  )sql");
  EXPECT_OK(store_->AppendSync(SampleAppend("g1", 0, 2)));
  EXPECT_EQ(Sql("SELECT last_value FROM commit_cuts")[0][0].as<int>(),
            3);  // 2 rows, 2nd try
  EXPECT_EQ(Sql("SELECT count(*) FROM game_log")[0][0].as<int>(), 2);
  EXPECT_EQ(store_->append_stats().commits, 1);
}

}  // namespace
}  // namespace trix::table
