// The ratings service assembled: the database pool (and a standby's for the history
// reads, if given), RatingReader and Ledger behind
// RatingsService on gRPC (with health checking and reflection), and the outbox
// consumer. main() and the tests build the very same server (tests on port 0).
//
// Health is NOT_SERVING (and calls UNAVAILABLE) until Start() has found the database
// migrated; then the consumer (if asked) and the hold sweep start. Shutdown() turns
// it NOT_SERVING again, stops the consumer between batches and the sweep, and gives
// calls in flight `grace` to finish.
//
//   auto server = RatingsServer::Start(options, &metrics_registry);
//   ... (*server)->port() ...
//   (*server)->Shutdown(absl::Seconds(5));
#ifndef TRIX_SERVICES_RATINGS_SERVER_H_
#define TRIX_SERVICES_RATINGS_SERVER_H_

#include <atomic>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "prometheus/registry.h"
#include "services/common/health_port.h"
#include "services/common/server_limits.h"
#include "services/common/tls.h"
#include "services/ratings/consumer.h"
#include "services/ratings/grpc_service.h"
#include "services/ratings/hold_sweeper.h"
#include "services/ratings/ledger.h"
#include "services/ratings/store/postgres_ledger_store.h"
#include "services/ratings/store/postgres_rating_read_store.h"
#include "services/ratings/rating_reader.h"
#include "services/ratings/ratings_metrics.h"
#include "services/pg/connection_pool.h"
#include "services/pg/readiness_watch.h"

namespace trix::ratings {

struct ServerOptions {
  std::string listen_address = "0.0.0.0:50052";
  std::string database_url;
  // A standby for the history reads (GetLeaderboard, GetRatingHistory,
  // GetStatement), which then lag by its replay lag; empty: database_url.
  std::string read_database_url;
  RatingsAccess access;  // credentials, player tokens, rate limits
  int db_connections = 4;
  int provisional_games = kDefaultProvisionalGames;
  bool consume = true;  // run the outbox consumer in this process
  ConsumerOptions consumer;  // database_url is filled from above
  LedgerOptions ledger;
  absl::Duration hold_sweep_interval = absl::Seconds(30);
  int max_receive_message_bytes = 256 * 1024;
  service::ServerTls tls;  // plaintext when it names no certificate (tls.h)
  service::ServerLimits limits;  // memory quota, streams per connection
};

class RatingsServer {
 public:
  static absl::StatusOr<std::unique_ptr<RatingsServer>> Start(const ServerOptions& options,
                                                              prometheus::Registry* registry);
  ~RatingsServer();

  int port() const { return port_; }
  // Once the database is known to be migrated: SERVING, and the consumer starts.
  void SetReady();
  void Shutdown(absl::Duration grace);

 private:
  RatingsServer(const ServerOptions& options, prometheus::Registry* registry);

  const ServerOptions options_;
  RatingsMetrics metrics_;
  pg::ConnectionPool pool_;
  std::unique_ptr<pg::ConnectionPool> history_pool_;  // null: no standby
  PostgresRatingReadStore reader_store_;
  RatingReader reader_;
  PostgresLedgerStore ledger_store_;
  Ledger ledger_;
  RatingsGrpcService service_;
  OutboxConsumer consumer_;
  HoldSweeper sweeper_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<service::HealthPort> health_port_;  // stopped before server_
  // Once ready: health NOT_SERVING while the database is away.
  std::unique_ptr<pg::ReadinessWatch> database_watch_;
  int port_ = 0;
  bool ready_ = false;
  std::atomic<bool> shut_down_{false};
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_SERVER_H_
