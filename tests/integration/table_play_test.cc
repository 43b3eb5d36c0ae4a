// Play streams over gRPC: a seat's updates and its actions on one bidirectional
// stream. Whole games of every mode played that way (leak-checked), each result in
// the update that carries its action's event, and every way a client can get the
// stream wrong.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/visibility_check.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

class PlayTest : public TableServiceTest {
 protected:
  // A Play stream of `seat`, opened and past its first update.
  std::unique_ptr<SeatClient> OpenSeat(const v1::CreateTableResponse& table, int seat) {
    auto client = std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                               table.seat_tokens(seat), seat);
    client->OpenPlay();
    EXPECT_TRUE(
        client->WaitUntil([](const auto& u) { return !u.empty(); }, absl::Seconds(5)));
    return client;
  }
};

v1::PlayRequest ActMessage(const std::string& request_id, v1::ActRequest act) {
  v1::PlayRequest request;
  act.set_request_id(request_id);
  *request.mutable_act() = std::move(act);
  return request;
}

// The update that carried `result` (the first one with its request id).
const v1::TableUpdate* CarrierOf(const std::vector<v1::TableUpdate>& updates,
                                 const std::string& request_id) {
  for (const v1::TableUpdate& u : updates) {
    for (const v1::ActResult& r : u.results()) {
      if (r.request_id() == request_id) return &u;
    }
  }
  return nullptr;
}

bool CarriesSeq(const v1::TableUpdate& update, uint64_t seq) {
  for (const v1::Event& e : update.events()) {
    if (e.seq() == seq) return true;
  }
  return false;
}

TEST_F(PlayTest, FourSeatsPlayEveryModeOverPlayStreams) {
  const v1::Mode modes[] = {MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC),
                            MakeMode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC),
                            MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX),
                            MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX)};
  struct Played {
    uint64_t seed;
    v1::CreateTableResponse table;
    std::vector<std::unique_ptr<SeatClient>> seats;  // 0..3 (Play), then a spectator
  };
  std::vector<Played> tables;
  uint64_t seed = 2000;
  for (const v1::Mode& mode : modes) {
    Played t{++seed, CreateTable(mode, seed), {}};
    for (int s = 0; s < 4; ++s) {
      t.seats.push_back(std::make_unique<SeatClient>(NewChannel(), t.table.table_id(),
                                                     t.table.seat_tokens(s), s));
      t.seats.back()->OpenPlay(0, t.seed * 10 + s);
    }
    t.seats.push_back(
        std::make_unique<SeatClient>(NewChannel(), t.table.table_id(), "", -1));
    t.seats.back()->Open();
    tables.push_back(std::move(t));
  }
  for (Played& t : tables) {
    SCOPED_TRACE(t.table.table().mode().ShortDebugString());
    for (auto& client : t.seats) {
      SCOPED_TRACE(testing::Message() << "viewer " << client->seat());
      grpc::Status end = client->WaitDone(absl::Seconds(100));
      ASSERT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
      const std::vector<v1::TableUpdate> updates = client->updates();
      ASSERT_TRUE(updates.front().has_snapshot());
      uint64_t next = updates.front().snapshot().seq() + 1;
      for (size_t i = 1; i < updates.size(); ++i) {
        // No refusals in this game: every update brings events.
        ASSERT_GT(updates[i].events_size(), 0) << "update " << i;
        for (const v1::Event& e : updates[i].events()) ASSERT_EQ(e.seq(), next++);
      }
      EXPECT_TRUE(client->events().back().has_game_ended());
      const std::vector<std::string> leaks = FindLeaks(updates, client->seat(), t.seed);
      EXPECT_TRUE(leaks.empty()) << leaks.size() << " leaks, first: " << leaks.front();
      if (client->seat() < 0) continue;
      EXPECT_TRUE(client->act_errors().empty())
          << client->act_errors().front().error_message();
      // Every action answered OK, in the update that carries its own event, and
      // no prompt went unanswered.
      ASSERT_GT(client->acks().size(), 5u);
      int prompts = 0;
      for (const v1::TableUpdate& u : updates) prompts += u.has_prompt();
      EXPECT_EQ(client->acks().size(), static_cast<size_t>(prompts));
      for (const SeatClient::Ack& ack : client->acks()) {
        const v1::TableUpdate* carrier = CarrierOf(updates, ack.request.request_id());
        ASSERT_NE(carrier, nullptr);
        EXPECT_TRUE(CarriesSeq(*carrier, ack.response.seq()))
            << ack.request.ShortDebugString();
      }
    }
    // What each seat was streamed is its record.
    for (int s = 0; s < 4; ++s) {
      ExpectRecordIsStream(t.table.table_id(), t.table.seat_tokens(s),
                           t.seats[s]->events());
    }
  }
}

TEST_F(PlayTest, AnAcceptedResultComesInTheUpdateOfItsOwnEvent) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 2101);
  const int owner = table.table().owner();
  std::unique_ptr<SeatClient> seat = OpenSeat(table, owner);
  ASSERT_TRUE(seat->Write(ActMessage("c", ChooseContract(v1::CONTRACT_TRIX))));
  std::optional<v1::ActResult> result = seat->WaitResult("c", absl::Seconds(5));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->code(), 0) << result->message();
  // One message for the step: its events, and the result with them.
  const std::vector<v1::TableUpdate> updates = seat->updates();
  ASSERT_EQ(updates.size(), 2u);
  ASSERT_EQ(updates[1].results_size(), 1);
  EXPECT_TRUE(CarriesSeq(updates[1], result->seq()));
  bool chosen = false;
  for (const v1::Event& e : updates[1].events()) {
    chosen = chosen || (e.has_contract_chosen() && e.contract_chosen().owner() == owner);
  }
  EXPECT_TRUE(chosen);
}

TEST_F(PlayTest, TheFirstMessageMustBeSubscribeAndOnlyTheFirst) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 2102);
  const int owner = table.table().owner();
  SeatClient acting(NewChannel(), table.table_id(), table.seat_tokens(owner), owner);
  v1::ActRequest act = ChooseContract(v1::CONTRACT_TRIX);
  act.set_table_id(table.table_id());
  act.set_seat_token(table.seat_tokens(owner));
  acting.OpenPlayWith(ActMessage("first", act));
  grpc::Status end = acting.WaitDone(absl::Seconds(5));
  EXPECT_EQ(end.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(end.error_message(), HasSubstr("first message"));
  EXPECT_TRUE(acting.updates().empty());

  SeatClient empty(NewChannel(), table.table_id(), table.seat_tokens(owner), owner);
  empty.OpenPlayWith(v1::PlayRequest());
  EXPECT_EQ(empty.WaitDone(absl::Seconds(5)).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  std::unique_ptr<SeatClient> twice = OpenSeat(table, owner);
  v1::PlayRequest again;
  again.mutable_subscribe()->set_table_id(table.table_id());
  again.mutable_subscribe()->set_seat_token(table.seat_tokens(owner));
  ASSERT_TRUE(twice->Write(again));
  end = twice->WaitDone(absl::Seconds(5));
  EXPECT_EQ(end.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(end.error_message(), HasSubstr("only be the first"));
  // Nothing was applied.
  EXPECT_EQ(GetTable(table.table_id()).phase(), v1::PHASE_CHOOSING_CONTRACT);
}

TEST_F(PlayTest, OpeningChecksTheTokenAndTheTableAsSubscribeDoes) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 2103);
  v1::CreateTableResponse other =
      CreateTable(MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 2104);
  struct Case {
    std::string table_id, token;
    uint64_t after_seq;
    grpc::StatusCode code;
  };
  const std::vector<Case> cases = {
      {table.table_id(), "", 0, grpc::StatusCode::UNAUTHENTICATED},
      {table.table_id(), other.seat_tokens(0), 0, grpc::StatusCode::PERMISSION_DENIED},
      {table.table_id(), "forged", 0, grpc::StatusCode::PERMISSION_DENIED},
      {"00000000-0000-4000-8000-000000000000", table.seat_tokens(0), 0, grpc::StatusCode::NOT_FOUND},
      {"no-such-table", table.seat_tokens(0), 0, grpc::StatusCode::INVALID_ARGUMENT},
      {table.table_id(), table.seat_tokens(0), 500, grpc::StatusCode::OUT_OF_RANGE},
  };
  for (const Case& c : cases) {
    SeatClient client(NewChannel(), c.table_id, c.token, 0);
    client.OpenPlay(c.after_seq);
    grpc::Status end = client.WaitDone(absl::Seconds(5));
    EXPECT_EQ(end.error_code(), c.code) << c.token << ": " << end.error_message();
    EXPECT_TRUE(client.updates().empty());
  }
  // Resuming: exactly the missed events, as Subscribe.
  std::unique_ptr<SeatClient> first = OpenSeat(table, 1);
  const uint64_t seen = first->last_seq();
  first->Close();
  SeatClient back(NewChannel(), table.table_id(), table.seat_tokens(1), 1);
  back.OpenPlay(seen - 1);
  ASSERT_TRUE(back.WaitUntil([](const auto& u) { return !u.empty(); }, absl::Seconds(5)));
  ASSERT_FALSE(back.updates().front().has_snapshot());
  EXPECT_EQ(back.updates().front().events(0).seq(), seen);
}

TEST_F(PlayTest, BadActionsAreAnsweredInTheStreamWhichStaysOpen) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 2105);
  v1::CreateTableResponse other =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 2106);
  const int owner = table.table().owner();
  std::unique_ptr<SeatClient> seat = OpenSeat(table, owner);
  const v1::TableView before = GetTable(table.table_id());

  struct Case {
    std::string request_id;
    v1::ActRequest action;
    grpc::StatusCode code;
    std::string message;
  };
  v1::ActRequest other_table = ChooseContract(v1::CONTRACT_TRIX);
  other_table.set_table_id(other.table_id());
  v1::ActRequest other_seat = ChooseContract(v1::CONTRACT_TRIX);
  other_seat.set_seat_token(table.seat_tokens((owner + 1) % 4));
  v1::ActRequest other_tables_seat = ChooseContract(v1::CONTRACT_TRIX);
  other_tables_seat.set_seat_token(other.seat_tokens(owner));
  const std::vector<Case> cases = {
      {"t", other_table, grpc::StatusCode::INVALID_ARGUMENT, "table_id"},
      {"s", other_seat, grpc::StatusCode::PERMISSION_DENIED, "seat_token"},
      {"o", other_tables_seat, grpc::StatusCode::PERMISSION_DENIED, "seat_token"},
      {"m", PlayCard("1Z"), grpc::StatusCode::INVALID_ARGUMENT, "not a card"},
      {"n", v1::ActRequest(), grpc::StatusCode::INVALID_ARGUMENT, "names no action"},
      {"", ChooseContract(v1::CONTRACT_TRIX), grpc::StatusCode::INVALID_ARGUMENT,
       "request_id"},
      {"x", ChooseContract(v1::CONTRACT_COMPLEX), grpc::StatusCode::FAILED_PRECONDITION,
       "not played in classic"},
      {"p", PlayCard("2C"), grpc::StatusCode::FAILED_PRECONDITION,
       "no card may be played"},
  };
  size_t updates = seat->updates().size();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    ASSERT_TRUE(seat->Write(ActMessage(c.request_id, c.action)));
    std::optional<v1::ActResult> result =
        seat->WaitResult(c.request_id, absl::Seconds(5));
    ASSERT_TRUE(result.has_value());
    EXPECT_EQ(result->code(), static_cast<int>(c.code)) << result->message();
    EXPECT_THAT(result->message(), HasSubstr(c.message));
    // At once, in an update of its own.
    const std::vector<v1::TableUpdate> now = seat->updates();
    ASSERT_EQ(now.size(), updates + 1);
    EXPECT_EQ(now.back().events_size(), 0);
    EXPECT_FALSE(now.back().has_prompt());
    updates = now.size();
  }
  EXPECT_EQ(GetTable(table.table_id()).SerializeAsString(), before.SerializeAsString());

  // Still usable: a legal action (naming its own table and token) is accepted.
  v1::ActRequest own = ChooseContract(v1::CONTRACT_TRIX);
  own.set_table_id(table.table_id());
  own.set_seat_token(table.seat_tokens(owner));
  ASSERT_TRUE(seat->Write(ActMessage("ok", own)));
  std::optional<v1::ActResult> ok = seat->WaitResult("ok", absl::Seconds(5));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->code(), 0) << ok->message();
  EXPECT_EQ(GetTable(table.table_id()).contract(), v1::CONTRACT_TRIX);
}

TEST_F(PlayTest, ARepeatedRequestIdIsAnsweredTheSameAndAppliedOnce) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 2107);
  const int owner = table.table().owner();
  std::unique_ptr<SeatClient> seat = OpenSeat(table, owner);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(seat->Write(ActMessage("once", ChooseContract(v1::CONTRACT_TRIX))));
  }
  // Even the unary Act sees the same answer.
  v1::ActResponse unary;
  ASSERT_TRUE(Act(table, owner, "once", ChooseContract(v1::CONTRACT_TRIX), &unary).ok());
  ASSERT_TRUE(seat->WaitUntil(
      [](const auto& updates) {
        int results = 0;
        for (const v1::TableUpdate& u : updates) results += u.results_size();
        return results == 3;
      },
      absl::Seconds(5)));
  const std::vector<v1::ActResult> results = seat->results();
  ASSERT_EQ(results.size(), 3u);
  for (const v1::ActResult& r : results) {
    EXPECT_EQ(r.code(), 0) << r.message();
    EXPECT_EQ(r.seq(), unary.seq());
  }
  int chosen = 0;
  for (const v1::Event& e : seat->events()) chosen += e.has_contract_chosen();
  EXPECT_EQ(chosen, 1);
  EXPECT_EQ(GetTable(table.table_id()).contract(), v1::CONTRACT_TRIX);
}

TEST_F(PlayTest, ActionsSentWithoutWaitingAreAnsweredInOrder) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 2108);
  const int not_owner = (table.table().owner() + 1) % 4;
  std::unique_ptr<SeatClient> seat = OpenSeat(table, not_owner);
  // The server reads one at a time; the client may still write ahead.
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(seat->Write(ActMessage("r" + std::to_string(i), PlayCard("2C"))));
  }
  ASSERT_TRUE(seat->WaitResult("r49", absl::Seconds(10)).has_value());
  const std::vector<v1::ActResult> results = seat->results();
  ASSERT_EQ(results.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(results[i].request_id(), "r" + std::to_string(i));
    EXPECT_EQ(results[i].code(), static_cast<int>(grpc::StatusCode::FAILED_PRECONDITION));
  }
}

TEST_F(PlayTest, AFloodingSeatIsRateLimitedOnItsStream) {
  ServiceOptions options = DefaultServiceOptions();
  options.server.grpc.seat_rate = {.per_second = 20, .burst = 20};
  StartService(options);
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 2109);
  const int not_owner = (table.table().owner() + 1) % 4;
  std::unique_ptr<SeatClient> seat = OpenSeat(table, not_owner);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(seat->Write(ActMessage("f" + std::to_string(i), PlayCard("2C"))));
  }
  ASSERT_TRUE(seat->WaitResult("f99", absl::Seconds(10)).has_value());
  int limited = 0;
  for (const v1::ActResult& r : seat->results()) {
    limited += r.code() == static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED);
  }
  EXPECT_GT(limited, 50);
}

TEST_F(PlayTest, AfterHalfClosingTheSeatStillGetsItsUpdatesToTheEnd) {
  const uint64_t seed = 2110;
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), seed, 0, /*kingdoms=*/1);
  std::unique_ptr<SeatClient> leaving = OpenSeat(table, 0);
  ASSERT_TRUE(leaving->Write(ActMessage("bye", Leave())));
  std::optional<v1::ActResult> left = leaving->WaitResult("bye", absl::Seconds(5));
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->code(), 0) << left->message();
  leaving->WritesDone();
  std::vector<std::unique_ptr<SeatClient>> others;
  for (int s = 1; s < 4; ++s) {
    others.push_back(std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                                  table.seat_tokens(s), s));
    others.back()->OpenPlay(0, seed + s);
  }
  for (auto& seat : others) ASSERT_TRUE(seat->WaitDone(absl::Seconds(60)).ok());
  grpc::Status end = leaving->WaitDone(absl::Seconds(10));
  ASSERT_TRUE(end.ok()) << end.error_message();
  EXPECT_TRUE(leaving->events().back().has_game_ended());
  EXPECT_TRUE(FindLeaks(leaving->updates(), 0, seed).empty());
}

TEST_F(PlayTest, ShutdownEndsPlayStreamsUnavailable) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 2111);
  std::unique_ptr<SeatClient> seat = OpenSeat(table, 0);
  service_->Shutdown();
  grpc::Status end = seat->WaitDone(absl::Seconds(10));
  EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE) << end.error_message();
}

TEST_F(PlayTest, ACancelledStreamEnds) {
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 2112);
  std::unique_ptr<SeatClient> seat = OpenSeat(table, 2);
  EXPECT_EQ(service_->host().metrics().streams.Value(), 1);
  seat->Close();
  EXPECT_EQ(seat->WaitDone(absl::Seconds(5)).error_code(), grpc::StatusCode::CANCELLED);
  // The server let go of it.
  for (int i = 0; i < 100 && service_->host().metrics().streams.Value() > 0; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(service_->host().metrics().streams.Value(), 0);
  // The table plays on for the others.
  const int owner = table.table().owner();
  EXPECT_TRUE(Act(table, owner, "c", ChooseContract(v1::CONTRACT_TRIX)).ok());
}

}  // namespace
}  // namespace trix::table
