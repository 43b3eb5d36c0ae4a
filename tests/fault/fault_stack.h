// The deployment a fault test strikes at: the real build/bin/table-service,
// ratings-service and matchmaking-service as child processes on a fresh database
// of the test's own (DatabaseTest), each (re)started on demand, with a failpoint
// when the test names one (MAMLAKA_FAILPOINTS), and killed or left to die by the
// test. A restart takes the port of the last start, as a deployment's address
// stays (matchmaking's clients dial it anew).
//
//   class HoldsFaultTest : public FaultStackTest { ... };
//   StartRatings();
//   StartMatchmaking("lobby.after_hold", {"--stake_levels=100"});
//   EXPECT_TRUE(WaitFor([&] { return !matchmaking_->Running(); }, 10, "it died"));
#ifndef TRIX_TESTS_FAULT_FAULT_STACK_H_
#define TRIX_TESTS_FAULT_FAULT_STACK_H_

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/fault/fault_checks.h"
#include "tests/integration/matchmaking_fixture.h"
#include "tests/integration/matchmaking_replica.h"
#include "tests/integration/ratings_balances.h"
#include "tests/integration/service_process.h"

namespace trix::matchmaking {

class FaultStackTest : public pg::DatabaseTest, protected RatingsBalances {
 protected:
  // Every client of the test calls from 127.0.0.1: the per-address limits are
  // lifted, as ServiceProcess lifts the table's.
  static inline const std::vector<std::string> kNoPeerLimits = {"--peer_rate=100000",
                                                                "--peer_burst=100000"};

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    url_ = Database();
    ASSERT_FALSE(url_.empty()) << "no database";
    dir_ = ::testing::TempDir() + "/" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
           db_->name();
    std::filesystem::create_directories(dir_);
    // Matchmaking's own credential for the ratings service (only its scopes); the
    // legacy one (every scope) for the table instance, which the ratings service
    // accepts too (the "operator": the test's clients show it to all three).
    std::ofstream(dir_ + "/ratings.token") << table::kMatchmakingToken;
    std::ofstream(dir_ + "/table.token") << table::kServiceToken;
    table::WriteCredentialsFile(
        dir_ + "/credentials.json",
        {{.name = "matchmaking",
          .token = table::kMatchmakingToken,
          .scopes = table::MatchmakingScopes()},
         {.name = "operator",
          .token = table::kServiceToken,
          .scopes = {"tables:create", "tables:void", "tables:read", "ledger:write",
                     "ledger:hold", "ledger:read", "ratings:read", "bots:admin",
                     "matchmaking:play"}}});
  }
  void TearDown() override {
    matchmaking_.reset();
    ratings_.reset();
    table_.reset();
  }

  // The database the services run on: the test's fresh one on the shared server;
  // a test that takes its server away has a server of its own instead.
  virtual std::string Database() { return db_->url(); }

  // (Re)starts the table service (lease 3 s).
  void StartTable() {
    table_ =
        table::ServiceProcess::StartServing({.binary = BuildPath("bin/table-service"),
                                             .db_url = url_,
                                             .instance_id = "fault-1",
                                             .dir = dir_,
                                             .migrations_dir = SourcePath("migrations"),
                                             .lease_ttl = "3s",
                                             .port = table_port_});
    ASSERT_NE(table_, nullptr);
    table_port_ = table_->port();
  }
  // (Re)starts the ratings service with `flags`; `failpoint` kills it where it
  // names.
  void StartRatings(const std::string& failpoint = "",
                    std::vector<std::string> flags = {}) {
    ratings_.reset();
    flags.push_back("--service_credentials=" + dir_ + "/credentials.json");
    if (ratings_port_ != 0)
      flags.push_back(absl::StrCat("--listen=127.0.0.1:", ratings_port_));
    auto ratings = ratings::RatingsProcess::Start(url_, dir_ + "/ratings.log",
                                                  flags, Failpoints(failpoint));
    ASSERT_TRUE(ratings.ok()) << ratings.status();
    ratings_ = *std::move(ratings);
    ratings_port_ = ratings_->port();
  }
  bool RatingsRunning() { return ratings_ && !ratings_->process().Poll().has_value(); }
  // (Re)starts matchmaking with the ratings service and `flags`; `failpoint` kills
  // it where it names.
  void StartMatchmaking(const std::string& failpoint, std::vector<std::string> flags) {
    matchmaking_.reset();
    flags.insert(flags.end(),
                 {absl::StrCat("--ratings_address=127.0.0.1:", ratings_port_),
                  "--credential_file=" + dir_ + "/ratings.token",
                  "--table_credential_file=" + dir_ + "/table.token"});
    if (matchmaking_port_ != 0) {
      flags.push_back(absl::StrCat("--listen=127.0.0.1:", matchmaking_port_));
    }
    matchmaking_ = std::make_unique<Replica>(
        url_, absl::StrCat(dir_, "/matchmaking-", ++matchmaking_starts_, ".log"),
        "60s", Failpoints(failpoint), flags);
    matchmaking_port_ = matchmaking_->WaitPort();
    ASSERT_GT(matchmaking_port_, 0) << "matchmaking did not serve";
  }
  // Waits for matchmaking to die at its failpoint.
  testing::AssertionResult MatchmakingDied(int seconds, const std::string& what) {
    return fault::WaitFor([&] { return !matchmaking_->Running(); }, seconds, what);
  }
  std::string Address(int port) const { return absl::StrCat("127.0.0.1:", port); }

  std::string Query(const std::string& sql) { return fault::Scalar(url_, sql); }
  std::string Query(const std::string& sql, const std::string& param) {
    return fault::Scalar(url_, sql, param);
  }
  int64_t Number(const std::string& sql) { return std::stoll(Query(sql)); }

  std::string url_;  // the database's
  std::string dir_;  // the logs and files of the test
  std::unique_ptr<table::ServiceProcess> table_;
  std::unique_ptr<Replica> matchmaking_;
  int table_port_ = 0, ratings_port_ = 0, matchmaking_port_ = 0, matchmaking_starts_ = 0;

 private:
  static std::vector<std::pair<std::string, std::string>> Failpoints(
      const std::string& failpoint) {
    if (failpoint.empty()) return {};
    return {{"MAMLAKA_FAILPOINTS", failpoint}};
  }
};

}  // namespace trix::matchmaking

#endif  // TRIX_TESTS_FAULT_FAULT_STACK_H_
