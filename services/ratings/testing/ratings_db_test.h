// A GoogleTest fixture for the ratings logic on a real database: a fresh migrated
// database, a Ledger, a RatingReader and an OutboxConsumer (not started: tests run
// its batches), and CheckLedger(), the books-balance check every ledger scenario
// ends with.
#ifndef TRIX_SERVICES_RATINGS_TESTING_RATINGS_DB_TEST_H_
#define TRIX_SERVICES_RATINGS_TESTING_RATINGS_DB_TEST_H_

#include <memory>
#include <pqxx/connection>
#include <pqxx/result>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/ratings/consumer.h"
#include "services/ratings/ledger.h"
#include "services/ratings/store/postgres_ledger_store.h"
#include "services/ratings/store/postgres_rating_read_store.h"
#include "services/ratings/rating_reader.h"
#include "services/ratings/ratings_metrics.h"
#include "services/ratings/testing/outbox_games.h"
#include "services/pg/testing/database_test.h"

namespace trix::ratings {

class RatingsDbTest : public pg::DatabaseTest {
 protected:
  RatingsDbTest() : DatabaseTest({.connections = 4}) {}
  void SetUp() override;
  void TearDown() override;

  pqxx::result Sql(const std::string& query);
  void Write(const std::vector<OutboxGame>& games) { WriteOutboxGames(*connection_, games); }
  // Runs consumer batches until the outbox is empty; returns the games applied.
  int Drain();
  void Credit(const std::string& player, int64_t amount);
  // The books balance: the whole journal and every entry sum to zero, each
  // account's balance is the sum of its lines, its held the sum of its open holds,
  // no player balance or available balance is negative, and every pot is empty.
  void CheckLedger();

  std::unique_ptr<pqxx::connection> connection_;
  prometheus::Registry registry_;
  std::unique_ptr<RatingsMetrics> metrics_;
  std::unique_ptr<PostgresLedgerStore> ledger_store_;
  std::unique_ptr<Ledger> ledger_;
  std::unique_ptr<PostgresRatingReadStore> reader_store_;
  std::unique_ptr<RatingReader> reader_;
  std::unique_ptr<OutboxConsumer> consumer_;
  int credits_ = 0;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_TESTING_RATINGS_DB_TEST_H_
