#include "tests/integration/matchmaking_fixture.h"

#include <unistd.h>

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "services/common/player_tokens.h"

namespace trix::matchmaking {

TicketClient::TicketClient(v1::MatchmakingService::Stub* stub,
                           const v1::FindTableRequest& request,
                           const std::string& authorization) {
  if (!authorization.empty()) context_.AddMetadata("authorization", authorization);
  thread_ = std::thread([this, stub, request] {
    std::unique_ptr<grpc::ClientReader<v1::MatchUpdate>> reader =
        stub->FindTable(&context_, request);
    v1::MatchUpdate update;
    while (reader->Read(&update)) {
      absl::MutexLock lock(&mu_);
      if (update.has_queued()) queued_.push_back(update.queued());
      if (update.has_assignment()) assignment_ = update.assignment();
    }
    grpc::Status s = reader->Finish();
    absl::MutexLock lock(&mu_);
    status_ = s;
    done_ = true;
  });
}

TicketClient::~TicketClient() {
  context_.TryCancel();
  thread_.join();
}

bool TicketClient::WaitDone(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&done_), timeout);
}

bool TicketClient::WaitQueued(int n, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(queued_.size()) >= n || done_;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout) &&
         static_cast<int>(queued_.size()) >= n;
}

grpc::Status TicketClient::status() {
  absl::MutexLock lock(&mu_);
  return status_;
}

std::vector<v1::Queued> TicketClient::queued() {
  absl::MutexLock lock(&mu_);
  return queued_;
}

v1::Assignment TicketClient::assignment() {
  absl::MutexLock lock(&mu_);
  return assignment_;
}

BotClient::BotClient(v1::MatchmakingService::Stub* stub, const std::string& key,
                     int capacity) {
  context_.AddMetadata("authorization", "Bearer " + key);
  v1::ServeBotRequest request;
  request.set_capacity(capacity);
  thread_ = std::thread([this, stub, request] {
    std::unique_ptr<grpc::ClientReader<v1::BotUpdate>> reader =
        stub->ServeBot(&context_, request);
    v1::BotUpdate update;
    while (reader->Read(&update)) {
      absl::MutexLock lock(&mu_);
      if (update.has_assignment()) assignments_.push_back(update.assignment());
      if (update.has_keep_alive()) ++keep_alives_;
    }
    reader->Finish();
  });
}

BotClient::~BotClient() {
  context_.TryCancel();
  thread_.join();
}

bool BotClient::WaitAssignments(int n, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(assignments_.size()) >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
}

std::vector<v1::Assignment> BotClient::assignments() {
  absl::MutexLock lock(&mu_);
  return assignments_;
}

int BotClient::keep_alives() {
  absl::MutexLock lock(&mu_);
  return keep_alives_;
}

const service::TestKey& LoginKey() {
  static const service::TestKey* key = new service::TestKey(service::NewTestKey("EdDSA", "login-1"));
  return *key;
}

std::string PlayerToken(const std::string& player, int64_t expires_in_s) {
  nlohmann::json claims = service::GoodClaims(player, absl::Now());
  claims["exp"] = absl::ToUnixSeconds(absl::Now()) + expires_in_s;
  return "Bearer " + service::SignToken(LoginKey(), claims);
}

namespace {
std::shared_ptr<const service::PlayerTokens> LoginTokens() {
  // The process's own file: test processes run side by side, each with its own key.
  const std::string jwks =
      absl::StrCat(::testing::TempDir(), "/mm-login-jwks-", getpid(), ".json");
  service::ReplaceFile(jwks, service::Jwks({LoginKey()}));
  auto tokens = service::PlayerTokens::Open(
      {.jwks_file = jwks, .issuer = "login.trix", .audience = "trix"});
  EXPECT_TRUE(tokens.ok()) << tokens.status();
  return tokens.ok() ? *tokens : nullptr;
}
}  // namespace

MatchmakingConfig TestConfig(const std::string& db_url) {
  MatchmakingConfig c;
  c.listen_address = "127.0.0.1:0";
  c.database_url = db_url;
  c.auth.credentials = table::TestCredentials();
  c.auth.player_tokens = LoginTokens();
  c.credential_token = table::kMatchmakingToken;
  c.table_credential_token = table::kMatchmakingTableToken;
  c.seat_token_key = "integration seat token key";
  c.stake_levels = {100};
  c.pool.bot_fill_wait = absl::Seconds(2);
  c.tick = absl::Milliseconds(5);
  c.lease_retry = absl::Milliseconds(200);
  c.poll_every = absl::Milliseconds(50);
  c.update_every = absl::Milliseconds(200);
  c.keep_alive_every = absl::Milliseconds(300);
  return c;
}

void MatchmakingTest::SetUp() {
  ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
  absl::StatusOr<std::unique_ptr<table::InProcessService>> tables =
      table::InProcessService::Start(db_->url(), table::DefaultServiceOptions());
  ASSERT_TRUE(tables.ok()) << tables.status();
  tables_ = *std::move(tables);
  RegisterTableInstance("it-1", tables_->address());
}

void MatchmakingTest::TearDown() {
  stub_.reset();
  if (matchmaking_) matchmaking_->Shutdown(absl::ZeroDuration());
  matchmaking_.reset();
  tables_.reset();
}

void MatchmakingTest::StartMatchmaking(MatchmakingConfig config) {
  if (matchmaking_) matchmaking_->Shutdown(absl::ZeroDuration());
  absl::StatusOr<std::unique_ptr<MatchmakingServer>> server =
      MatchmakingServer::Start(config, &registry_);
  ASSERT_TRUE(server.ok()) << server.status();
  matchmaking_ = *std::move(server);
  matchmaking_->SetReady();  // the test database is migrated
  stub_ = v1::MatchmakingService::NewStub(
      grpc::CreateChannel(matchmaking_->address(), grpc::InsecureChannelCredentials()));
}

void MatchmakingTest::RegisterTableInstance(const std::string& id,
                                            const std::string& address) {
  pqxx::connection c(db_->url());
  pqxx::work tx(c);
  tx.exec_params0(
      "INSERT INTO table_instances (instance_id, address, capacity) VALUES ($1, $2, 1000) "
      "ON CONFLICT (instance_id) DO UPDATE SET address = $2, heartbeat = now()",
      id, address);
  tx.commit();
}

v1::FindTableRequest MatchmakingTest::Request(const std::string& player,
                                              const std::string& request_id) {
  v1::FindTableRequest r;
  r.set_request_id(request_id);
  r.set_player_id(player);
  r.set_display_name(player);
  return r;
}

std::unique_ptr<TicketClient> MatchmakingTest::Queue(const std::string& player,
                                                     const std::string& request_id) {
  return Queue(Request(player, request_id));
}

std::unique_ptr<TicketClient> MatchmakingTest::Queue(const v1::FindTableRequest& request) {
  return std::make_unique<TicketClient>(stub_.get(), request, kServiceBearer);
}

std::string MatchmakingTest::TicketStatus(const std::string& ticket_id) {
  pqxx::connection c(db_->url());
  pqxx::read_transaction tx(c);
  pqxx::result r =
      tx.exec_params("SELECT status FROM mm_tickets WHERE ticket_id = $1", ticket_id);
  return r.empty() ? "" : r[0][0].as<std::string>();
}

v1::TableView MatchmakingTest::Table(const v1::Assignment& a) {
  auto stub = v1::TableService::NewStub(
      grpc::CreateChannel(a.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  // The backend's view: tables placed by matchmaking are not open to spectators.
  context.AddMetadata("authorization", std::string("Bearer ") + table::kServiceToken);
  v1::GetTableRequest request;
  request.set_table_id(a.table_id());
  v1::TableView view;
  grpc::Status s = stub->GetTable(&context, request, &view);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return view;
}

}  // namespace trix::matchmaking
