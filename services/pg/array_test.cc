#include "services/pg/array.h"

#include <memory>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <pqxx/result>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "services/pg/status.h"
#include "services/pg/testing/database_test.h"

namespace trix::pg {
namespace {

std::string Bytes(const PgArray& array) { return array.Finish().str(); }

std::string Be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
          static_cast<char>(v >> 8), static_cast<char>(v)};
}

TEST(StorePgArrayTest, WritesArrayRecvLayout) {
  PgArray array(PgType::kInt4);
  array.AddInt(1);
  array.AddInt(-2);
  const std::string expected = Be32(1) + Be32(0) + Be32(23) + Be32(2) + Be32(1) +  //
                               Be32(4) + Be32(1) + Be32(4) + Be32(0xfffffffe);
  EXPECT_EQ(Bytes(array), expected);
}

TEST(StorePgArrayTest, NullSetsTheFlagAndALengthOfMinusOne) {
  PgArray array(PgType::kText);
  array.AddString("ab");
  array.AddNull();
  const std::string expected = Be32(1) + Be32(1) + Be32(25) + Be32(2) + Be32(1) +  //
                               Be32(2) + "ab" + Be32(0xffffffff);
  EXPECT_EQ(Bytes(array), expected);
  EXPECT_EQ(array.size(), 2);
}

TEST(StorePgArrayTest, TimesCountFromTheYear2000) {
  EXPECT_EQ(
      ToPgMicros(absl::FromCivil(absl::CivilSecond(2000, 1, 1), absl::UTCTimeZone())), 0);
  EXPECT_EQ(ToPgMicros(absl::UnixEpoch()), -int64_t{946684800} * 1000000);
  EXPECT_EQ(ToPgMicros(absl::FromUnixMicros(946684800000001)), 1);
}

TEST(StorePgArrayDeathTest, WrongElementKindAborts) {
  PgArray array(PgType::kInt8);
  EXPECT_DEATH(array.AddString("x"), "a string added");
  PgArray small(PgType::kInt2);
  EXPECT_DEATH(small.AddInt(40000), "outside int2");
}

// The server must read back exactly what was sent, for every type the store uses.
class StorePgArrayServerTest : public DatabaseTest {
 protected:
  StorePgArrayServerTest() : DatabaseTest({.migrate = false}) {}
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    connection_ = std::make_unique<pqxx::connection>(db_->url());
  }

  // Each element of `array`, as `select` (over unnest's column x) renders it.
  std::vector<std::string> RoundTrip(const PgArray& array, const std::string& type,
                                     const std::string& select = "x::text") {
    pqxx::nontransaction tx(*connection_);
    std::vector<std::string> out;
    for (const pqxx::row& row :
         tx.exec_params("SELECT " + select + " FROM unnest($1::" + type +
                            "[]) WITH ORDINALITY AS u (x, n) ORDER BY n",
                        array.Finish())) {
      out.push_back(row[0].is_null() ? "NULL" : row[0].as<std::string>());
    }
    return out;
  }

  std::unique_ptr<pqxx::connection> connection_;
};

TEST_F(StorePgArrayServerTest, IntegersAndBools) {
  PgArray int8s(PgType::kInt8), int4s(PgType::kInt4), int2s(PgType::kInt2),
      bools(PgType::kBool);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 40, INT64_MIN})
    int8s.AddInt(v);
  for (int64_t v : {0, -7, 123456789}) int4s.AddInt(v);
  for (int64_t v : {-1, 3, 32767}) int2s.AddInt(v);
  bools.AddBool(true);
  bools.AddNull();
  bools.AddBool(false);
  EXPECT_EQ(
      RoundTrip(int8s, "int8"),
      (std::vector<std::string>{"0", "-1", "1099511627776", "-9223372036854775808"}));
  EXPECT_EQ(RoundTrip(int4s, "int4"), (std::vector<std::string>{"0", "-7", "123456789"}));
  EXPECT_EQ(RoundTrip(int2s, "int2"), (std::vector<std::string>{"-1", "3", "32767"}));
  EXPECT_EQ(RoundTrip(bools, "bool"),
            (std::vector<std::string>{"true", "NULL", "false"}));
}

TEST_F(StorePgArrayServerTest, TextAndBytesKeepEveryByte) {
  PgArray texts(PgType::kText), bytes(PgType::kBytea);
  texts.AddString("");
  texts.AddString("quote ' \" comma , brace { } backslash \\ ☘");
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  bytes.AddString(all);
  bytes.AddString("");
  EXPECT_EQ(
      RoundTrip(texts, "text"),
      (std::vector<std::string>{"", "quote ' \" comma , brace { } backslash \\ ☘"}));
  const std::vector<std::string> hex = RoundTrip(bytes, "bytea", "encode(x, 'hex')");
  ASSERT_EQ(hex.size(), 2u);
  EXPECT_EQ(hex[0].size(), 512u);
  EXPECT_EQ(hex[0].substr(0, 8), "00010203");
  EXPECT_EQ(hex[0].substr(504), "fcfdfeff");
  EXPECT_EQ(hex[1], "");
}

TEST_F(StorePgArrayServerTest, TimesToTheMicrosecond) {
  PgArray times(PgType::kTimestampTz);
  times.AddTime(absl::FromUnixMicros(1704067200000007));
  times.AddTime(absl::UnixEpoch());
  times.AddNull();
  EXPECT_EQ(
      RoundTrip(times, "timestamptz", "(extract(epoch FROM x) * 1000000)::bigint::text"),
      (std::vector<std::string>{"1704067200000007", "0", "NULL"}));
}

TEST_F(StorePgArrayServerTest, TheServerRejectsAMismatchedElementType) {
  PgArray int8s(PgType::kInt8);
  int8s.AddInt(1);
  absl::Status status;
  try {
    RoundTrip(int8s, "int4");
  } catch (...) {
    status = StatusFromException("round trip");
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  // The server's own text (the types it expected) stays in the log (pg_status.h).
  EXPECT_NE(status.message().find("database error"), absl::string_view::npos) << status;
  EXPECT_EQ(status.message().find("instead of expected 23"), absl::string_view::npos)
      << status;
}

TEST_F(StorePgArrayServerTest, InvalidUtf8TextIsInvalidArgument) {
  PgArray texts(PgType::kText);
  texts.AddString("\xff\xfe");
  absl::Status status;
  try {
    RoundTrip(texts, "text");
  } catch (...) {
    status = StatusFromException("round trip");
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
}

}  // namespace
}  // namespace trix::pg
