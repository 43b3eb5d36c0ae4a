#include "services/common/auth.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace trix::service {
namespace {

TEST(AuthTest, SeatTokensAreLongAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string token = NewSeatToken();
    EXPECT_EQ(token.size(), 43u);
    EXPECT_EQ(
        token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789-_"),
        std::string::npos);
    EXPECT_TRUE(seen.insert(token).second);
  }
}

TEST(AuthTest, UuidHasVersionFourForm) {
  const std::string id = NewUuid();
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[8], '-');
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(NewUuid(), id);
  EXPECT_TRUE(IsUuid(id));
  EXPECT_TRUE(IsUuid("00000000-0000-4000-8000-000000000000"));
  EXPECT_FALSE(IsUuid("no-such-table"));
  EXPECT_FALSE(IsUuid(""));
  EXPECT_FALSE(IsUuid("00000000-0000-4000-8000-00000000000"));    // short
  EXPECT_FALSE(IsUuid("00000000-0000-4000-8000-0000000000000"));  // long
  EXPECT_FALSE(IsUuid("00000000-0000-4000-8000-00000000000G"));
  EXPECT_FALSE(IsUuid("ABCDEF00-0000-4000-8000-000000000000"));  // not NewUuid's case
  EXPECT_FALSE(IsUuid("00000000x0000-4000-8000-000000000000"));
}

TEST(AuthTest, HashIsSha256Hex) {
  // SHA-256("abc"), FIPS 180-2 appendix B.1.
  EXPECT_EQ(TokenHash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string token = NewSeatToken();
  EXPECT_TRUE(TokenMatches(token, TokenHash(token)));
  EXPECT_FALSE(TokenMatches(token + "x", TokenHash(token)));
  EXPECT_FALSE(TokenMatches("", TokenHash(token)));
}

TEST(AuthTest, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
  EXPECT_FALSE(ConstantTimeEquals("abcd", "abc"));
}

}  // namespace
}  // namespace trix::service
