#include "engine/replay/deal_check.h"

#include <string>

#include "absl/strings/escaping.h"
#include "engine/cards.h"
#include "engine/deal_proof.h"
#include "engine/random.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using nlohmann::json;

// The procedure is a format: these values are pinned (computed independently
// with Python's hashlib), and changing them breaks every recorded game's proof.
TEST(DealProofTest, TheCommitmentIsPinned) {
  std::string salt;
  for (int i = 0; i < 32; ++i) salt.push_back(static_cast<char>(i));
  EXPECT_EQ(DealCommitment(0x0123456789abcdefULL, salt),
            "fc2c73e53b75d54a71bb043da45eb6b3ca5f1152d5a5e064f8fa3002a3d2d91d");
  EXPECT_EQ(DealCommitment(1, std::string(32, '\0')),
            "4862ae4accb75ce9475e77204e58e6b0fdca5832ad856043ced9b06f299bf98a");
  EXPECT_TRUE(CheckDealCommitment(kDealProcedure, DealCommitment(5, salt), 5, salt).ok());
  EXPECT_EQ(CheckDealCommitment(kDealProcedure, DealCommitment(5, salt), 6, salt).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CheckDealCommitment("trix-deals-v0", DealCommitment(5, salt), 5, salt).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckDealCommitment(kDealProcedure, DealCommitment(5, "short"), 5, "short").code(),
            absl::StatusCode::kInvalidArgument);
}

// trix-deals-v2, pinned the same way: the commitment under its own name, and the
// deal seed mixed from the committed seed and the seats' contributions.
TEST(DealProofTest, TheSeatSeededDealSeedIsPinned) {
  std::string salt;
  for (int i = 0; i < 32; ++i) salt.push_back(static_cast<char>(i));
  const SeatSeeds seats = {std::string(32, 'a'), "", std::string(32, '\x02'), ""};
  EXPECT_EQ(DealCommitment(0x0123456789abcdefULL, salt, kSeatSeededDealProcedure),
            "2ba60c441d8c4956264db55f92889e2fb3523bf829ee14ba0ad3c58b711b5db6");
  EXPECT_EQ(SeatSeededDealSeed(0x0123456789abcdefULL, salt, seats), 0x57fecd3beb3256c3ULL);
  EXPECT_EQ(*DealSeed(kSeatSeededDealProcedure, 0x0123456789abcdefULL, salt, seats),
            0x57fecd3beb3256c3ULL);
  EXPECT_EQ(*DealSeed(kDealProcedure, 7, salt, seats), 7u);
  SeatSeeds changed = seats;
  changed[3] = std::string(32, 'z');
  EXPECT_NE(SeatSeededDealSeed(0x0123456789abcdefULL, salt, changed), 0x57fecd3beb3256c3ULL);
  changed[3] = "short";
  EXPECT_EQ(DealSeed(kSeatSeededDealProcedure, 1, salt, changed).status().code(),
            absl::StatusCode::kInvalidArgument);
}

class DealCheckTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kSeed = 0xDEADBEEF;
  DealCheckTest() : salt_(32, 'k') {
    record_ = {{"gameId", "g1"},
               {"dealProof",
                {{"procedure", kDealProcedure},
                 {"commitment", DealCommitment(kSeed, salt_)},
                 {"seed", std::to_string(kSeed)},
                 {"salt", absl::Base64Escape(salt_)}}},
               {"events", EventsDealtBy(kSeed)}};
  }
  // Seat 1's own hand in deal 0 (seat 0 omitted, as proto3 JSON omits zeros),
  // and one card played by each seat in deals 0 and 3.
  static json EventsDealtBy(uint64_t deal_seed) {
    json events = json::array();
    for (int deal : {0, 3}) {
      const Hands hands = ShuffledHands(deal_seed, deal);
      if (deal == 0) {
        json shown = json::array();
        for (CardSet h = hands[1]; h;) shown.push_back(CardName(PopLowest(h)));
        events.push_back({{"handShown", {{"seat", 1}, {"cards", shown}}}});
      }
      for (int seat = 0; seat < kNumSeats; ++seat) {
        json played = {{"card", CardName(Lowest(hands[seat]))}};
        if (seat != 0) played["seat"] = seat;
        json event = {{"cardPlayed", played}};
        if (deal != 0) event["deal"] = deal;
        events.push_back(event);
      }
    }
    return events;
  }
  std::string salt_;
  json record_;
};

TEST_F(DealCheckTest, ARecordWhoseCardsTheSeedDealsVerifies) {
  absl::StatusOr<DealCheck> c = CheckDeals(record_);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->game_id, "g1");
  EXPECT_EQ(c->deals, 2);
  EXPECT_EQ(c->cards, 13 + 8);
  EXPECT_TRUE(CheckDealsLine(record_.dump())["verified"].get<bool>());
}

TEST_F(DealCheckTest, ACardOfAnotherSeatIsCaught) {
  const Hands hands = ShuffledHands(kSeed, 3);
  record_["events"].back()["cardPlayed"]["card"] = CardName(Lowest(hands[0]));
  absl::StatusOr<DealCheck> c = CheckDeals(record_);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(c.status().message().find("deal 3: seat 3 shows"), std::string::npos)
      << c.status();
}

TEST_F(DealCheckTest, AnotherHandIsCaught) {
  record_["events"][0]["handShown"]["cards"].erase(0);
  EXPECT_EQ(CheckDeals(record_).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(DealCheckTest, ASeedThatIsNotTheCommittedOneIsCaught) {
  record_["dealProof"]["seed"] = std::to_string(kSeed + 1);
  absl::StatusOr<DealCheck> c = CheckDeals(record_);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(c.status().message().find("commit"), std::string::npos) << c.status();
}

TEST_F(DealCheckTest, ASeatSeededRecordVerifiesWithItsSeatsSeeds) {
  const SeatSeeds seats = {std::string(32, 'a'), std::string(32, 'b'), "",
                           std::string(32, 'd')};
  json& proof = record_["dealProof"];
  proof["procedure"] = kSeatSeededDealProcedure;
  proof["commitment"] = DealCommitment(kSeed, salt_, kSeatSeededDealProcedure);
  proof["seatSeeds"] = json::array();
  for (const std::string& seed : seats) proof["seatSeeds"].push_back(absl::Base64Escape(seed));
  record_["events"] = EventsDealtBy(SeatSeededDealSeed(kSeed, salt_, seats));
  absl::StatusOr<DealCheck> c = CheckDeals(record_);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->cards, 13 + 8);
  // Another seat's seed, or none: the deals are not the ones the seats made.
  proof["seatSeeds"][2] = absl::Base64Escape(std::string(32, 'c'));
  EXPECT_EQ(CheckDeals(record_).status().code(), absl::StatusCode::kFailedPrecondition);
  proof["seatSeeds"][2] = absl::Base64Escape("short");
  EXPECT_EQ(CheckDeals(record_).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(DealCheckTest, AGameNotOverOrWithoutAProofSaysSo) {
  json unrevealed = record_;
  unrevealed["dealProof"].erase("seed");
  unrevealed["dealProof"].erase("salt");
  EXPECT_NE(CheckDeals(unrevealed).status().message().find("not revealed"), std::string::npos);
  json none = record_;
  none.erase("dealProof");
  EXPECT_EQ(CheckDeals(none).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(CheckDealsLine("{not json")["verified"].get<bool>());
  json garbled = record_;
  garbled["events"][0]["handShown"]["cards"] = json::array({7});
  EXPECT_FALSE(CheckDealsLine(garbled.dump())["verified"].get<bool>());
}

}  // namespace
}  // namespace trix::engine
