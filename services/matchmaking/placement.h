// Placement: where a new table goes. Table-service instances register themselves
// in `table_instances` (migrations/0005) with their capacity, live tables and
// heartbeat, and placement reads that registry through the table's own store
// library (table::ListLiveInstances, behind TableInstances), never with SQL of
// its own; a table is created on a live (fresh heartbeat), non-draining instance
// with room, the least loaded first, and on the next one when CreateTable fails
// there. A deployment without registered instances can name one with
// `fallback_address`. A table nobody is to play (a placement given up) is voided
// through the same stubs (VoidTable). A failure that does not prove the table was not made (its
// answer may have been lost) is what a failed placement reports, whatever the
// instances tried after it said: the caller must ask again (ProvesNoTable).
//
//   RegisteredInstances instances(&pool);
//   Placement placement(&instances, {.service_token = t, .fallback_address = "h:50051"});
//   std::vector<Placed> placed = placement.CreateTables(requests);
#ifndef TRIX_SERVICES_MATCHMAKING_PLACEMENT_H_
#define TRIX_SERVICES_MATCHMAKING_PLACEMENT_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/pg/connection_pool.h"
#include "services/table/store/instance_registry.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::matchmaking {

struct PlacementOptions {
  std::string service_token;
  std::string fallback_address;  // used when no registered instance has room
  absl::Duration stale_after = absl::Seconds(15);  // heartbeat older: not live
  absl::Duration refresh_every = absl::Seconds(1);
  absl::Duration call_timeout = absl::Seconds(3);
  int attempts = 3;  // instances tried per table
  // The table instances' channels: TLS when the deployment dials them so.
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
};

struct Placed {
  // A failure: the first that may have made the table, else the last one.
  absl::Status status;
  std::string address;
  v1::CreateTableResponse response;
};

// Whether a failed CreateTable proves that no table was made for it: the
// request was refused before anything was written (bad request, unauthorized,
// instance full or rate-limited, no instance to ask). Any other failure
// (UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL, ...) may have lost the answer of a
// table that was made; asked again with the same request it is answered with
// that table.
bool ProvesNoTable(const absl::Status& failure);

// The table service as matchmaking calls it (the matcher, the table voids):
// Placement in production, a fake in their tests.
class TableClient {
 public:
  virtual ~TableClient() = default;
  // Creates every table; one result per request, in order.
  virtual std::vector<Placed> CreateTables(
      const std::vector<v1::CreateTableRequest>& requests) = 0;
  // Voids the table at `address`: VoidTable's status.
  virtual absl::Status VoidTable(const std::string& address, const std::string& table_id,
                                 const std::string& reason) = 0;
};

// The live table-service instances: the table service's registry in
// production (RegisteredInstances), a list in placement's tests.
class TableInstances {
 public:
  virtual ~TableInstances() = default;
  // The instances whose heartbeat is fresher than `live_for`.
  virtual absl::StatusOr<std::vector<table::Instance>> Live(absl::Duration live_for) = 0;
};

class RegisteredInstances : public TableInstances {
 public:
  explicit RegisteredInstances(pg::ConnectionPool* db) : db_(db) {}
  absl::StatusOr<std::vector<table::Instance>> Live(absl::Duration live_for) override {
    return table::ListLiveInstances(*db_, live_for);
  }

 private:
  pg::ConnectionPool* const db_;
};

class Placement : public TableClient {
 public:
  Placement(TableInstances* instances, PlacementOptions options);

  // Creates every table (concurrently); one result per request, in order.
  std::vector<Placed> CreateTables(
      const std::vector<v1::CreateTableRequest>& requests) override;
  // Placement failures so far (each failed attempt), for metrics and tests.
  int64_t failures() const;
  // Voids the table at `address` (any instance answers: it adopts the table or
  // answers where it is): VoidTable's status.
  absl::Status VoidTable(const std::string& address, const std::string& table_id,
                         const std::string& reason) override;

 private:
  struct Instance {
    std::string address;
    int capacity = 0;
    int load = 0;  // live tables as registered, plus those placed since
  };
  void Refresh();
  // The least-loaded instance with room not in `tried`, or "" for none.
  std::string Choose(const std::vector<std::string>& tried);
  v1::TableService::Stub* Stub(const std::string& address);
  // One round of CreateTables: each pending request sent to the next instance it
  // has not tried, all at once, and their answers awaited.
  void CreateOnce(const std::vector<v1::CreateTableRequest>& requests,
                  const std::vector<size_t>& pending,
                  std::vector<std::vector<std::string>>& tried, std::vector<Placed>& placed);
  // The pending requests to send again after a round (the others succeeded or
  // would fail anywhere); keeps each one's first failure that may have made its
  // table in `maybe_made`.
  std::vector<size_t> ToTryAgain(const std::vector<size_t>& pending,
                                 const std::vector<Placed>& placed,
                                 std::vector<std::optional<Placed>>& maybe_made);

  TableInstances* const registry_;
  const PlacementOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, Instance> instances_ ABSL_GUARDED_BY(mu_);
  absl::Time refreshed_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::map<std::string, std::unique_ptr<v1::TableService::Stub>> stubs_
      ABSL_GUARDED_BY(mu_);
  int64_t failures_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_PLACEMENT_H_
