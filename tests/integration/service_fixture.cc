#include "tests/integration/service_fixture.h"

#include <cstdio>
#include <fstream>
#include <future>
#include <utility>

#include "grpcpp/generic/generic_stub.h"
#include "probe.pb.h"
#include "nlohmann/json.hpp"
#include "services/common/auth.h"
#include "services/common/logging.h"

namespace trix::table {

std::vector<std::string> MatchmakingScopes() {
  return {service::kLedgerHold, service::kRatingsRead};
}

std::vector<std::string> MatchmakingTableScopes() {
  return {service::kTablesCreate, service::kTablesVoid};
}

std::shared_ptr<const service::ServiceCredentials> TestCredentials() {
  return *service::ServiceCredentials::Load(
      {.fixed = {service::CredentialFor("backend", kServiceToken, service::AllScopes()),
                 service::CredentialFor("matchmaking", kMatchmakingToken,
                                        MatchmakingScopes()),
                 service::CredentialFor("matchmaking-tables", kMatchmakingTableToken,
                                        MatchmakingTableScopes())}});
}

void WriteCredentialsFile(const std::string& path, const std::vector<TestCredential>& entries) {
  nlohmann::json doc = {{"credentials", nlohmann::json::array()}};
  for (const TestCredential& e : entries) {
    doc["credentials"].push_back(
        {{"name", e.name}, {"sha256", service::TokenHash(e.token)}, {"scopes", e.scopes}});
    if (!e.client_cert.empty()) doc["credentials"].back()["client_cert"] = e.client_cert;
    if (e.holds_need_consent) doc["credentials"].back()["holds_need_consent"] = true;
  }
  const std::string next = path + ".next";
  std::ofstream(next, std::ios::trunc) << doc.dump(2);
  std::rename(next.c_str(), path.c_str());
}

ServiceOptions DefaultServiceOptions(const std::string& instance_id) {
  ServiceOptions o;
  o.host.instance_id = instance_id;
  o.host.lease_ttl = absl::Seconds(2);
  o.host.maintenance_every = absl::Milliseconds(300);
  o.server.listen_address = "127.0.0.1:0";
  o.server.grpc.credentials = TestCredentials();
  o.server.grpc.seat_rate = {.per_second = 1000, .burst = 1000};
  o.server.grpc.peer_rate = {.per_second = 100000, .burst = 100000};
  return o;
}

absl::StatusOr<std::unique_ptr<InProcessService>> InProcessService::Start(
    const std::string& db_url, ServiceOptions options) {
  std::unique_ptr<InProcessService> s(new InProcessService);
  absl::StatusOr<std::unique_ptr<table::GameStore>> store =
      table::GameStore::Open({.url = db_url,
                                .instance_id = options.host.instance_id,
                                .lease_ttl = options.host.lease_ttl});
  if (!store.ok()) return store.status();
  s->store_ = *std::move(store);
  absl::StatusOr<std::unique_ptr<table::InstanceRegistry>> registry =
      table::InstanceRegistry::Open({.url = db_url,
                                       .instance_id = options.host.instance_id,
                                       .live_for = options.host.lease_ttl});
  if (!registry.ok()) return registry.status();
  s->instances_ = *std::move(registry);
  s->tables_ = PostgresTableStore(s->store_.get(), s->instances_.get());
  s->host_ = std::make_unique<TableHost>(options.host, s->tables_.get(), &s->registry_);
  absl::StatusOr<std::unique_ptr<TableServer>> server =
      TableServer::Start(options.server, s->host_.get());
  if (!server.ok()) return server.status();
  s->server_ = *std::move(server);
  s->host_->Advertise(s->address());
  if (absl::Status started = s->host_->Start(); !started.ok()) return started;
  s->server_->SetServing(true);
  return s;
}

InProcessService::~InProcessService() { Shutdown(); }

void InProcessService::Shutdown() {
  if (server_) server_->Shutdown(absl::Seconds(2));
  server_.reset();
  host_.reset();
  tables_.reset();
  instances_.reset();
  store_.reset();
}

int HealthStatus(const std::shared_ptr<grpc::Channel>& channel,
                 const std::string& service) {
  grpc::TemplatedGenericStub<trix::testing::HealthCheckRequest,
                             trix::testing::HealthCheckResponse>
      health(channel);
  trix::testing::HealthCheckRequest request;
  request.set_service(service);
  trix::testing::HealthCheckResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  std::promise<grpc::Status> done;
  health.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(),
                   &request, &response, [&](grpc::Status s) { done.set_value(s); });
  if (!done.get_future().get().ok()) return -1;
  return response.status();
}

v1::Mode MakeMode(v1::Team team, v1::Format format) {
  v1::Mode mode;
  mode.set_team(team);
  mode.set_format(format);
  return mode;
}

v1::ActRequest PlayCard(const std::string& card) {
  v1::ActRequest r;
  r.mutable_play_card()->set_card(card);
  return r;
}

v1::ActRequest ChooseContract(v1::Contract contract) {
  v1::ActRequest r;
  r.mutable_choose_contract()->set_contract(contract);
  return r;
}

v1::ActRequest Leave() {
  v1::ActRequest r;
  r.mutable_leave();
  return r;
}

void TableServiceTest::SetUp() {
  service::InitLogging("table-service-test", "warn");
  ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
  StartService(DefaultServiceOptions());
}

void TableServiceTest::TearDown() {
  StopService();
  db_.reset();
}

void TableServiceTest::StartService(ServiceOptions options) {
  StopService();
  absl::StatusOr<std::unique_ptr<InProcessService>> service =
      InProcessService::Start(db_->url(), std::move(options));
  ASSERT_TRUE(service.ok()) << service.status();
  service_ = *std::move(service);
  channel_ = NewChannel();
  stub_ = v1::TableService::NewStub(channel_);
}

void TableServiceTest::StopService() {
  stub_.reset();
  channel_.reset();
  service_.reset();
}

std::shared_ptr<grpc::Channel> TableServiceTest::NewChannel() const {
  // A channel of its own per client, as separate processes would have.
  grpc::ChannelArguments args;
  args.SetInt("grpc.use_local_subchannel_pool", 1);
  return grpc::CreateCustomChannel(service_->address(),
                                   grpc::InsecureChannelCredentials(), args);
}

v1::CreateTableRequest TableServiceTest::CreateRequest(const v1::Mode& mode,
                                                       uint64_t seed, int clock_ms,
                                                       int kingdoms) {
  v1::CreateTableRequest r;
  static int counter = 0;
  r.set_request_id("create-" + std::to_string(seed) + "-" + std::to_string(++counter));
  *r.mutable_mode() = mode;
  r.set_seed(seed);
  // Tests watch their tables as spectators; who may is tested on its own.
  r.set_public_spectating(true);
  r.mutable_rules()->set_kingdoms(kingdoms);
  r.mutable_clocks()->set_contract_ms(clock_ms);
  r.mutable_clocks()->set_doubling_ms(clock_ms);
  r.mutable_clocks()->set_card_ms(clock_ms);
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = r.add_seats();
    seat->set_player_id("player-" + std::to_string(seed) + "-" + std::to_string(s));
    seat->set_display_name("Seat " + std::to_string(s));
    seat->set_stake(s == 1 ? 0 : 10 * (s + 1));
  }
  return r;
}

grpc::Status TableServiceTest::CallCreate(const v1::CreateTableRequest& request,
                                          v1::CreateTableResponse* response,
                                          const std::string& authorization) {
  grpc::ClientContext context;
  if (!authorization.empty()) context.AddMetadata("authorization", authorization);
  return stub_->CreateTable(&context, request, response);
}

v1::CreateTableResponse TableServiceTest::CreateTable(const v1::Mode& mode, uint64_t seed,
                                                      int clock_ms, int kingdoms) {
  v1::CreateTableResponse response;
  grpc::Status s = CallCreate(CreateRequest(mode, seed, clock_ms, kingdoms), &response,
                              std::string("Bearer ") + kServiceToken);
  EXPECT_TRUE(s.ok()) << s.error_code() << " " << s.error_message();
  return response;
}

grpc::Status TableServiceTest::Act(const v1::CreateTableResponse& table, int seat,
                                   const std::string& request_id, v1::ActRequest action,
                                   v1::ActResponse* response) {
  action.set_table_id(table.table_id());
  if (seat >= 0) action.set_seat_token(table.seat_tokens(seat));
  action.set_request_id(request_id);
  v1::ActResponse ignored;
  grpc::ClientContext context;
  return stub_->Act(&context, action, response ? response : &ignored);
}

v1::TableView TableServiceTest::GetTable(const std::string& table_id) {
  v1::GetTableRequest request;
  request.set_table_id(table_id);
  v1::TableView view;
  grpc::ClientContext context;
  grpc::Status s = stub_->GetTable(&context, request, &view);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return view;
}

v1::GameRecord TableServiceTest::ExpectRecordIsStream(
    const std::string& table_id, const std::string& seat_token,
    const std::vector<v1::Event>& live) {
  v1::GetGameRecordRequest request;
  request.set_game_id(table_id);
  request.set_seat_token(seat_token);
  v1::GameRecord record;
  grpc::ClientContext context;
  const grpc::Status s = stub_->GetGameRecord(&context, request, &record);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_FALSE(live.empty());
  if (!s.ok() || live.empty()) return record;
  const int skipped = static_cast<int>(live.front().seq()) - 1;
  EXPECT_EQ(record.events_size(), skipped + static_cast<int>(live.size()));
  if (record.events_size() != skipped + static_cast<int>(live.size())) return record;
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(record.events(skipped + static_cast<int>(i)).SerializeAsString(),
              live[i].SerializeAsString())
        << "event " << live[i].seq();
  }
  return record;
}

}  // namespace trix::table
