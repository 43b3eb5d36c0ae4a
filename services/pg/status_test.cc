// What a database failure tells the caller: the kind of failure and an error id,
// never the server's own text (which names key values and the schema).
#include "services/pg/status.h"

#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/pg/testing/database_test.h"

namespace trix::pg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class PgStatusTest : public DatabaseTest {
 protected:
  // Runs `sql` and maps what it throws.
  absl::Status Run(const std::string& sql) {
    try {
      pqxx::connection c(db_->url());
      pqxx::nontransaction tx(c);
      tx.exec(sql);
      return absl::OkStatus();
    } catch (...) {
      return StatusFromException("writing a seat");
    }
  }
};

void ExpectPlain(const absl::Status& status) {
  EXPECT_THAT(status.message(), HasSubstr("writing a seat: "));
  EXPECT_THAT(status.message(), HasSubstr("(database error "));
  EXPECT_THAT(status.message(), Not(HasSubstr("DETAIL")));
  EXPECT_THAT(status.message(), Not(HasSubstr("Key (")));
  EXPECT_THAT(status.message(), Not(HasSubstr("game_seats")));
  EXPECT_THAT(status.message(), Not(HasSubstr("secret-player")));
}

TEST_F(PgStatusTest, ADuplicateKeyIsAlreadyExistsWithoutTheServersDetail) {
  const std::string insert_game =
      "INSERT INTO games (id, mode, config, lease_owner, lease_until) "
      "VALUES ('g1', 'complex-solo', '', 'me', now())";
  const std::string insert_seat =
      "INSERT INTO game_seats (game_id, seat, player_id, display_name, bot, token_hash) "
      "VALUES ('g1', 0, 'secret-player', 'S', false, 'h')";
  ASSERT_TRUE(Run(insert_game).ok());
  ASSERT_TRUE(Run(insert_seat).ok());
  const absl::Status clash = Run(insert_seat);
  EXPECT_EQ(clash.code(), absl::StatusCode::kAlreadyExists) << clash;
  EXPECT_THAT(clash.message(), HasSubstr("a unique key is taken"));
  ExpectPlain(clash);
}

TEST_F(PgStatusTest, EachFailureHasItsOwnErrorIdAndKeepsItsCode) {
  const absl::Status constraint = Run(
      "INSERT INTO game_seats (game_id, seat, player_id, display_name, bot, token_hash) "
      "VALUES ('none', 0, 'secret-player', 'S', false, 'h')");
  EXPECT_EQ(constraint.code(), absl::StatusCode::kInvalidArgument) << constraint;
  ExpectPlain(constraint);
  const absl::Status missing = Run("SELECT secret_player FROM no_such_table");
  EXPECT_EQ(missing.code(), absl::StatusCode::kFailedPrecondition) << missing;
  EXPECT_THAT(missing.message(), HasSubstr("are the migrations applied?"));
  EXPECT_THAT(missing.message(), Not(HasSubstr("no_such_table")));
  EXPECT_NE(constraint.message().substr(constraint.message().find("error ")),
            missing.message().substr(missing.message().find("error ")));
}

}  // namespace
}  // namespace trix::pg
