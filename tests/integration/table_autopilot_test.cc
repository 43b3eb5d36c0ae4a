// Autopilot seats: a table created with seats that nobody plays (the seat nobody
// could fill) plays them from the first move, so a game with hour-long clocks ends
// as fast as its real clients play, also after another instance rebuilt the table
// from its log mid-game. Hour-long clocks make the test fail (time out) if the
// table ever waited for such a seat. Such a game also shows the deal proof end to
// end (DealProofTest).
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/failover_check.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

constexpr int kHourMs = 3600000;

class AutopilotSeatsTest : public TableServiceTest {
 protected:
  v1::CreateTableResponse CreateWithAutopilot(uint64_t seed, std::set<int> autopilot,
                                              int kingdoms) {
    v1::CreateTableRequest request = CreateRequest(
        MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed, kHourMs, kingdoms);
    for (int s : autopilot) {
      request.mutable_seats(s)->set_autopilot(true);
      request.mutable_seats(s)->set_stake(0);
    }
    v1::CreateTableResponse table;
    grpc::Status status =
        CallCreate(request, &table, std::string("Bearer ") + kServiceToken);
    EXPECT_TRUE(status.ok()) << status.error_message();
    for (int s = 0; s < 4; ++s) {
      EXPECT_EQ(table.seat_tokens(s).empty(), autopilot.count(s) > 0) << s;
      EXPECT_EQ(table.table().seats(s).left(), autopilot.count(s) > 0) << s;
    }
    return table;
  }
  // The seats that are not autopilot, each played by a client on its Play stream.
  std::vector<std::unique_ptr<SeatClient>> PlayTheOthers(
      const v1::CreateTableResponse& table, uint64_t seed) {
    std::vector<std::unique_ptr<SeatClient>> clients;
    for (int s = 0; s < 4; ++s) {
      if (table.seat_tokens(s).empty()) continue;
      clients.push_back(std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                                     table.seat_tokens(s), s));
      clients.back()->OpenPlay(0, seed + s);
    }
    return clients;
  }
  void ExpectAutopilotInRecord(const std::string& table_id, std::set<int> autopilot) {
    v1::GetGameRecordRequest request;
    request.set_game_id(table_id);
    v1::GameRecord record;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->GetGameRecord(&context, request, &record).ok());
    ASSERT_EQ(record.seats_size(), 4);
    for (int s = 0; s < 4; ++s) {
      EXPECT_EQ(record.seats(s).autopilot(), autopilot.count(s) > 0) << s;
      if (autopilot.count(s)) {
        EXPECT_TRUE(record.seats(s).bot()) << s;
      }
    }
    for (const v1::Event& e : record.events()) {
      EXPECT_FALSE(e.has_seat_left()) << "no seat left: the autopilot's were never taken";
    }
  }
};

TEST_F(AutopilotSeatsTest, OneOrTwoAutopilotSeatsPlayToTheEndWithoutWaitingAClock) {
  uint64_t seed = 91;
  for (const std::set<int>& autopilot : {std::set<int>{2}, std::set<int>{1, 3}}) {
    v1::CreateTableResponse table = CreateWithAutopilot(seed, autopilot, /*kingdoms=*/1);
    std::vector<std::unique_ptr<SeatClient>> clients = PlayTheOthers(table, seed);
    for (auto& c : clients) {
      grpc::Status end = c->WaitDone(absl::Seconds(60));
      ASSERT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
    }
    EXPECT_EQ(GetTable(table.table_id()).phase(), v1::PHASE_GAME_OVER);
    ExpectAutopilotInRecord(table.table_id(), autopilot);
    // Nobody holds the seat's token: an action for it has none to give.
    EXPECT_EQ(Act(table, *autopilot.begin(), "r", Leave()).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    seed += 10;
  }
}

TEST_F(AutopilotSeatsTest, ATableRebuiltFromItsLogStillPlaysTheAutopilotSeats) {
  const uint64_t seed = 111;
  const std::set<int> autopilot = {1, 3};
  v1::CreateTableResponse table = CreateWithAutopilot(seed, autopilot, /*kingdoms=*/2);
  std::vector<std::unique_ptr<SeatClient>> before = PlayTheOthers(table, seed);
  ASSERT_TRUE(WaitForAcks(before, 12));
  // The instance drains and releases its lease; it-2 rebuilds the table from
  // PostgreSQL before it reports SERVING.
  StartService(DefaultServiceOptions("it-2"));
  for (auto& client : before) {
    EXPECT_EQ(client->WaitDone(absl::Seconds(10)).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  v1::TableView view = GetTable(table.table_id());
  ASSERT_NE(view.phase(), v1::PHASE_GAME_OVER) << "the restart was not mid-game";
  for (int s : autopilot) EXPECT_TRUE(view.seats(s).left()) << s;
  std::vector<Followed> after;
  for (const auto& client : before) {
    after.push_back(FollowTable({service_->address()}, table, client->seat(),
                                client->last_seq(), seed + 20 + client->seat(),
                                /*strict=*/true));
    ASSERT_NE(after.back().client, nullptr);
  }
  for (auto& f : after) {
    grpc::Status end = f.client->WaitDone(absl::Seconds(60));
    ASSERT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
  }
  EXPECT_EQ(GetTable(table.table_id()).phase(), v1::PHASE_GAME_OVER);
  ExpectAutopilotInRecord(table.table_id(), autopilot);
  for (size_t i = 0; i < before.size(); ++i) {
    CheckNothingLost(*stub_, table, before[i]->seat(), *before[i], *after[i].client,
                     seed);
  }
}

// Deals anyone can verify: the table shows a commitment to its deal seed from the
// start, reveals the seed when the game is over, and the record of the finished
// game verifies with the real trix-replay --verify-deals; a changed seed does not.
class DealProofTest : public AutopilotSeatsTest {
 protected:
  // Runs trix-replay --verify-deals on `record`; its exit status and output.
  static std::pair<int, std::string> VerifyDeals(const std::string& record,
                                                 const std::string& name) {
    const std::string dir = ::testing::TempDir();
    const std::string in = dir + "/" + name + ".json", out = dir + "/" + name + ".out";
    std::ofstream(in) << record;
    const int status = std::system(
        absl::StrCat(BuildPath("bin/trix-replay"), " --verify-deals <", in, " >", out)
            .c_str());
    std::ifstream read(out);
    return {WEXITSTATUS(status), std::string(std::istreambuf_iterator<char>(read), {})};
  }
  // A solo table of one kingdom whose seed the service draws, seats 1 and 3
  // autopilot; with `seat_seeds`, it deals from the seats' seeds too.
  v1::CreateTableResponse CreateDrawn(bool seat_seeds) {
    v1::CreateTableRequest request =
        CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 1, kHourMs, /*kingdoms=*/1);
    request.clear_seed();
    request.set_seat_seeds(seat_seeds);
    for (int s : {1, 3}) {
      request.mutable_seats(s)->set_autopilot(true);
      request.mutable_seats(s)->set_stake(0);
    }
    v1::CreateTableResponse table;
    grpc::Status status = CallCreate(request, &table, std::string("Bearer ") + kServiceToken);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return table;
  }
  // Plays seats 0 and 2 to the end; seat 0's record (its own hands too).
  v1::GameRecord PlayToRecord(const v1::CreateTableResponse& table, uint64_t seed) {
    std::vector<std::unique_ptr<SeatClient>> clients = PlayTheOthers(table, seed);
    for (auto& c : clients) {
      grpc::Status end = c->WaitDone(absl::Seconds(60));
      EXPECT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
    }
    v1::GetGameRecordRequest rr;
    rr.set_game_id(table.table_id());
    rr.set_seat_token(table.seat_tokens(0));
    v1::GameRecord record;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->GetGameRecord(&context, rr, &record).ok());
    return record;
  }
  static std::string Json(const v1::GameRecord& record) {
    std::string json;
    EXPECT_TRUE(google::protobuf::util::MessageToJsonString(record, &json).ok());
    return json;
  }
};

TEST_F(DealProofTest, AFinishedGameRevealsTheSeedItCommittedToAndItsDealsVerify) {
  const v1::CreateTableResponse table = CreateDrawn(/*seat_seeds=*/false);
  ASSERT_FALSE(table.table_id().empty());
  const v1::DealProof before = GetTable(table.table_id()).deal_proof();
  EXPECT_EQ(before.procedure(), "trix-deals-v1");
  EXPECT_EQ(before.commitment().size(), 64u);
  EXPECT_FALSE(before.seed_chosen());
  EXPECT_EQ(before.seed(), 0u) << "the seed is secret until the game ends";
  EXPECT_TRUE(before.salt().empty());

  v1::GameRecord record = PlayToRecord(table, 5);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(record.deal_proof().commitment(), before.commitment());
  EXPECT_EQ(record.deal_proof().salt().size(), 32u);
  EXPECT_EQ(GetTable(table.table_id()).deal_proof().seed(), record.deal_proof().seed());

  const auto [verified, report] = VerifyDeals(Json(record), table.table_id() + "-record");
  EXPECT_EQ(verified, 0) << report;
  EXPECT_NE(report.find("\"verified\":true"), std::string::npos) << report;
  int deals = 0;
  for (const v1::Event& e : record.events()) deals += e.has_deal_started();
  EXPECT_GT(deals, 0);
  EXPECT_NE(report.find(absl::StrCat("\"deals\":", deals, ",")), std::string::npos) << report;

  record.mutable_deal_proof()->set_seed(record.deal_proof().seed() + 1);
  const auto [refused, why] = VerifyDeals(Json(record), table.table_id() + "-changed-seed");
  EXPECT_EQ(refused, 1) << why;
  EXPECT_NE(why.find("commit"), std::string::npos) << why;
}

// A table that deals from everyone's seeds (trix-deals-v2): no deal until the
// seats played by clients gave theirs; at the end the record shows each seat's
// seed, and the deals verify only with those seeds.
TEST_F(DealProofTest, SeatSeedsAreMixedIntoTheDealsAndShownAtTheEnd) {
  const v1::CreateTableResponse table = CreateDrawn(/*seat_seeds=*/true);
  ASSERT_FALSE(table.table_id().empty());
  const v1::TableView waiting = GetTable(table.table_id());
  EXPECT_EQ(waiting.deal(), -1) << "no deal before the seats' seeds";
  EXPECT_EQ(waiting.deal_proof().procedure(), "trix-deals-v2");
  EXPECT_EQ(waiting.turn().seats_size(), 2);

  v1::GameRecord record = PlayToRecord(table, 8);
  ASSERT_FALSE(HasFailure());
  const v1::DealProof& proof = record.deal_proof();
  ASSERT_EQ(proof.seat_seeds_size(), 4);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(proof.seat_seeds(s).size(), s % 2 ? 0u : 32u) << s;
  int contributed = 0;
  for (const v1::Event& e : record.events()) contributed += e.has_seed_contributed();
  EXPECT_EQ(contributed, 2);

  const auto [verified, report] = VerifyDeals(Json(record), table.table_id() + "-seeded");
  EXPECT_EQ(verified, 0) << report;
  record.mutable_deal_proof()->set_seat_seeds(2, std::string(32, 'x'));
  const auto [refused, why] = VerifyDeals(Json(record), table.table_id() + "-other-seed");
  EXPECT_EQ(refused, 1) << why;
}

}  // namespace
}  // namespace trix::table
