// TableVoids on the in-memory void store and a fake table service: a placement
// given up is asked for again (the same request, seat tokens and all) until its
// table is known, then voided, and its seats' holds end with the table; whatever
// fails is tried again later.
#include "services/matchmaking/table_voids.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "services/matchmaking/testing/memory_table_void_store.h"

namespace trix::matchmaking {
namespace {

// The table service: CreateTable answers `create` (a table named after the
// request by default), VoidTable answers `void_status`; both keep what they got.
class FakeTables : public TableClient {
 public:
  std::vector<Placed> CreateTables(
      const std::vector<v1::CreateTableRequest>& requests) override {
    std::vector<Placed> placed;
    for (const v1::CreateTableRequest& r : requests) {
      created.push_back(r);
      Placed p{.status = create, .address = "table:7"};
      p.response.set_table_id("table-" + r.request_id());
      placed.push_back(std::move(p));
    }
    return placed;
  }
  absl::Status VoidTable(const std::string& address, const std::string& table_id,
                         const std::string& reason) override {
    voided.push_back({address, table_id});
    EXPECT_EQ(reason, kVoidGivenUp);
    return void_status;
  }

  absl::Status create, void_status;
  std::vector<v1::CreateTableRequest> created;
  std::vector<std::pair<std::string, std::string>> voided;  // address, table
};

// The holds' side: the tables whose ends were recorded, with why.
class FakeEnds : public TableEnds {
 public:
  absl::Status EndTable(const std::string& table_id, const std::string& reason) override {
    ended[table_id] = reason;
    return status;
  }
  absl::Status status;
  std::map<std::string, std::string> ended;
};

class TableVoidsTest : public ::testing::Test {
 protected:
  TableVoidsTest() : tokens_("table voids key"), request_(GiveUp("placement-1")) {}

  // A placement given up: its request (with its seats' tokens), recorded to void.
  v1::CreateTableRequest GiveUp(const std::string& id) {
    v1::CreateTableRequest request;
    request.set_request_id(id);
    for (int s = 0; s < 4; ++s) {
      v1::SeatAssignment* seat = request.add_seats();
      seat->set_player_id("p" + std::to_string(s));
      seat->set_seat_token(tokens_.For(id, s));
    }
    store_.Add(id, SeatTokens::Stored(request), kVoidGivenUp);
    return request;
  }

  SeatTokens tokens_;
  MemoryTableVoidStore store_;
  v1::CreateTableRequest request_;
  FakeTables tables_;
  FakeEnds ends_;
  prometheus::Registry registry_;
  TableVoids voids_{&store_, &tables_, &tokens_, &ends_, &registry_};
};

TEST_F(TableVoidsTest, TheTableIsFoundWithTheSameRequestThenVoidedAndItsHoldsEnded) {
  EXPECT_EQ(voids_.VoidDue(), 1);
  ASSERT_EQ(tables_.created.size(), 1u);
  EXPECT_EQ(tables_.created[0].SerializeAsString(), request_.SerializeAsString());
  EXPECT_EQ(tables_.voided, (std::vector<std::pair<std::string, std::string>>{
                                {"table:7", "table-placement-1"}}));
  EXPECT_EQ(ends_.ended, (std::map<std::string, std::string>{
                             {"table-placement-1", kReleaseVoided}}));
  EXPECT_TRUE(store_.done("placement-1"));
  EXPECT_EQ(store_.Row("placement-1")->table_id, "table-placement-1");
  EXPECT_EQ(voids_.VoidDue(), 0);  // nothing more due
}

TEST_F(TableVoidsTest, ATableGoneOrWhoseGameIsOverEndsItsHoldsSo) {
  tables_.void_status = absl::NotFoundError("no such table");
  EXPECT_EQ(voids_.VoidDue(), 1);
  EXPECT_EQ(ends_.ended.at("table-placement-1"), kReleaseGone);

  GiveUp("placement-2");
  tables_.void_status = absl::FailedPreconditionError("the game is over");
  EXPECT_EQ(voids_.VoidDue(), 1);
  EXPECT_EQ(ends_.ended.at("table-placement-2"), kReleaseGameOver);
}

TEST_F(TableVoidsTest, AnUnansweredRequestIsAskedAgainLaterAndNothingIsVoided) {
  tables_.create = absl::UnavailableError("no instance answers");
  EXPECT_EQ(voids_.VoidDue(), 0);
  EXPECT_TRUE(tables_.voided.empty());
  EXPECT_FALSE(store_.done("placement-1"));
  EXPECT_EQ(voids_.VoidDue(), 0);  // not due yet: backoff
  EXPECT_EQ(tables_.created.size(), 1u);
  tables_.create = absl::OkStatus();
  store_.DueNow();
  EXPECT_EQ(voids_.VoidDue(), 1);
  EXPECT_EQ(store_.Row("placement-1")->tries, 2);
}

TEST_F(TableVoidsTest, AVoidThatFailsIsTriedAgainWithoutAskingForTheTableAgain) {
  tables_.void_status = absl::UnavailableError("instance restarting");
  EXPECT_EQ(voids_.VoidDue(), 0);
  EXPECT_TRUE(ends_.ended.empty());
  tables_.void_status = absl::OkStatus();
  store_.DueNow();
  EXPECT_EQ(voids_.VoidDue(), 1);
  EXPECT_EQ(tables_.created.size(), 1u);  // the table was known from the first try
  EXPECT_EQ(tables_.voided.size(), 2u);
}

TEST_F(TableVoidsTest, AVoidWhoseHoldsCannotBeEndedIsTriedAgain) {
  ends_.status = absl::UnavailableError("database away");
  EXPECT_EQ(voids_.VoidDue(), 0);
  EXPECT_FALSE(store_.done("placement-1"));
  ends_.status = absl::OkStatus();
  store_.DueNow();
  EXPECT_EQ(voids_.VoidDue(), 1);
  EXPECT_TRUE(store_.done("placement-1"));
}

}  // namespace
}  // namespace trix::matchmaking
