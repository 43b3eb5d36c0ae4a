// What a client may get wrong, and what the operations side sees: every bad request
// gets its exact status code and changes nothing; tokens; idempotency; sizes and
// rates; health checking, reflection and draining.
#include <algorithm>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "probe.pb.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

class ErrorsTest : public TableServiceTest {
 protected:
  // The seat's view through its own stream's first message.
  v1::TableView SeatView(const v1::CreateTableResponse& table, int seat) {
    SeatClient client(NewChannel(), table.table_id(), table.seat_tokens(seat), seat);
    client.Open();
    EXPECT_TRUE(
        client.WaitUntil([](const auto& u) { return !u.empty(); }, absl::Seconds(5)));
    client.Close();
    return client.updates().front().snapshot();
  }
};

TEST_F(ErrorsTest, CreateTableNeedsTheServiceToken) {
  v1::CreateTableRequest request =
      CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 1);
  v1::CreateTableResponse response;
  EXPECT_EQ(CallCreate(request, &response, "").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  // A token that is no credential's proves nobody.
  EXPECT_EQ(CallCreate(request, &response, "Bearer wrong").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(CallCreate(request, &response, kServiceToken).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(service_->host().table_count(), 0u);
}

TEST_F(ErrorsTest, CreateTableChecksAndRepeats) {
  const std::string bearer = std::string("Bearer ") + kServiceToken;
  v1::CreateTableResponse response;
  v1::CreateTableRequest bad =
      CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 1);
  bad.mutable_seats()->RemoveLast();
  EXPECT_EQ(CallCreate(bad, &response, bearer).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  bad = CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_UNSPECIFIED), 1);
  EXPECT_EQ(CallCreate(bad, &response, bearer).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  bad = CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 1, 0, /*kingdoms=*/9);
  EXPECT_EQ(CallCreate(bad, &response, bearer).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  v1::CreateTableRequest good =
      CreateRequest(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 2);
  v1::CreateTableResponse first, again;
  ASSERT_TRUE(CallCreate(good, &first, bearer).ok());
  ASSERT_TRUE(CallCreate(good, &again, bearer).ok());
  EXPECT_EQ(again.table_id(), first.table_id());
  EXPECT_EQ(again.seat_tokens(3), first.seat_tokens(3));
  EXPECT_EQ(service_->host().table_count(), 1u);
  // Another instance (a restart) no longer knows the tokens: it says which table.
  StartService(DefaultServiceOptions("it-2"));
  grpc::Status repeat = CallCreate(good, &again, bearer);
  EXPECT_EQ(repeat.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(repeat.error_message(), HasSubstr(first.table_id()));
}

TEST_F(ErrorsTest, BadActionsGetTheirCodeAndChangeNothing) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 3);
  const int owner = table.table().owner();
  const int other = (owner + 1) % 4;
  const v1::TableView before = GetTable(table.table_id());
  const v1::TableView owner_before = SeatView(table, owner);

  struct Case {
    int seat;
    std::string request_id;
    v1::ActRequest action;
    grpc::StatusCode code;
    std::string message;
  };
  v1::ActRequest empty;
  v1::ActRequest unspecified;
  unspecified.mutable_choose_contract();
  const std::vector<Case> cases = {
      {owner, "", ChooseContract(v1::CONTRACT_TRIX), grpc::StatusCode::INVALID_ARGUMENT,
       "request_id"},
      {owner, "a", empty, grpc::StatusCode::INVALID_ARGUMENT, "names no action"},
      {owner, "a", PlayCard("1Z"), grpc::StatusCode::INVALID_ARGUMENT, "not a card"},
      {owner, "a", PlayCard(""), grpc::StatusCode::INVALID_ARGUMENT, "not a card"},
      {owner, "a", unspecified, grpc::StatusCode::INVALID_ARGUMENT, "not a contract"},
      {other, "a", ChooseContract(v1::CONTRACT_TRIX),
       grpc::StatusCode::FAILED_PRECONDITION, "does not own this kingdom"},
      {owner, "a", ChooseContract(v1::CONTRACT_COMPLEX),
       grpc::StatusCode::FAILED_PRECONDITION, "not played in classic"},
      {owner, "a", PlayCard("2C"), grpc::StatusCode::FAILED_PRECONDITION,
       "no card may be played"},
      {-1, "a", ChooseContract(v1::CONTRACT_TRIX), grpc::StatusCode::UNAUTHENTICATED,
       "seat_token"},
  };
  for (const Case& c : cases) {
    grpc::Status s = Act(table, c.seat, c.request_id, c.action);
    EXPECT_EQ(s.error_code(), c.code) << c.message << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(c.message));
  }
  v1::ActRequest foreign = ChooseContract(v1::CONTRACT_TRIX);
  foreign.set_table_id(table.table_id());
  foreign.set_seat_token("a-token-of-nobody");
  foreign.set_request_id("a");
  v1::ActResponse response;
  grpc::ClientContext context;
  EXPECT_EQ(stub_->Act(&context, foreign, &response).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  foreign.set_table_id("00000000-0000-4000-8000-000000000000");
  grpc::ClientContext context2;
  EXPECT_EQ(stub_->Act(&context2, foreign, &response).error_code(),
            grpc::StatusCode::NOT_FOUND);

  // Nothing changed, for anyone.
  EXPECT_EQ(GetTable(table.table_id()).SerializeAsString(), before.SerializeAsString());
  EXPECT_EQ(SeatView(table, owner).SerializeAsString(), owner_before.SerializeAsString());

  // Doubling: a card one does not hold, or may not double.
  ASSERT_TRUE(Act(table, owner, "k", ChooseContract(v1::CONTRACT_KING_OF_HEARTS)).ok());
  const v1::TableView doubling = SeatView(table, other);
  ASSERT_EQ(doubling.phase(), v1::PHASE_DOUBLING);
  v1::ActRequest select;
  const bool has_kh = std::count(doubling.hand().begin(), doubling.hand().end(), "KH");
  select.mutable_select_doubles()->add_cards(has_kh ? "QS" : "KH");
  grpc::Status s = Act(table, other, "d", select);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  select.mutable_select_doubles()->set_cards(0, "KH");
  select.mutable_select_doubles()->add_cards("KH");
  EXPECT_EQ(Act(table, other, "d", select).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(SeatView(table, other).SerializeAsString(), doubling.SerializeAsString());
}

TEST_F(ErrorsTest, TokensOpenOnlyTheirOwnSeat) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 4);
  v1::CreateTableResponse other =
      CreateTable(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 5);
  for (const std::string& token :
       {std::string(""), other.seat_tokens(0), std::string("forged")}) {
    SeatClient client(NewChannel(), table.table_id(), token, 0);
    client.Open();
    grpc::Status end = client.WaitDone(absl::Seconds(5));
    EXPECT_EQ(end.error_code(), token.empty() ? grpc::StatusCode::UNAUTHENTICATED
                                              : grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_TRUE(client.updates().empty());
  }
  // Each token sees its own seat's hand once shown, and only it.
  for (int s = 0; s < 4; ++s) {
    SeatClient client(NewChannel(), table.table_id(), table.seat_tokens(s), s);
    client.Open();
    ASSERT_TRUE(
        client.WaitUntil([](const auto& u) { return !u.empty(); }, absl::Seconds(5)));
    EXPECT_EQ(client.updates().front().snapshot().viewer(), s);
  }
  v1::GetGameRecordRequest record_request;
  record_request.set_game_id(table.table_id());
  record_request.set_seat_token(other.seat_tokens(1));
  v1::GameRecord record;
  grpc::ClientContext context;
  EXPECT_EQ(stub_->GetGameRecord(&context, record_request, &record).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
}

TEST_F(ErrorsTest, RepeatedRequestIdIsAppliedOnce) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 6);
  const int owner = table.table().owner();
  v1::ActResponse first, second, third;
  ASSERT_TRUE(Act(table, owner, "once", ChooseContract(v1::CONTRACT_TRIX), &first).ok());
  ASSERT_TRUE(Act(table, owner, "once", ChooseContract(v1::CONTRACT_TRIX), &second).ok());
  // Same id, other content: still the stored answer (documented: the key decides).
  ASSERT_TRUE(
      Act(table, owner, "once", ChooseContract(v1::CONTRACT_COMPLEX), &third).ok());
  EXPECT_EQ(second.seq(), first.seq());
  EXPECT_EQ(third.seq(), first.seq());
  v1::TableView view = GetTable(table.table_id());
  EXPECT_EQ(view.contract(), v1::CONTRACT_TRIX);
  EXPECT_EQ(view.phase(), v1::PHASE_PLAYING);
  // The same key from another seat is another request.
  const int next = view.turn().seats(0);
  grpc::Status s = Act(table, (next + 1) % 4, "once", PlayCard("2C"));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(ErrorsTest, OversizedRequestIsRefused) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 7);
  grpc::Status s =
      Act(table, 0, std::string(200 * 1024, 'x'), ChooseContract(v1::CONTRACT_TRIX));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_EQ(Act(table, 0, std::string(129, 'x'), ChooseContract(v1::CONTRACT_TRIX))
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(ErrorsTest, AFloodingSeatIsLimitedAndOthersAreNot) {
  ServiceOptions options = DefaultServiceOptions();
  options.server.grpc.seat_rate = {.per_second = 20, .burst = 20};
  StartService(options);
  v1::CreateTableResponse flooded =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 8);
  v1::CreateTableResponse calm =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 9);
  const int not_owner = (flooded.table().owner() + 1) % 4;
  int limited = 0;
  for (int i = 0; i < 200; ++i) {
    grpc::Status s = Act(flooded, not_owner, "f" + std::to_string(i), PlayCard("2C"));
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++limited;
  }
  EXPECT_GT(limited, 100);
  // Other seats and other tables go on at full speed.
  const absl::Time start = absl::Now();
  EXPECT_TRUE(
      Act(calm, calm.table().owner(), "c", ChooseContract(v1::CONTRACT_TRIX)).ok());
  EXPECT_TRUE(
      Act(flooded, flooded.table().owner(), "c", ChooseContract(v1::CONTRACT_TRIX)).ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST_F(ErrorsTest, RatesKeyOnVerifiedSeatsNotOnTheAddress) {
  // One address (this process) playing many seats, as one bot process does.
  ServiceOptions options = DefaultServiceOptions();
  options.server.grpc.seat_rate = {.per_second = 1000, .burst = 1000};
  options.server.grpc.peer_rate = {.per_second = 1, .burst = 5};
  StartService(options);
  std::vector<v1::CreateTableResponse> tables;
  // The backend's CreateTable counts against the backend, not the address.
  for (int t = 0; t < 8; ++t) {
    tables.push_back(CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 30 + t));
  }
  int seat_calls = 0;
  for (const v1::CreateTableResponse& table : tables) {
    for (int seat = 0; seat < 4; ++seat) {
      // Refused by the rules (not this seat's turn, or not its card), never by
      // the rate: 32 verified seats' calls from an address allowed 5.
      grpc::Status s = Act(table, seat, "r" + std::to_string(seat), PlayCard("2C"));
      EXPECT_NE(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << s.error_message();
      ++seat_calls;
    }
  }
  EXPECT_EQ(seat_calls, 32);
  // A token that verifies nowhere counts against the address, and runs out.
  v1::CreateTableResponse forged = tables[0];
  for (int seat = 0; seat < 4; ++seat) forged.set_seat_tokens(seat, "forged");
  int limited = 0;
  for (int i = 0; i < 20; ++i) {
    grpc::Status s = Act(forged, 0, "x" + std::to_string(i), PlayCard("2C"));
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++limited;
      EXPECT_EQ(s.error_message(), "too many requests from this address; slow down");
    } else {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
    }
  }
  EXPECT_GE(limited, 14);
  // Once the address has spent its bucket, no token from it is verified until the
  // bucket refills (1/s here): a real seat's call from it waits with the flood's.
  const v1::CreateTableResponse& calm = tables[1];
  grpc::Status screened =
      Act(calm, calm.table().owner(), "c", ChooseContract(v1::CONTRACT_TRIX));
  EXPECT_EQ(screened.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  absl::SleepFor(absl::Milliseconds(1100));
  EXPECT_TRUE(
      Act(calm, calm.table().owner(), "c", ChooseContract(v1::CONTRACT_TRIX)).ok());
}

TEST_F(ErrorsTest, HealthAndReflection) {
  EXPECT_EQ(HealthStatus(channel_, ""), trix::testing::HealthCheckResponse::SERVING);
  EXPECT_EQ(HealthStatus(channel_, "trix.v1.TableService"),
            trix::testing::HealthCheckResponse::SERVING);

  // Reflection lists the API, so grpcurl-style tools can call it.
  grpc::TemplatedGenericStub<trix::testing::ServerReflectionRequest,
                             trix::testing::ServerReflectionResponse>
      reflection(channel_);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  auto call = reflection.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
  void* tag;
  bool ok;
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  trix::testing::ServerReflectionRequest request;
  request.set_list_services("*");
  call->Write(request, reinterpret_cast<void*>(2));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  trix::testing::ServerReflectionResponse response;
  call->Read(&response, reinterpret_cast<void*>(3));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  std::vector<std::string> names;
  for (const auto& s : response.list_services_response().service())
    names.push_back(s.name());
  EXPECT_THAT(names,
              ::testing::IsSupersetOf({"trix.v1.TableService", "grpc.health.v1.Health"}));
  call->WritesDone(reinterpret_cast<void*>(4));
  cq.Next(&tag, &ok);
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

TEST_F(ErrorsTest, ShutdownEndsStreamsUnavailable) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 10);
  SeatClient client(NewChannel(), table.table_id(), table.seat_tokens(0), 0);
  client.Open();
  ASSERT_TRUE(
      client.WaitUntil([](const auto& u) { return !u.empty(); }, absl::Seconds(5)));
  service_->Shutdown();
  grpc::Status end = client.WaitDone(absl::Seconds(10));
  EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE) << end.error_message();
}

}  // namespace
}  // namespace trix::table
