// Whole games over gRPC: four clients per table, each playing from its own stream's
// prompts, every mode at once, with every stream checked for leaked cards and the
// history checked against what was streamed.
#include <memory>
#include <vector>

#include "engine/cards.h"
#include "engine/random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/visibility_check.h"

namespace trix::table {
namespace {

class GamesTest : public TableServiceTest {};

struct PlayedTable {
  uint64_t seed;
  v1::CreateTableResponse table;
  std::vector<std::unique_ptr<SeatClient>> seats;  // 0..3, then a spectator
};

// Checks one stream: OK end after GameEnded, numbering without gaps from the
// snapshot on, no empty update, a prompt only beside events, and no card the
// viewer may not see.
void CheckStream(const SeatClient& client, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "viewer " << client.seat());
  const std::vector<v1::TableUpdate> updates = client.updates();
  ASSERT_FALSE(updates.empty());
  ASSERT_TRUE(updates.front().has_snapshot());
  uint64_t next = updates.front().snapshot().seq() + 1;
  for (size_t i = 0; i < updates.size(); ++i) {
    const v1::TableUpdate& u = updates[i];
    ASSERT_TRUE(i == 0 || (!u.has_snapshot() && u.events_size() > 0)) << "update " << i;
    for (const v1::Event& e : u.events()) {
      ASSERT_EQ(e.seq(), next++);
      if (client.seat() < 0) {
        ASSERT_FALSE(e.has_hand_shown() || e.has_doubles_selected() || e.has_ready());
      }
    }
    ASSERT_FALSE(client.seat() < 0 && u.has_prompt());
  }
  EXPECT_TRUE(client.events().back().has_game_ended());
  const std::vector<std::string> leaks = FindLeaks(updates, client.seat(), seed);
  EXPECT_TRUE(leaks.empty()) << leaks.size() << " leaks, first: " << leaks.front();
  EXPECT_TRUE(client.act_errors().empty()) << client.act_errors().front().error_message();
}

TEST_F(GamesTest, AllFourModesPlayedToTheEndByFourClientsEach) {
  const v1::Mode modes[] = {MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC),
                            MakeMode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC),
                            MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX),
                            MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX)};
  std::vector<PlayedTable> tables;
  uint64_t seed = 1000;
  for (const v1::Mode& mode : modes) {
    PlayedTable t{++seed, CreateTable(mode, seed), {}};
    ASSERT_EQ(t.table.seat_tokens_size(), 4);
    for (int s = 0; s < 4; ++s) {
      t.seats.push_back(std::make_unique<SeatClient>(NewChannel(), t.table.table_id(),
                                                     t.table.seat_tokens(s), s));
    }
    t.seats.push_back(
        std::make_unique<SeatClient>(NewChannel(), t.table.table_id(), "", -1));
    tables.push_back(std::move(t));
  }
  for (PlayedTable& t : tables) {
    for (auto& client : t.seats) {
      client->Open(0, client->seat() >= 0
                          ? std::optional<uint64_t>(t.seed * 10 + client->seat())
                          : std::nullopt);
    }
  }
  for (PlayedTable& t : tables) {
    SCOPED_TRACE(t.table.table().mode().ShortDebugString());
    for (auto& client : t.seats) {
      grpc::Status end = client->WaitDone(absl::Seconds(100));
      ASSERT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
      CheckStream(*client, t.seed);
    }
    // Everyone saw the same public events.
    const std::vector<v1::Event> spectator = t.seats[4]->events();
    EXPECT_EQ(GetTable(t.table.table_id()).phase(), v1::PHASE_GAME_OVER);

    // The seat's record is exactly what the seat was streamed.
    for (int s = 0; s < 4; ++s) {
      const v1::GameRecord record = ExpectRecordIsStream(
          t.table.table_id(), t.table.seat_tokens(s), t.seats[s]->events());
      EXPECT_EQ(record.viewer(), s);
      EXPECT_EQ(record.result().totals_size(), 4);
    }
    // The public record shows no hand.
    v1::GetGameRecordRequest request;
    request.set_game_id(t.table.table_id());
    v1::GameRecord record;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->GetGameRecord(&context, request, &record).ok());
    EXPECT_EQ(record.viewer(), -1);
    const int skipped = static_cast<int>(spectator.front().seq()) - 1;
    ASSERT_EQ(record.events_size(), skipped + static_cast<int>(spectator.size()));
    v1::TableUpdate as_update;
    *as_update.mutable_events() = record.events();
    EXPECT_TRUE(FindLeaks({as_update}, -1, t.seed).empty());

    // And the game is in the players' histories.
    v1::ListPlayerGamesRequest games;
    games.set_player_id(t.table.table().seats(2).player_id());
    v1::ListPlayerGamesResponse listed;
    grpc::ClientContext list_context;
    list_context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
    ASSERT_TRUE(stub_->ListPlayerGames(&list_context, games, &listed).ok());
    ASSERT_EQ(listed.games_size(), 1);
    EXPECT_EQ(listed.games(0).game_id(), t.table.table_id());
    EXPECT_EQ(listed.games(0).seat(), 2);
  }
}

}  // namespace
}  // namespace trix::table

namespace trix::table {
namespace {

// The checker itself catches what it is there to catch.
TEST(FindLeaksTest, CatchesAnotherSeatsCards) {
  const engine::Hands hands = engine::ShuffledHands(5, 0);
  v1::TableUpdate shown;
  v1::Event* e = shown.add_events();
  e->set_deal(0);
  e->mutable_hand_shown()->set_seat(1);
  for (engine::CardSet h = hands[1]; h;) {
    e->mutable_hand_shown()->add_cards(engine::CardName(engine::PopLowest(h)));
  }
  EXPECT_TRUE(FindLeaks({shown}, 1, 5).empty());
  EXPECT_FALSE(FindLeaks({shown}, 2, 5).empty());
  EXPECT_FALSE(FindLeaks({shown}, -1, 5).empty());
  v1::TableUpdate trick;
  trick.add_events()->mutable_trick_taken()->add_cards(
      engine::CardName(engine::Lowest(hands[3])));
  EXPECT_FALSE(FindLeaks({trick}, 0, 5).empty());  // never played
}

}  // namespace
}  // namespace trix::table
