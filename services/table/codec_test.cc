#include "services/table/codec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "engine/random.h"
#include "engine/result.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/outbox_row.h"

namespace trix::table {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The rest of the card, contract and mode tests are in proto/wire/wire_test.cc.
TEST(CodecTest, SeatCardsHoldAtMostAHand) {
  CardNames many;
  for (int i = 0; i < 14; ++i) many.Add("2C");
  EXPECT_EQ(SeatCardsFromProto(many).status().code(), absl::StatusCode::kInvalidArgument);
  CardNames twice;
  twice.Add("QS");
  twice.Add("QS");
  EXPECT_THAT(SeatCardsFromProto(twice).status().message(), HasSubstr("twice"));
}

TEST(CodecTest, StoredModeNames) {
  v1::Mode mode;
  mode.set_team(v1::TEAM_PARTNER);
  mode.set_format(v1::FORMAT_COMPLEX);
  EXPECT_EQ(ModeFromStoredName("complex-partner").SerializeAsString(),
            mode.SerializeAsString());
  EXPECT_EQ(ModeFromStoredName("nonsense").team(), v1::TEAM_UNSPECIFIED);
}

TEST(CodecTest, ActionsRoundTripThroughTheLog) {
  const engine::Hands hands = engine::ShuffledHands(7, 0);
  engine::Action deal = engine::Action::Deal(hands);
  engine::Action back = ActionFromLog(ActionToLog(deal)).value();
  EXPECT_EQ(back.type, engine::ActionType::kDeal);
  EXPECT_EQ(back.hands, hands);

  engine::Action play = engine::Action::PlayCard(2, engine::ParseCard("QS").value());
  play.autopilot = true;
  back = ActionFromLog(ActionToLog(play)).value();
  EXPECT_EQ(back.card, play.card);
  EXPECT_EQ(back.seat, 2);
  EXPECT_TRUE(back.autopilot);

  engine::Action select =
      engine::Action::SelectDoubles(1, engine::ParseCards("KH QS").value());
  EXPECT_EQ(ActionFromLog(ActionToLog(select)).value().cards, select.cards);
  engine::Action choose = engine::Action::ChooseContract(3, engine::Contract::kTrix);
  EXPECT_EQ(ActionFromLog(ActionToLog(choose)).value().contract, engine::Contract::kTrix);
}

TEST(CodecTest, CorruptLogIsDataLoss) {
  v1::internal::LoggedAction bad;
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
  bad.set_kind(v1::internal::ACTION_KIND_PLAY_CARD);
  bad.set_seat(7);
  bad.set_card("QS");
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
  bad.set_seat(1);
  bad.set_card("QQ");
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
  bad.set_kind(v1::internal::ACTION_KIND_DEAL);
  bad.add_hands("AS");
  EXPECT_EQ(ActionFromLog(bad).status().code(), absl::StatusCode::kDataLoss);
}

TEST(CodecTest, ResultJsonRoundTrip) {
  engine::GameResult result;
  result.totals = {100, -50, 200, -250};
  result.places = {1, 2, 1, 2};
  result.team_totals = {300, -300};
  result.winner_team = 0;
  result.payouts = {150, 0, 150, 0};
  const std::string json = ResultJson({engine::Team::kPartner, engine::Format::kComplex},
                                      result, {100, 100, 0, 100});
  v1::GameResult back = ResultFromJson(json).value();
  EXPECT_THAT(back.totals(), ElementsAre(100, -50, 200, -250));
  EXPECT_THAT(back.team_totals(), ElementsAre(300, -300));
  EXPECT_EQ(back.winner_team(), 0);
  EXPECT_THAT(back.payouts(), ElementsAre(150, 0, 150, 0));
  // Money is whole units in the stored row too (the ledger settles from it).
  EXPECT_THAT(json, HasSubstr("\"payouts\":[150,0,150,0]"));
  EXPECT_THAT(ResultFromJson(R"({"payouts": [400.0, 0.0, 0, 0]})").value().payouts(),
              ElementsAre(400, 0, 0, 0));
  EXPECT_EQ(ResultFromJson("not json").status().code(), absl::StatusCode::kDataLoss);
}

TEST(CodecTest, TheResultRowAndTheWireShowOneResult) {
  for (engine::Variant variant : {engine::Variant{engine::Team::kPartner, engine::Format::kComplex},
                                  engine::Variant{engine::Team::kSolo, engine::Format::kClassic}}) {
    const engine::GameResult result = engine::ResultOf(variant, {30, -10, 0, -20}, {10, 10, 0, 0});
    EXPECT_EQ(ResultFromJson(ResultJson(variant, result, {10, 10, 0, 0}))->SerializeAsString(),
              ResultToProto(variant, result).SerializeAsString());
  }
}

TEST(CodecTest, TheOutboxRowReadsBackAsItsMessage) {
  const engine::Variant partner{engine::Team::kPartner, engine::Format::kComplex};
  const engine::GameResult result = engine::ResultOf(partner, {30, -10, 0, -20}, {10, 10, 0, 0});
  std::array<SeatRecord, 4> seats;
  for (int s = 0; s < 4; ++s) seats[s].player_id = absl::StrCat("p", s);
  seats[0].stake = seats[1].stake = 10;
  seats[3].bot = true;
  absl::StatusOr<v1::internal::FinishedGame> row =
      wire::OutboxRowFromJson(GameEndedOutboxJson("t-1", partner, result, seats, 1700000000000));
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->game_id(), "t-1");
  EXPECT_EQ(row->mode(), "complex-partner");
  EXPECT_EQ(row->finished_unix_ms(), 1700000000000);
  ASSERT_EQ(row->seats_size(), 4);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(row->seats(s).seat(), s);
    EXPECT_EQ(row->seats(s).player_id(), seats[s].player_id);
    EXPECT_EQ(row->seats(s).team(), s % 2);
    EXPECT_EQ(row->seats(s).total(), result.totals[s]);
    EXPECT_EQ(row->seats(s).place(), result.places[s]);
    EXPECT_EQ(row->seats(s).payout(), result.payouts[s]);
  }
  EXPECT_TRUE(row->seats(3).bot());
  EXPECT_EQ(row->result().SerializeAsString(), ResultToProto(partner, result).SerializeAsString());
  EXPECT_FALSE(row->voided());

  absl::StatusOr<v1::internal::FinishedGame> voided =
      wire::OutboxRowFromJson(VoidedOutboxJson("t-2", "classic-solo", seats, "why", 5));
  ASSERT_TRUE(voided.ok()) << voided.status();
  EXPECT_TRUE(voided->voided());
  EXPECT_EQ(voided->reason(), "why");
  EXPECT_EQ(voided->voided_unix_ms(), 5);
  EXPECT_FALSE(voided->has_result());
  EXPECT_EQ(voided->seats(1).stake(), 10);
  EXPECT_FALSE(voided->seats(1).has_total() || voided->seats(1).has_place() ||
               voided->seats(1).has_payout());
}

TEST(CodecTest, ASoloResultHasNoTeamFields) {
  engine::GameResult result;
  result.totals = {100, -50, 200, -250};
  result.places = {2, 3, 1, 4};
  const v1::GameResult out =
      ResultToProto({engine::Team::kSolo, engine::Format::kComplex}, result);
  EXPECT_THAT(out.places(), ElementsAre(2, 3, 1, 4));
  EXPECT_TRUE(out.team_totals().empty());
  EXPECT_FALSE(out.has_winner_team());
}

}  // namespace
}  // namespace trix::table
