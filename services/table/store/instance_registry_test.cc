// InstanceRegistry: registration, heartbeats, and where a table lives.
#include "services/table/store/instance_registry.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "services/table/store/game_store.h"
#include "services/table/store/testing/sample_games.h"
#include "services/table/store/testing/store_test.h"

namespace trix::table {
namespace {

class InstanceRegistryTest : public StoreTest {
 protected:
  std::unique_ptr<InstanceRegistry> Registry(const std::string& id) {
    absl::StatusOr<std::unique_ptr<InstanceRegistry>> r = InstanceRegistry::Open(
        {.url = db_->url(), .instance_id = id, .live_for = absl::Seconds(30)});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *std::move(r) : nullptr;
  }
};

TEST_F(InstanceRegistryTest, LocatesATableAtItsLeaseOwnersAddress) {
  std::unique_ptr<InstanceRegistry> registry = Registry("table-1");
  ASSERT_OK(registry->Heartbeat({.address = "10.0.0.1:50051", .capacity = 10}));
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  absl::StatusOr<TableHome> home = registry->Locate("g1");
  ASSERT_TRUE(home.ok()) << home.status();
  EXPECT_EQ(home->owner, "table-1");
  EXPECT_EQ(home->address, "10.0.0.1:50051");
  EXPECT_TRUE(home->leased);
  EXPECT_FALSE(home->finished);
  EXPECT_EQ(home->broken, "");
  EXPECT_EQ(registry->Locate("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(InstanceRegistryTest, ADeadOwnerHasNoAddressAndALapsedLeaseIsFree) {
  std::unique_ptr<InstanceRegistry> registry = Registry("table-1");
  ASSERT_OK(registry->Heartbeat({.address = "10.0.0.1:50051", .capacity = 10}));
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  Sql("UPDATE table_instances SET heartbeat = now() - interval '1 hour'");
  Sql("UPDATE games SET lease_until = now() - interval '1 second'");
  absl::StatusOr<TableHome> home = registry->Locate("g1");
  ASSERT_TRUE(home.ok()) << home.status();
  EXPECT_EQ(home->address, "");
  EXPECT_FALSE(home->leased);
  absl::StatusOr<std::vector<Instance>> live = registry->LiveInstances();
  ASSERT_TRUE(live.ok()) << live.status();
  EXPECT_TRUE(live->empty());
}

TEST_F(InstanceRegistryTest, HeartbeatsUpdateTheRowAndDrainingLeavesPlacement) {
  std::unique_ptr<InstanceRegistry> a = Registry("a#1");
  std::unique_ptr<InstanceRegistry> b = Registry("b#1");
  ASSERT_OK(a->Heartbeat({.address = "a:1", .capacity = 10}));
  ASSERT_OK(a->Heartbeat({.address = "a:1", .capacity = 10, .live_tables = 3}));
  ASSERT_OK(b->Heartbeat({.address = "b:1", .capacity = 5, .draining = true}));
  absl::StatusOr<std::vector<Instance>> live = a->LiveInstances();
  ASSERT_TRUE(live.ok()) << live.status();
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ((*live)[0].instance_id, "a#1");
  EXPECT_EQ((*live)[0].state.live_tables, 3);
  // A later run of "a" forgets the earlier one, not b.
  std::unique_ptr<InstanceRegistry> a2 = Registry("a#2");
  ASSERT_OK(a2->ForgetPreviousRuns("a"));
  EXPECT_EQ(Sql("SELECT string_agg(instance_id, ',' ORDER BY instance_id) "
                "FROM table_instances")[0][0]
                .as<std::string>(),
            "b#1");
}

// The instance's lease (migrations/0034) keeps every table of its owner, hosted or
// not, once the tables' own leases have passed: only a release or a lapse of the
// instance's lease frees them, and a claim takes one table at a time.
TEST_F(InstanceRegistryTest, TheInstanceLeaseKeepsItsTablesAndClaimsTakeOneAtATime) {
  ASSERT_OK(store_->CreateGame(SampleGame("hosted")));
  ASSERT_OK(store_->CreateGame(SampleGame("not-hosted")));
  Sql("UPDATE games SET lease_until = now() - interval '1 second'");
  absl::StatusOr<std::vector<std::string>> renewed =
      store_->RenewHosted(absl::Minutes(5), {"hosted", "unknown"});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_EQ(*renewed, std::vector<std::string>{"hosted"});
  EXPECT_EQ(Sql("SELECT 1 FROM table_instances WHERE instance_id = 'table-1' "
                "AND lease_until > now() + interval '1 minute'")
                .size(),
            1u);
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  EXPECT_FALSE(*other->ClaimTable("not-hosted", absl::Minutes(1)));  // still leased
  ASSERT_OK(store_->ReleaseLease("not-hosted"));
  EXPECT_TRUE(*other->ClaimTable("not-hosted", absl::Minutes(1)));
  EXPECT_FALSE(*store_->ClaimTable("not-hosted", absl::Minutes(1)));

  std::unique_ptr<InstanceRegistry> registry = Registry("table-2");
  EXPECT_TRUE(registry->Locate("hosted")->leased);
  Sql("UPDATE table_instances SET lease_until = now() - interval '1 second' "
      "WHERE instance_id = 'table-1'");
  EXPECT_FALSE(registry->Locate("hosted")->leased);
  EXPECT_TRUE(*other->ClaimTable("hosted", absl::Minutes(1)));
}

TEST_F(InstanceRegistryTest, ARestartedInstanceTakesBackItsTablesAtOnce) {
  std::unique_ptr<GameStore> old_run = OpenStore("table-7#aa");
  std::unique_ptr<GameStore> stranger = OpenStore("table-77#aa");
  ASSERT_OK(old_run->CreateGame(SampleGame("mine")));
  ASSERT_OK(stranger->CreateGame(SampleGame("theirs")));
  std::unique_ptr<GameStore> new_run = OpenStore("table-7#bb");
  absl::StatusOr<std::vector<std::string>> claimed =
      new_run->ClaimPreviousRuns("table-7", absl::Minutes(1));
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(*claimed, std::vector<std::string>{"mine"});
}

TEST_F(InstanceRegistryTest, AQuarantinedTableIsNeverClaimed) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->MarkBroken("g1", "entry 3: unreadable payload"));
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  EXPECT_TRUE(other->ClaimOrphans(absl::Minutes(1), 10)->empty());
  EXPECT_FALSE(*other->ClaimTable("g1", absl::Minutes(1)));
  std::unique_ptr<InstanceRegistry> registry = Registry("table-2");
  EXPECT_EQ(registry->Locate("g1")->broken, "entry 3: unreadable payload");
  EXPECT_EQ(store_->MarkBroken("nope", "x").code(), absl::StatusCode::kNotFound);
  // The operator clears it: claimable again.
  Sql("UPDATE games SET broken = NULL WHERE id = 'g1'");
  EXPECT_TRUE(*other->ClaimTable("g1", absl::Minutes(1)));
}

}  // namespace
}  // namespace trix::table
