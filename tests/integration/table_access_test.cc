// Who may read what, over the public API: spectating is a per-table option set at
// creation, and a player's tables and games are listed only for the backend or
// the player (seat token, or a player token the login service signed, checked
// against its key set).
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/common/player_tokens.h"
#include "services/common/testing/test_tokens.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

constexpr char kBackend[] = "Bearer integration-service-token";

class AccessTest : public TableServiceTest {
 protected:
  void SetUp() override {
    TableServiceTest::SetUp();
    // The process's own file: test processes run side by side, each with its own key.
    const std::string jwks =
        absl::StrCat(::testing::TempDir(), "/table-access-jwks-", getpid(), ".json");
    service::ReplaceFile(jwks, service::Jwks({login_}));
    auto tokens = service::PlayerTokens::Open(
        {.jwks_file = jwks, .issuer = "login.trix", .audience = "trix"});
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    ServiceOptions options = DefaultServiceOptions();
    options.server.grpc.player_tokens = *tokens;
    StartService(options);
  }
  std::string PlayerBearer(const std::string& player) const {
    return "Bearer " + service::SignToken(login_, service::GoodClaims(player, absl::Now()));
  }

  const service::TestKey login_ = service::NewTestKey("ES256", "login-1");

  v1::CreateTableResponse Create(bool public_spectating, uint64_t seed) {
    v1::CreateTableRequest request =
        CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), seed);
    request.set_public_spectating(public_spectating);
    v1::CreateTableResponse response;
    EXPECT_TRUE(CallCreate(request, &response, kBackend).ok());
    return response;
  }
  grpc::StatusCode GetTableAs(const std::string& table_id,
                              const std::string& authorization) {
    grpc::ClientContext context;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    v1::GetTableRequest request;
    request.set_table_id(table_id);
    v1::TableView view;
    return stub_->GetTable(&context, request, &view).error_code();
  }
  grpc::StatusCode WatchAs(const std::string& table_id,
                           const std::string& authorization) {
    grpc::ClientContext context;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    v1::WatchRequest request;
    request.set_table_id(table_id);
    auto reader = stub_->Watch(&context, request);
    v1::TableUpdate update;
    // A table in play streams on; the first update is enough.
    if (reader->Read(&update)) return grpc::StatusCode::OK;
    return reader->Finish().error_code();
  }
  grpc::StatusCode RecordAs(const std::string& game_id, const std::string& seat_token,
                            const std::string& authorization) {
    grpc::ClientContext context;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    v1::GetGameRecordRequest request;
    request.set_game_id(game_id);
    request.set_seat_token(seat_token);
    v1::GameRecord record;
    return stub_->GetGameRecord(&context, request, &record).error_code();
  }
  // ListPlayerTables and ListPlayerGames give the same answer; returns it.
  grpc::StatusCode ListAs(const std::string& player_id,
                          const std::vector<std::pair<std::string, std::string>>& md) {
    grpc::StatusCode codes[2];
    for (int call = 0; call < 2; ++call) {
      grpc::ClientContext context;
      for (const auto& [key, value] : md) context.AddMetadata(key, value);
      if (call == 0) {
        v1::ListPlayerTablesRequest request;
        request.set_player_id(player_id);
        v1::ListPlayerTablesResponse response;
        codes[call] = stub_->ListPlayerTables(&context, request, &response).error_code();
      } else {
        v1::ListPlayerGamesRequest request;
        request.set_player_id(player_id);
        v1::ListPlayerGamesResponse response;
        codes[call] = stub_->ListPlayerGames(&context, request, &response).error_code();
      }
    }
    EXPECT_EQ(codes[0], codes[1]) << "for player " << player_id;
    return codes[0];
  }
};

TEST_F(AccessTest, APrivateTableIsSpectatedOnlyByTheBackend) {
  const v1::CreateTableResponse table = Create(/*public_spectating=*/false, 40);
  EXPECT_EQ(GetTableAs(table.table_id(), ""), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(GetTableAs(table.table_id(), "Bearer not-the-token"),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(GetTableAs(table.table_id(), kBackend), grpc::StatusCode::OK);
  EXPECT_EQ(WatchAs(table.table_id(), ""), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(WatchAs(table.table_id(), kBackend), grpc::StatusCode::OK);
  // The public record is spectating too; a seat's own record never is.
  EXPECT_EQ(RecordAs(table.table_id(), "", ""), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(RecordAs(table.table_id(), "", kBackend), grpc::StatusCode::OK);
  EXPECT_EQ(RecordAs(table.table_id(), table.seat_tokens(2), ""), grpc::StatusCode::OK);
}

TEST_F(AccessTest, APublicTableIsSpectatedByAnyone) {
  const v1::CreateTableResponse table = Create(/*public_spectating=*/true, 41);
  EXPECT_EQ(GetTableAs(table.table_id(), ""), grpc::StatusCode::OK);
  EXPECT_EQ(WatchAs(table.table_id(), ""), grpc::StatusCode::OK);
  EXPECT_EQ(RecordAs(table.table_id(), "", ""), grpc::StatusCode::OK);
}

TEST_F(AccessTest, APlayersHistoryIsListedForTheBackendAndThePlayerOnly) {
  const v1::CreateTableResponse table = Create(/*public_spectating=*/true, 42);
  const std::string me = table.table().seats(1).player_id();
  const std::string other = table.table().seats(2).player_id();
  EXPECT_EQ(ListAs(me, {}), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ListAs(me, {{"authorization", kBackend}}), grpc::StatusCode::OK);
  // The player, by one of their seat tokens at a table hosted here.
  const std::vector<std::pair<std::string, std::string>> my_seat = {
      {"x-trix-table-id", table.table_id()}, {"x-trix-seat-token", table.seat_tokens(1)}};
  EXPECT_EQ(ListAs(me, my_seat), grpc::StatusCode::OK);
  EXPECT_EQ(ListAs(other, my_seat), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(ListAs(me, {{"x-trix-table-id", table.table_id()},
                        {"x-trix-seat-token", "forged"}}),
            grpc::StatusCode::PERMISSION_DENIED);
  // The player, by a player token the login service signed.
  EXPECT_EQ(ListAs(me, {{"authorization", PlayerBearer(me)}}), grpc::StatusCode::OK);
  EXPECT_EQ(ListAs(other, {{"authorization", PlayerBearer(me)}}),
            grpc::StatusCode::PERMISSION_DENIED);
  const service::TestKey forger = service::NewTestKey("ES256", "login-1");
  EXPECT_EQ(ListAs(me, {{"authorization",
                         "Bearer " + service::SignToken(forger, service::GoodClaims(
                                                                    me, absl::Now()))}}),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(ListAs(me, {{"authorization", "Bearer garbage"}}),
            grpc::StatusCode::PERMISSION_DENIED);
}

TEST_F(AccessTest, PublicPlayerHistoryIsADeliberateSetting) {
  ServiceOptions options = DefaultServiceOptions();
  options.server.grpc.public_player_history = true;
  StartService(options);
  const v1::CreateTableResponse table = Create(/*public_spectating=*/false, 43);
  EXPECT_EQ(ListAs(table.table().seats(0).player_id(), {}), grpc::StatusCode::OK);
  // Spectating stays per table.
  EXPECT_EQ(GetTableAs(table.table_id(), ""), grpc::StatusCode::PERMISSION_DENIED);
}

}  // namespace
}  // namespace trix::table
