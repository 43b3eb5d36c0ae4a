// trix-end-checks, the real program, on a migrated database of the test's own
// (about a second): it passes a ledger that holds together, and fails, saying what
// is wrong, when a seeded row breaks money moved once or rated once.
#include <filesystem>
#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "bots/common/child_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"
#include "services/pg/testing/test_database.h"
#include "tests/fault/fault_checks.h"

namespace trix::fault {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class EndChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db = pg::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    // A player credited 100 from the world: one entry, its two lines, both balances.
    Exec(R"sql(
      INSERT INTO ratings.accounts (account_id, kind, balance)
        VALUES ('player:p1', 'player', 100);
      UPDATE ratings.accounts SET balance = -100 WHERE account_id = 'world:0';
      INSERT INTO ratings.entries (entry_id, kind, request_id) VALUES (1, 1, 'credit-1');
      INSERT INTO ratings.lines (entry_id, account_id, amount, balance_after)
        VALUES (1, 'player:p1', 100, 100), (1, 'world:0', -100, -100);)sql");
  }

  void Exec(const std::string& sql) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec(sql);
    tx.commit();
  }

  // Runs trix-end-checks on the database (no replay, no wait for the ratings
  // service): its exit status; what it printed goes to `output_`.
  int EndChecks() {
    const std::string path = ::testing::TempDir() + "/end-checks-" + db_->name() + ".out";
    const std::string url = "--database_url=" + db_->url();
    const int status = RunToEnd(
        {.argv = {BuildPath("bin/trix-end-checks"), url, "--wait_rated=0s"},
         .output_path = path});
    output_ = ReadFile(path);
    std::filesystem::remove(path);
    return status;
  }

  std::unique_ptr<pg::TestDatabase> db_;
  std::string output_;
};

TEST_F(EndChecksTest, PassesWhenEveryCheckHolds) {
  EXPECT_EQ(EndChecks(), 0) << output_;
  EXPECT_THAT(output_, HasSubstr("PASS every finished game's money moved once"));
  EXPECT_THAT(output_, HasSubstr("PASS every finished game rated once"));
  EXPECT_THAT(output_, Not(HasSubstr("FAIL")));
}

TEST_F(EndChecksTest, FailsOnABalanceThatIsNotTheSumOfItsLines) {
  Exec("UPDATE ratings.accounts SET balance = 101 WHERE account_id = 'player:p1'");
  EXPECT_EQ(EndChecks(), 1) << output_;
  EXPECT_THAT(output_,
              HasSubstr("FAIL every finished game's money moved once\n"
                        "  1 accounts whose balance is not the sum of their lines"));
  EXPECT_THAT(output_, HasSubstr("PASS every finished game rated once"));
}

TEST_F(EndChecksTest, FailsOnARatingChangeOfAGameThatIsNotFinished) {
  Exec(R"sql(
    INSERT INTO ratings.rating_history (player_id, mode, outbox_id, game_id, finished,
        seat, place, mu_before, sigma_before, mu_after, sigma_after, display_before,
        display_after)
      VALUES ('p1', 'complex-partner', 1, 'g-unknown', now(), 0, 1, 25, 8.3, 26, 8,
              0, 1))sql");
  EXPECT_EQ(EndChecks(), 1) << output_;
  EXPECT_THAT(output_, HasSubstr("FAIL every finished game rated once\n"
                                 "  1 rating changes of games that are not finished"));
  EXPECT_THAT(output_, HasSubstr("PASS every finished game's money moved once"));
}

}  // namespace
}  // namespace trix::fault
