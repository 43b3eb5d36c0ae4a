// Derived seat tokens: the same placement and seat give the same token under the
// same key, anything else another; a stored request holds none, and restored it
// gets them back (keeping any a request was stored with).
#include "services/matchmaking/seat_tokens.h"

#include "gtest/gtest.h"

namespace trix::matchmaking {
namespace {

v1::CreateTableRequest Request(const SeatTokens& tokens) {
  v1::CreateTableRequest r;
  r.set_request_id("7f1c2b9e-0000-4000-8000-000000000001");
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = r.add_seats();
    seat->set_player_id("p" + std::to_string(s));
    if (s == 3) {
      seat->set_autopilot(true);
    } else {
      seat->set_seat_token(tokens.For(r.request_id(), s));
    }
  }
  return r;
}

TEST(SeatTokensTest, TheSamePlacementAndSeatGiveTheSameTokenUnderTheSameKey) {
  const SeatTokens tokens("key one"), other("key two");
  const std::string token = tokens.For("placement-a", 1);
  EXPECT_EQ(token.size(), 43u);  // 256 bits, base64url, as the table's own
  EXPECT_EQ(token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                    "0123456789-_"),
            std::string::npos);
  EXPECT_EQ(SeatTokens("key one").For("placement-a", 1), token);
  EXPECT_NE(tokens.For("placement-a", 2), token);
  EXPECT_NE(tokens.For("placement-b", 1), token);
  EXPECT_NE(other.For("placement-a", 1), token);
  // The separator keeps the id and the seat apart.
  EXPECT_NE(tokens.For("placement-1", 1), tokens.For("placement-", 11));
}

TEST(SeatTokensTest, AStoredRequestHoldsNoTokenAndIsRestoredWhole) {
  const SeatTokens tokens("key");
  const v1::CreateTableRequest request = Request(tokens);
  v1::CreateTableRequest stored;
  ASSERT_TRUE(stored.ParseFromString(SeatTokens::Stored(request)));
  for (const v1::SeatAssignment& seat : stored.seats()) EXPECT_EQ(seat.seat_token(), "");
  EXPECT_EQ(stored.seats(0).player_id(), "p0");
  tokens.Restore(&stored);
  EXPECT_EQ(stored.SerializeAsString(), request.SerializeAsString());
  EXPECT_EQ(stored.seats(3).seat_token(), "");  // the autopilot's: none
}

TEST(SeatTokensTest, ARequestStoredWithItsTokensKeepsThem) {
  v1::CreateTableRequest old;
  old.set_request_id("placement-of-an-earlier-release");
  old.add_seats()->set_seat_token("a-random-token-that-release-chose-000000");
  old.add_seats();
  SeatTokens("key").Restore(&old);
  EXPECT_EQ(old.seats(0).seat_token(), "a-random-token-that-release-chose-000000");
  EXPECT_EQ(old.seats(1).seat_token(), SeatTokens("key").For(old.request_id(), 1));
}

}  // namespace
}  // namespace trix::matchmaking
