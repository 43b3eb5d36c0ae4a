// Fleet: where a table lives, and the releases of tables no longer hosted here
// (owed when the database refuses them, then repeated by ReleaseOwed), over an
// in-memory database whose calls fail on demand (testing/memory_store.h).
#include "services/table/fleet.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "services/table/testing/memory_store.h"

namespace trix::table {
namespace {

const std::string kInstance = "table-a";

class FleetTest : public ::testing::Test {
 protected:
  FleetTest()
      : db_(std::make_shared<MemoryDatabase>()),
        store_(db_, kInstance),
        fleet_(FleetOptions{"", absl::Seconds(30), 10, 0.5, 100}, &store_) {
    absl::MutexLock lock(&db_->mu);
    for (const char* id : {"t1", "t2", "t3"}) {
      MemoryDatabase::Game& game = db_->games[id];
      game.lease_owner = kInstance;
      game.lease_until = absl::Now() + absl::Seconds(30);
    }
  }

  // Whether this instance still holds the table's lease.
  bool Held(const std::string& id) {
    absl::MutexLock lock(&db_->mu);
    return db_->games[id].lease_until > absl::Now();
  }
  void ReleaseOwed() {
    fleet_.ReleaseOwed([](const std::string&) { return false; });
  }

  std::shared_ptr<MemoryDatabase> db_;
  MemoryStore store_;
  Fleet fleet_;
};

TEST_F(FleetTest, ReleasedLeasesAreNotOwed) {
  EXPECT_TRUE(fleet_.ReleaseLeases({"t1", "t2"}).ok());
  EXPECT_FALSE(Held("t1"));
  EXPECT_FALSE(Held("t2"));
  EXPECT_TRUE(Held("t3"));
  ReleaseOwed();
  EXPECT_EQ(store_.calls("ReleaseLease"), 0);
}

TEST_F(FleetTest, NoTablesNoCall) {
  EXPECT_TRUE(fleet_.ReleaseLeases({}).ok());
  EXPECT_EQ(store_.calls("ReleaseLeases"), 0);
}

TEST_F(FleetTest, LeasesTheDatabaseRefusedAreOwedUntilReleased) {
  store_.FailNextCalls("ReleaseLeases", 1, absl::UnavailableError("database away"));
  EXPECT_EQ(fleet_.ReleaseLeases({"t1", "t2"}), absl::UnavailableError("database away"));
  EXPECT_TRUE(Held("t1"));
  EXPECT_TRUE(Held("t2"));
  ReleaseOwed();
  EXPECT_EQ(store_.calls("ReleaseLease"), 2);
  EXPECT_FALSE(Held("t1"));
  EXPECT_FALSE(Held("t2"));
  EXPECT_TRUE(Held("t3"));
  ReleaseOwed();  // nothing owed any more
  EXPECT_EQ(store_.calls("ReleaseLease"), 2);
}

TEST_F(FleetTest, AnOwedTableIsReleasedWhateverTheDatabaseAnswers) {
  fleet_.OweReleases({"t1"});
  store_.FailNextCalls("ReleaseLease", 1, absl::UnavailableError("database away"));
  fleet_.Release("t1");
  EXPECT_TRUE(Held("t1"));
  ReleaseOwed();  // still owed: repeated
  EXPECT_FALSE(Held("t1"));
  EXPECT_EQ(store_.calls("ReleaseLease"), 2);

  fleet_.OweReleases({"t2"});
  fleet_.Release("t2");
  EXPECT_FALSE(Held("t2"));
}

TEST_F(FleetTest, HomeIsWhatTheStoreSays) {
  absl::StatusOr<TableHome> home = fleet_.Home("t1");
  ASSERT_TRUE(home.ok()) << home.status();
  EXPECT_EQ(home->owner, kInstance);
  EXPECT_TRUE(home->leased);
  EXPECT_TRUE(absl::IsNotFound(fleet_.Home("t9").status()));
}

}  // namespace
}  // namespace trix::table
