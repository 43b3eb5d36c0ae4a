// The table service for integration tests: the real server (TableServer over
// TableHost over table::GameStore) in this process on a loopback port, against a
// fresh migrated PostgreSQL database, and helpers that call it through a real gRPC
// channel as a backend or a client would.
//
//   class MyTest : public TableServiceTest {};
//   TEST_F(MyTest, X) {
//     v1::CreateTableResponse table = CreateTable(Complex(v1::TEAM_PARTNER), 7);
//     grpc::Status s = Act(table, 0, "r1", PlayCard("QS"), &response);
//   }
#ifndef TRIX_TESTS_INTEGRATION_SERVICE_FIXTURE_H_
#define TRIX_TESTS_INTEGRATION_SERVICE_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/common/credentials.h"
#include "services/table/store/game_store.h"
#include "services/table/store/instance_registry.h"
#include "services/pg/testing/database_test.h"
#include "services/table/server.h"
#include "services/table/table_host.h"
#include "services/table/table_store.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::table {

// The backend's token (a credential with every scope) and matchmaking's (only the
// scopes matchmaking holds in a deployment: tables:create tables:void ledger:hold
// ratings:read).
inline constexpr char kServiceToken[] = "integration-service-token";
// Matchmaking's two credentials: the one it shows the ratings service and the one
// it shows the table instances (MatchmakingScopes, MatchmakingTableScopes).
inline constexpr char kMatchmakingToken[] = "integration-matchmaking-token";
inline constexpr char kMatchmakingTableToken[] = "integration-matchmaking-table-token";
std::shared_ptr<const service::ServiceCredentials> TestCredentials();
// The credentials file (credentials.h) for `entries` of {name, token, scopes},
// written to `path`.
struct TestCredential {
  std::string name;
  std::string token;
  std::vector<std::string> scopes;
  std::string client_cert = "";  // bound to this client certificate name
  bool holds_need_consent = false;
};
void WriteCredentialsFile(const std::string& path, const std::vector<TestCredential>& entries);
// Matchmaking's scopes, as a deployment gives them.
std::vector<std::string> MatchmakingScopes();
std::vector<std::string> MatchmakingTableScopes();

struct ServiceOptions {
  HostOptions host;
  ServerOptions server;
};

// Test defaults: loopback port 0, short leases, generous rates.
ServiceOptions DefaultServiceOptions(const std::string& instance_id = "it-1");

// One running instance of the service.
class InProcessService {
 public:
  static absl::StatusOr<std::unique_ptr<InProcessService>> Start(
      const std::string& db_url, ServiceOptions options);
  ~InProcessService();  // graceful Shutdown()

  void Shutdown();
  int port() const { return server_->port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }
  TableHost& host() { return *host_; }
  TableServer& server() { return *server_; }
  table::GameStore& store() { return *store_; }

 private:
  InProcessService() = default;
  std::unique_ptr<table::GameStore> store_;
  std::unique_ptr<table::InstanceRegistry> instances_;
  std::unique_ptr<TableStore> tables_;
  prometheus::Registry registry_;
  std::unique_ptr<TableHost> host_;
  std::unique_ptr<TableServer> server_;
};

v1::Mode MakeMode(v1::Team team, v1::Format format);
// grpc.health.v1 Check for `service` ("" = the server): 1 SERVING, 2 NOT_SERVING,
// ..., or -1 when the call fails (server down).
int HealthStatus(const std::shared_ptr<grpc::Channel>& channel,
                 const std::string& service);
v1::ActRequest PlayCard(const std::string& card);
v1::ActRequest ChooseContract(v1::Contract contract);
v1::ActRequest Leave();

class TableServiceTest : public pg::DatabaseTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  // (Re)starts the service with `options` on the test's database.
  void StartService(ServiceOptions options);
  void StopService();

  // CreateTable with the service token; fails the test on error.
  v1::CreateTableResponse CreateTable(const v1::Mode& mode, uint64_t seed,
                                      int clock_ms = 0, int kingdoms = 4);
  grpc::Status CallCreate(const v1::CreateTableRequest& request,
                          v1::CreateTableResponse* response,
                          const std::string& authorization);
  static v1::CreateTableRequest CreateRequest(const v1::Mode& mode, uint64_t seed,
                                              int clock_ms = 0, int kingdoms = 4);
  grpc::Status Act(const v1::CreateTableResponse& table, int seat,
                   const std::string& request_id, v1::ActRequest action,
                   v1::ActResponse* response = nullptr);
  v1::TableView GetTable(const std::string& table_id);
  // Checks that the game's record as `seat_token`'s seat sees it ends with exactly
  // the events it was streamed (`live`, which may start after a snapshot), and
  // returns the record.
  v1::GameRecord ExpectRecordIsStream(const std::string& table_id,
                                      const std::string& seat_token,
                                      const std::vector<v1::Event>& live);
  std::shared_ptr<grpc::Channel> NewChannel() const;

  std::unique_ptr<InProcessService> service_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TableService::Stub> stub_;
};

}  // namespace trix::table

#endif  // TRIX_TESTS_INTEGRATION_SERVICE_FIXTURE_H_
