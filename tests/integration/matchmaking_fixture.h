// Matchmaking for integration tests: a fresh migrated database, the real table
// service in-process (registered in table_instances the way a table instance
// registers itself), the real matchmaking server in-process on a loopback port,
// and clients that hold FindTable and ServeBot streams over real channels.
#ifndef TRIX_TESTS_INTEGRATION_MATCHMAKING_FIXTURE_H_
#define TRIX_TESTS_INTEGRATION_MATCHMAKING_FIXTURE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/common/testing/test_tokens.h"
#include "services/matchmaking/server.h"
#include "tests/integration/service_fixture.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::matchmaking {

// One FindTable stream, read on its own thread.
class TicketClient {
 public:
  TicketClient(v1::MatchmakingService::Stub* stub, const v1::FindTableRequest& request,
               const std::string& authorization);
  ~TicketClient();
  // Waits for the stream to end (or `timeout`); false on timeout.
  bool WaitDone(absl::Duration timeout = absl::Seconds(20));
  // Waits for `n` Queued updates.
  bool WaitQueued(int n, absl::Duration timeout = absl::Seconds(10));
  void Cancel() { context_.TryCancel(); }
  grpc::Status status();
  std::vector<v1::Queued> queued();
  // The assignment, or an empty one.
  v1::Assignment assignment();

 private:
  grpc::ClientContext context_;
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Queued> queued_ ABSL_GUARDED_BY(mu_);
  v1::Assignment assignment_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// One ServeBot stream.
class BotClient {
 public:
  BotClient(v1::MatchmakingService::Stub* stub, const std::string& key, int capacity);
  ~BotClient();
  bool WaitAssignments(int n, absl::Duration timeout = absl::Seconds(20));
  std::vector<v1::Assignment> assignments();
  int keep_alives();
  void Cancel() { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;
  absl::Mutex mu_;
  std::vector<v1::Assignment> assignments_ ABSL_GUARDED_BY(mu_);
  int keep_alives_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

inline constexpr char kServiceBearer[] = "Bearer integration-service-token";
// The login service's signing key, whose public half is in the key set
// TestConfig gives matchmaking (a JWKS file): PlayerToken signs with it and
// returns the authorization value ("Bearer <jwt>").
const service::TestKey& LoginKey();
std::string PlayerToken(const std::string& player, int64_t expires_in_s);

MatchmakingConfig TestConfig(const std::string& db_url);

class MatchmakingTest : public pg::DatabaseTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  // (Re)starts matchmaking with `config` (TestConfig() by default).
  void StartMatchmaking(MatchmakingConfig config);
  void StartMatchmaking() { StartMatchmaking(TestConfig(db_->url())); }
  void RegisterTableInstance(const std::string& id, const std::string& address);

  static v1::FindTableRequest Request(const std::string& player,
                                      const std::string& request_id = "r1");
  std::unique_ptr<TicketClient> Queue(const std::string& player,
                                      const std::string& request_id = "r1");
  std::unique_ptr<TicketClient> Queue(const v1::FindTableRequest& request);
  // The ticket's status in the database.
  std::string TicketStatus(const std::string& ticket_id);
  v1::TableView Table(const v1::Assignment& a);

  std::unique_ptr<table::InProcessService> tables_;
  prometheus::Registry registry_;
  std::unique_ptr<MatchmakingServer> matchmaking_;
  std::unique_ptr<v1::MatchmakingService::Stub> stub_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_TESTS_INTEGRATION_MATCHMAKING_FIXTURE_H_
