// The registry of table-service instances (table_instances, migrations/0005):
// each instance registers itself under its lease-owner name with the address
// clients dial, its capacity and how many tables it hosts, and keeps the row fresh
// with a heartbeat; it marks itself draining when it shuts down. From the registry
// and a game's lease, any instance can say where a table lives now (Locate), and
// matchmaking can place new tables on live instances with room.
//
// An instance is live while its heartbeat is younger than `live_for` (a lease
// length is the natural choice); a dead instance's row stays until a later run of
// the same instance replaces it, and never counts as an address. The row's
// lease_until, the instance's lease that holds all of its tables, is GameStore's
// (RenewHosted renews it; migrations/0034): the heartbeat leaves it alone.
//
//   auto registry = InstanceRegistry::Open({.url = url, .instance_id = "table-1#2f",
//                                          .live_for = absl::Seconds(15)});
//   (*registry)->Heartbeat({.address = "10.0.0.7:50051", .capacity = 20000});
//   absl::StatusOr<TableHome> home = (*registry)->Locate(table_id);
#ifndef TRIX_SERVICES_TABLE_STORE_INSTANCE_REGISTRY_H_
#define TRIX_SERVICES_TABLE_STORE_INSTANCE_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trix::pg {
class ConnectionPool;
}  // namespace trix::pg

namespace trix::table {


struct RegistryOptions {
  std::string url;
  std::string instance_id;  // the lease owner this instance writes in games
  absl::Duration live_for = absl::Seconds(15);
};

// What an instance tells the registry about itself.
struct InstanceState {
  std::string address;  // host:port clients dial
  int capacity = 0;     // tables it hosts at most
  int live_tables = 0;
  bool draining = false;
};

struct Instance {
  std::string instance_id;
  InstanceState state;
  absl::Time heartbeat;
};

// Where a game lives, from its lease and the registry.
struct TableHome {
  std::string owner;    // games.lease_owner
  std::string address;  // the owner's, when it is a live registered instance
  bool leased = false;  // the lease is unexpired (someone hosts the table)
  bool finished = false;
  std::string broken;  // the quarantine reason; empty for a sound game
};

// Live instances (not draining, heartbeat younger than `live_for`), by instance
// id, read through `pool`: how a service that places tables without registering
// one (matchmaking) sees the registry.
absl::StatusOr<std::vector<Instance>> ListLiveInstances(pg::ConnectionPool& pool,
                                                        absl::Duration live_for);

class InstanceRegistry {
 public:
  static absl::StatusOr<std::unique_ptr<InstanceRegistry>> Open(
      const RegistryOptions& options);
  ~InstanceRegistry();

  // Registers this instance or refreshes its row (heartbeat = now()).
  absl::Status Heartbeat(const InstanceState& state);
  // Deletes the rows of earlier runs of instance `name` ("<name>#..."), which are
  // dead once this run holds their tables.
  absl::Status ForgetPreviousRuns(const std::string& name);
  // NOT_FOUND for an unknown game.
  absl::StatusOr<TableHome> Locate(const std::string& game_id);
  // Live instances, for placement: not draining, heartbeat fresh.
  absl::StatusOr<std::vector<Instance>> LiveInstances();

 private:
  InstanceRegistry(RegistryOptions options, std::unique_ptr<pg::ConnectionPool> pool);

  const RegistryOptions options_;
  std::unique_ptr<pg::ConnectionPool> pool_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_INSTANCE_REGISTRY_H_
