// The outbox row's stored form: what is written reads back, and so do the rows
// written before the row was a message.
#include "proto/wire/outbox_row.h"

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace trix::wire {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

v1::internal::FinishedGame Finished() {
  v1::internal::FinishedGame game;
  game.set_game_id("t-1");
  game.set_mode("complex-partner");
  game.set_finished_unix_ms(1700000000000);
  for (int s = 0; s < 4; ++s) {
    v1::internal::FinishedSeat* seat = game.add_seats();
    seat->set_seat(s);
    seat->set_player_id(std::string(1, static_cast<char>('a' + s)));
    seat->set_team(s % 2);
    seat->set_stake(s == 3 ? 0 : 100);
    seat->set_total(s % 2 ? -10 : 10);
    seat->set_place(s % 2 ? 2 : 1);
    seat->set_payout(s % 2 ? 0 : 150);
  }
  game.mutable_result()->add_payouts(150);
  return game;
}

TEST(OutboxRowTest, WhatIsWrittenReadsBack) {
  const v1::internal::FinishedGame game = Finished();
  const std::string json = OutboxRowJson(game);
  EXPECT_THAT(json, HasSubstr(R"("mode":"complex-partner")"));  // queryable by name
  absl::StatusOr<v1::internal::FinishedGame> back = OutboxRowFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*back, game)) << back->ShortDebugString();
  // A finished seat's zeros are kept: a total of 0 is not a voided seat.
  EXPECT_TRUE(back->seats(3).has_payout());
}

TEST(OutboxRowTest, ReadsARowWrittenBeforeTheMessage) {
  absl::StatusOr<v1::internal::FinishedGame> old = OutboxRowFromJson(
      R"({"game_id": "g", "mode": "classic-solo", "finished_unix_ms": 1700000000000,
          "seats": [{"seat": 0, "player_id": "a", "bot": false, "team": 0, "stake": 5,
                     "total": 30, "place": 1, "payout": 10.0}],
          "result": {"mode": "classic-solo", "totals": [30], "places": [1],
                     "stakes": [5], "payouts": [10.0]}})");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->finished_unix_ms(), 1700000000000);
  EXPECT_EQ(old->seats(0).payout(), 10);
  EXPECT_EQ(old->result().payouts(0), 10);
  EXPECT_FALSE(old->voided());
}

TEST(OutboxRowTest, TextThatIsNotARowIsInvalidArgument) {
  for (const char* bad : {"nope", "[]", R"({"seats": [{"payout": 6.5}]})",
                          R"({"game_id": 7})"}) {
    absl::StatusOr<v1::internal::FinishedGame> row = OutboxRowFromJson(bad);
    EXPECT_EQ(row.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(row.status().message(), HasSubstr("not an outbox row")) << bad;
  }
}

}  // namespace
}  // namespace trix::wire
