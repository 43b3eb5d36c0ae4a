// A claim that does not turn into a hosted table is given back: an instance that
// claimed a table (adopting it on a call, or claiming an orphan in maintenance)
// and then could not load it releases the lease at once, so that another instance
// can take the table without waiting for the lease to lapse; when the database
// also fails the release, maintenance repeats it until it is done (the instance's
// lease would keep the table otherwise), and a quarantine the database refused
// is released the same way; a table whose log does not replay is quarantined and
// its lease released too (an operator who clears it lets the next instance adopt
// it at once), as is a hosted table whose reload after a failed append finds its
// log damaged. Two hosts over one in-memory
// database whose calls fail on demand (testing/memory_store.h).
#include <future>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/auth.h"
#include "services/table/refusals.h"
#include "services/table/table_host.h"
#include "services/table/testing/memory_store.h"
#include "services/table/testing/table_client.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

// Leases long enough that a lease that merely lapses never passes for released.
HostOptions Options(const std::string& instance) {
  HostOptions o;
  o.instance_id = instance;
  o.lease_ttl = absl::Seconds(30);
  o.maintenance_every = absl::Hours(1);  // rounds are run by the tests
  return o;
}

v1::CreateTableRequest CreateRequest(const std::string& request_id) {
  v1::CreateTableRequest r;
  r.set_request_id(request_id);
  r.mutable_mode()->set_team(v1::TEAM_SOLO);
  r.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
  r.set_seed(17);
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = r.add_seats();
    seat->set_player_id("player-" + std::to_string(s));
  }
  return r;
}

// An instance: its store (its own view of the shared database) and its host.
struct Instance {
  Instance(std::shared_ptr<MemoryDatabase> db, const std::string& name)
      : Instance(std::move(db), Options(name)) {}
  Instance(std::shared_ptr<MemoryDatabase> db, const HostOptions& options)
      : store(std::move(db), options.instance_id), host(options, &store, &registry) {}
  MemoryStore store;
  prometheus::Registry registry;
  TableHost host;
};

class ClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = StartInstance("table-a");
    table_ = Wait<v1::CreateTableResponse>([&](auto reply) {
               a_->host.CreateTable(CreateRequest("claim-1"), reply);
             }).value();
  }

  // a shuts down: it releases the lease, so the next instance asked (or the next
  // maintenance round) adopts the table.
  void Orphan() { a_.reset(); }

  std::unique_ptr<Instance> StartInstance(const std::string& name) {
    return StartInstance(Options(name));
  }
  std::unique_ptr<Instance> StartInstance(const HostOptions& options) {
    auto instance = std::make_unique<Instance>(db_, options);
    EXPECT_TRUE(instance->host.Start().ok());
    return instance;
  }

  // Leave, answered into the future returned rather than waited for.
  std::future<absl::Status> LeaveLater(TableHost& host, const std::string& request_id) {
    auto answer = std::make_shared<std::promise<absl::Status>>();
    std::future<absl::Status> future = answer->get_future();
    v1::ActRequest request;
    request.mutable_leave();
    request.set_table_id(table_.table_id());
    request.set_seat_token(table_.seat_tokens(0));
    request.set_request_id(request_id);
    host.Act(request, [answer](absl::StatusOr<v1::ActResponse> r) {
      answer->set_value(r.status());
    });
    return future;
  }

  absl::Status Leave(TableHost& host, const std::string& request_id) {
    v1::ActRequest request;
    request.mutable_leave();
    request.set_table_id(table_.table_id());
    request.set_seat_token(table_.seat_tokens(0));
    request.set_request_id(request_id);
    return Wait<v1::ActResponse>([&](auto reply) { host.Act(request, reply); }).status();
  }

  MemoryDatabase::Game Stored() {
    absl::MutexLock lock(&db_->mu);
    return db_->games[table_.table_id()];
  }

  // Released (not merely lapsed: the leases here last 30 s) by `owner`.
  bool ReleasedBy(const std::string& owner) {
    const MemoryDatabase::Game game = Stored();
    return game.lease_owner == owner && game.lease_until == absl::InfinitePast();
  }

  bool WaitReleasedBy(const std::string& owner) {
    for (int i = 0; i < 500 && !ReleasedBy(owner); ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    return ReleasedBy(owner);
  }

  std::shared_ptr<MemoryDatabase> db_ = std::make_shared<MemoryDatabase>();
  std::unique_ptr<Instance> a_;
  v1::CreateTableResponse table_;
};

TEST_F(ClaimTest, AnAdoptionWhoseLoadFailsReleasesTheLeaseAtOnce) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  b->store.FailNextCalls("LoadGame", 1, absl::UnavailableError("connection reset"));
  const absl::Status failed = Leave(b->host, "l1");
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable) << failed;
  EXPECT_THAT(failed.message(), HasSubstr("cannot be loaded now"));
  EXPECT_TRUE(ReleasedBy("table-b"));
  // Another instance takes it now, not once a 30 s lease has lapsed.
  std::unique_ptr<Instance> c = StartInstance("table-c");
  EXPECT_TRUE(Leave(c->host, "l2").ok());
  EXPECT_EQ(Stored().lease_owner, "table-c");
}

TEST_F(ClaimTest, AReleaseTheDatabaseRefusedIsRetriedByMaintenance) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  b->store.FailNextCalls("LoadGame", 1, absl::UnavailableError("connection reset"));
  b->store.FailNextCalls("ReleaseLease", 1, absl::UnavailableError("connection reset"));
  EXPECT_EQ(Leave(b->host, "l1").code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Stored().lease_owner, "table-b");
  EXPECT_FALSE(ReleasedBy("table-b"));
  b->host.RunMaintenance();
  EXPECT_TRUE(ReleasedBy("table-b"));
  std::unique_ptr<Instance> c = StartInstance("table-c");
  EXPECT_TRUE(Leave(c->host, "l2").ok());
}

// The instance's lease keeps every table the instance owns, hosted or not: a
// release the database refuses again is repeated each round until it is done.
TEST_F(ClaimTest, AReleaseRefusedTwiceIsRepeatedUntilDone) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  b->store.FailNextCalls("LoadGame", 1, absl::UnavailableError("connection reset"));
  b->store.FailNextCalls("ReleaseLease", 2, absl::UnavailableError("connection reset"));
  EXPECT_EQ(Leave(b->host, "l1").code(), absl::StatusCode::kUnavailable);
  b->host.RunMaintenance();
  EXPECT_FALSE(ReleasedBy("table-b"));
  EXPECT_EQ(Stored().lease_owner, "table-b");
  b->host.RunMaintenance();
  EXPECT_TRUE(ReleasedBy("table-b"));
}

TEST_F(ClaimTest, AnOrphanClaimWhoseLoadFailsIsReleased) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  // Maintenance claims the orphan, then its batch's read fails.
  b->store.FailNextCalls("LoadGames", 1, absl::UnavailableError("connection reset"));
  b->host.RunMaintenance();
  EXPECT_TRUE(WaitReleasedBy("table-b"));
  std::unique_ptr<Instance> c = StartInstance("table-c");
  EXPECT_TRUE(Leave(c->host, "l2").ok());
}

// A claim round reads what it claimed a batch at a time and restores it as read:
// no table is located, claimed again or read on its own.
TEST_F(ClaimTest, AClaimRoundAdoptsWhatItReadWithoutAskingAgain) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  for (int i = 2; i <= 5; ++i) {
    ASSERT_TRUE(Wait<v1::CreateTableResponse>([&](auto reply) {
                  a_->host.CreateTable(CreateRequest("claim-" + std::to_string(i)), reply);
                }).ok());
  }
  Orphan();
  b->host.RunMaintenance();
  // Its placeholders count at once; the tables once restored.
  EXPECT_EQ(b->host.table_count(), 5u);
  for (int i = 0; i < 500 && b->host.metrics().recovered.Value() < 5; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(b->host.metrics().recovered.Value(), 5);
  EXPECT_EQ(b->store.calls("LoadGames"), 1);
  EXPECT_EQ(b->store.calls("Locate"), 0);
  EXPECT_EQ(b->store.calls("ClaimTable"), 0);
  EXPECT_EQ(b->store.calls("LoadGame"), 0);
  EXPECT_TRUE(Leave(b->host, "l1").ok());
  EXPECT_EQ(Stored().lease_owner, "table-b");
}

TEST_F(ClaimTest, ATableWhoseLogDoesNotReplayIsQuarantinedAndReleased) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  std::string original;
  {
    absl::MutexLock lock(&db_->mu);
    std::string& payload = db_->games[table_.table_id()].stored.entries[0].payload;
    original = payload;
    payload = "\xff\xff";
  }
  const absl::Status refused = Leave(b->host, "l1");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("table quarantined"));
  EXPECT_FALSE(Stored().broken.empty());
  EXPECT_TRUE(ReleasedBy("table-b"));
  // Once an operator has repaired and cleared it, the next instance adopts it at once.
  {
    absl::MutexLock lock(&db_->mu);
    MemoryDatabase::Game& game = db_->games[table_.table_id()];
    game.stored.entries[0].payload = original;
    game.broken.clear();
  }
  std::unique_ptr<Instance> c = StartInstance("table-c");
  EXPECT_TRUE(Leave(c->host, "l2").ok());
}

// The same for a table a claim round read: the call waiting for it learns of the
// quarantine, and the table is marked and released.
TEST_F(ClaimTest, AClaimedTableThatDoesNotReplayIsQuarantinedAndReleased) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  {
    absl::MutexLock lock(&db_->mu);
    db_->games[table_.table_id()].stored.entries[0].payload = "\xff\xff";
  }
  b->store.HoldCalls("LoadGames", true);
  b->host.RunMaintenance();
  std::future<absl::Status> answer = LeaveLater(b->host, "l1");
  b->store.HoldCalls("LoadGames", false);
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const absl::Status refused = answer.get();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("table quarantined"));
  EXPECT_FALSE(Stored().broken.empty());
  EXPECT_TRUE(WaitReleasedBy("table-b"));
  EXPECT_EQ(b->host.metrics().quarantined.Value(), 1);
}

// A quarantine the database refused leaves the table unmarked and unhosted, yet
// this instance's: it is released instead (by maintenance, when the release is
// refused too), and whoever loads it next quarantines it.
TEST_F(ClaimTest, AQuarantineTheDatabaseRefusedIsReleasedInstead) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  {
    absl::MutexLock lock(&db_->mu);
    db_->games[table_.table_id()].stored.entries[0].payload = "\xff\xff";
  }
  b->store.FailNextCalls("MarkBroken", 1, absl::UnavailableError("connection reset"));
  b->store.FailNextCalls("ReleaseLease", 1, absl::UnavailableError("connection reset"));
  const absl::Status refused = Leave(b->host, "l1");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_TRUE(Stored().broken.empty());
  EXPECT_FALSE(ReleasedBy("table-b"));
  b->host.RunMaintenance();
  EXPECT_TRUE(ReleasedBy("table-b"));
  std::unique_ptr<Instance> c = StartInstance("table-c");
  EXPECT_EQ(Leave(c->host, "l2").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(Stored().broken.empty());
}

TEST_F(ClaimTest, AHostedTableWhoseReloadDoesNotReplayIsQuarantined) {
  // An append fails, so the next call reloads the table from a log that has been
  // damaged meanwhile.
  a_->store.FailNextAppends(1, absl::UnavailableError("connection reset"));
  EXPECT_EQ(Leave(a_->host, "l1").code(), absl::StatusCode::kUnavailable);
  {
    absl::MutexLock lock(&db_->mu);
    db_->games[table_.table_id()].stored.entries[0].payload = "\xff\xff";
  }
  const absl::Status refused = Leave(a_->host, "l1");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("table quarantined"));
  for (int i = 0; i < 500 && Stored().broken.empty(); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_FALSE(Stored().broken.empty());
  EXPECT_EQ(a_->host.metrics().quarantined.Value(), 1);
}

// --- Calls that reach a table being taken over -------------------------------------

// A claim round publishes a placeholder for each table it claimed before it reads
// them: a call for one waits for its load (on no thread) instead of being refused,
// and is served from what the round read, without a lookup or a claim of its own.
TEST_F(ClaimTest, ACallForATableBeingLoadedIsServedOnceLoaded) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  b->store.HoldCalls("LoadGames", true);  // the round's read is slow
  b->host.RunMaintenance();
  std::future<absl::Status> answer = LeaveLater(b->host, "l1");
  EXPECT_EQ(answer.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  b->store.HoldCalls("LoadGames", false);
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(answer.get().ok());
  EXPECT_EQ(b->store.calls("ClaimTable"), 0);
  EXPECT_EQ(b->store.calls("LoadGame"), 0);
  EXPECT_EQ(b->store.calls("Locate"), 0);
  EXPECT_EQ(Stored().lease_owner, "table-b");
}

TEST_F(ClaimTest, ACallThatWaitsPastLoadWaitIsRefusedUnavailable) {
  HostOptions options = Options("table-b");
  options.load_wait = absl::Milliseconds(200);
  std::unique_ptr<Instance> b = StartInstance(options);
  Orphan();
  b->store.HoldCalls("LoadGames", true);
  b->host.RunMaintenance();
  const absl::Time asked = absl::Now();
  const absl::Status refused = Leave(b->host, "l1");
  EXPECT_GE(absl::Now() - asked, absl::Milliseconds(200));
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("was not ready within 200ms; retry"));
  // The table still comes, and the retry is served.
  b->store.HoldCalls("LoadGames", false);
  EXPECT_TRUE(Leave(b->host, "l1").ok());
}

TEST_F(ClaimTest, ACallForATableWhoseLoadFailsGetsTheLoadsRefusal) {
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  b->store.HoldCalls("LoadGames", true);
  b->store.FailNextCalls("LoadGames", 1, absl::UnavailableError("connection reset"));
  b->host.RunMaintenance();
  std::future<absl::Status> answer = LeaveLater(b->host, "l1");
  b->store.HoldCalls("LoadGames", false);
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const absl::Status refused = answer.get();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("cannot be loaded now"));
  EXPECT_TRUE(WaitReleasedBy("table-b"));
}

// Placeholders of a claim round are not calls' adoptions: while a round loads,
// calls for other tables are not refused for max_adoptions.
TEST_F(ClaimTest, AClaimRoundLeavesRoomForCallsAdoptions) {
  HostOptions options = Options("table-b");
  options.max_adoptions = 1;
  std::unique_ptr<Instance> b = StartInstance(options);
  Orphan();
  b->store.HoldCalls("LoadGames", true);
  b->host.RunMaintenance();
  EXPECT_EQ(b->host.metrics().adoptions.Value(), 0);
  v1::ActRequest elsewhere;
  elsewhere.mutable_leave();
  elsewhere.set_table_id(service::NewUuid());
  elsewhere.set_seat_token(table_.seat_tokens(0));
  elsewhere.set_request_id("l1");
  const absl::Status unknown =
      Wait<v1::ActResponse>([&](auto reply) { b->host.Act(elsewhere, reply); }).status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound) << unknown;
  b->store.HoldCalls("LoadGames", false);
}

// The first round after an instance died takes a share of its room, not one
// claim_batch; with no share, claim_batch.
TEST_F(ClaimTest, TheFirstRoundAfterALapseClaimsAShareOfTheRoom) {
  for (int i = 2; i <= 4; ++i) {
    ASSERT_TRUE(Wait<v1::CreateTableResponse>([&](auto reply) {
                  a_->host.CreateTable(CreateRequest("claim-" + std::to_string(i)), reply);
                }).ok());
  }
  HostOptions share = Options("table-b");
  share.claim_batch = 1;
  share.max_tables = 8;  // room 8: half of it is 4
  HostOptions batch = Options("table-c");
  batch.claim_batch = 1;
  batch.claim_room_share = 0;
  std::unique_ptr<Instance> b = StartInstance(share);
  std::unique_ptr<Instance> c = StartInstance(batch);
  Orphan();
  c->host.RunMaintenance();
  b->host.RunMaintenance();
  for (int i = 0; i < 500 && b->host.table_count() + c->host.table_count() < 4; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(c->host.table_count(), 1u);
  EXPECT_EQ(b->host.table_count(), 3u);
  // What a dashboard compares trix_table_tables with.
  EXPECT_EQ(b->host.metrics().capacity.Value(), 8);
  EXPECT_EQ(c->host.metrics().capacity.Value(), HostOptions().max_tables);
}

// Past max_adoptions a call waits its turn (up to load_wait) rather than being
// refused: at a failover every seat of a dead instance's tables asks at once, and
// a refusal only brings it back.
TEST_F(ClaimTest, ACallPastMaxAdoptionsWaitsForItsTurn) {
  HostOptions options = Options("table-b");
  options.max_adoptions = 1;
  options.load_wait = absl::Seconds(10);
  std::unique_ptr<Instance> b = StartInstance(options);
  Orphan();
  b->store.HoldCalls("Locate", true);  // the one adoption allowed is slow
  auto unknown = std::make_shared<std::promise<absl::Status>>();
  v1::ActRequest elsewhere;
  elsewhere.mutable_leave();
  elsewhere.set_table_id(service::NewUuid());
  elsewhere.set_seat_token(table_.seat_tokens(0));
  elsewhere.set_request_id("u1");
  b->host.Act(elsewhere, [unknown](absl::StatusOr<v1::ActResponse> r) {
    unknown->set_value(r.status());
  });
  std::future<absl::Status> answer = LeaveLater(b->host, "l1");
  EXPECT_EQ(answer.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  EXPECT_EQ(b->host.metrics().adoptions.Value(), 1);
  b->store.HoldCalls("Locate", false);
  EXPECT_EQ(unknown->get_future().get().code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(answer.get().ok());
  EXPECT_EQ(Stored().lease_owner, "table-b");
  for (int i = 0; i < 500 && b->host.metrics().adoptions.Value() > 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(b->host.metrics().adoptions.Value(), 0);
}

// A call that finds its table free (its instance died or left) starts a claim
// round at once for the others, rather than leave them to the next maintenance
// round (an hour away here) or to their own seats' calls.
TEST_F(ClaimTest, ACallThatAdoptsAFreeTableClaimsItsNeighboursNow) {
  for (int i = 2; i <= 3; ++i) {
    ASSERT_TRUE(Wait<v1::CreateTableResponse>([&](auto reply) {
                  a_->host.CreateTable(CreateRequest("claim-" + std::to_string(i)), reply);
                }).ok());
  }
  std::unique_ptr<Instance> b = StartInstance("table-b");
  Orphan();
  EXPECT_TRUE(Leave(b->host, "l1").ok());
  for (int i = 0; i < 500 && b->host.metrics().recovered.Value() < 3; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(b->host.metrics().recovered.Value(), 3);
  EXPECT_EQ(b->host.table_count(), 3u);
  EXPECT_EQ(b->store.calls("ClaimTable"), 1);  // the call's own; the others in one round
}

}  // namespace
}  // namespace trix::table
