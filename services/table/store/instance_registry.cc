#include "services/table/store/instance_registry.h"

#include <pqxx/result>
#include <pqxx/transaction>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/pg/connection_pool.h"

namespace trix::table {
namespace {

// $1 id, $2 address, $3 capacity, $4 live tables, $5 draining.
constexpr const char* kHeartbeat = R"sql(
INSERT INTO table_instances (instance_id, address, capacity, live_tables, draining)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (instance_id) DO UPDATE
SET address = EXCLUDED.address, capacity = EXCLUDED.capacity,
    live_tables = EXCLUDED.live_tables, draining = EXCLUDED.draining,
    heartbeat = now())sql";

// $1 this run, $2 the instance name.
constexpr const char* kForgetPrevious = R"sql(
DELETE FROM table_instances
WHERE instance_id <> $1 AND left(instance_id, length($2) + 1) = $2 || '#')sql";

// $1 game, $2 live window µs.
constexpr const char* kLocate = R"sql(
SELECT coalesce(g.lease_owner, ''), coalesce(i.address, ''),
       NOT game_lease_lapsed(g.lease_owner, g.lease_until), g.finished IS NOT NULL,
       coalesce(g.broken, '')
FROM games AS g
LEFT JOIN table_instances AS i
  ON i.instance_id = g.lease_owner
 AND i.heartbeat > now() - $2::bigint * interval '1 microsecond'
WHERE g.id = $1)sql";

constexpr const char* kLive = R"sql(
SELECT instance_id, address, capacity, live_tables,
       (extract(epoch FROM heartbeat) * 1000000)::bigint
FROM table_instances
WHERE NOT draining AND heartbeat > now() - $1::bigint * interval '1 microsecond'
ORDER BY instance_id)sql";

}  // namespace

absl::StatusOr<std::vector<Instance>> ListLiveInstances(pg::ConnectionPool& pool,
                                                        absl::Duration live_for) {
  std::vector<Instance> out;
  absl::Status status = pool.Run("listing instances", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& row : tx.exec_params(kLive, absl::ToInt64Microseconds(live_for))) {
      Instance i;
      i.instance_id = row[0].as<std::string>();
      i.state.address = row[1].as<std::string>();
      i.state.capacity = row[2].as<int>();
      i.state.live_tables = row[3].as<int>();
      i.heartbeat = absl::FromUnixMicros(row[4].as<int64_t>());
      out.push_back(std::move(i));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::unique_ptr<InstanceRegistry>> InstanceRegistry::Open(
    const RegistryOptions& options) {
  if (options.instance_id.empty()) return absl::InvalidArgumentError("no instance id");
  if (options.live_for <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("live_for must be positive");
  }
  absl::StatusOr<std::string> url = pg::ConnectionUrl(options.url);
  if (!url.ok()) return url.status();
  auto pool = std::make_unique<pg::ConnectionPool>(
      *url, 2, absl::StrCat("mamlaka registry ", options.instance_id));
  return std::unique_ptr<InstanceRegistry>(
      new InstanceRegistry(options, std::move(pool)));
}

InstanceRegistry::InstanceRegistry(RegistryOptions options,
                                   std::unique_ptr<pg::ConnectionPool> pool)
    : options_(std::move(options)), pool_(std::move(pool)) {}

InstanceRegistry::~InstanceRegistry() = default;

absl::Status InstanceRegistry::Heartbeat(const InstanceState& state) {
  return pool_->Run("registering the instance", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(kHeartbeat, options_.instance_id, state.address, state.capacity,
                    state.live_tables, state.draining);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status InstanceRegistry::ForgetPreviousRuns(const std::string& name) {
  return pool_->Run("forgetting previous runs", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params0(kForgetPrevious, options_.instance_id, name);
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<TableHome> InstanceRegistry::Locate(const std::string& game_id) {
  TableHome home;
  absl::Status status = pool_->Run("locating a table", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::result rows =
        tx.exec_params(kLocate, game_id, absl::ToInt64Microseconds(options_.live_for));
    if (rows.empty()) {
      return absl::NotFoundError(
          absl::StrCat("table \"", game_id.substr(0, 64), "\" does not exist"));
    }
    home.owner = rows[0][0].as<std::string>();
    home.address = rows[0][1].as<std::string>();
    home.leased = rows[0][2].as<bool>();
    home.finished = rows[0][3].as<bool>();
    home.broken = rows[0][4].as<std::string>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return home;
}

absl::StatusOr<std::vector<Instance>> InstanceRegistry::LiveInstances() {
  return ListLiveInstances(*pool_, options_.live_for);
}

}  // namespace trix::table
