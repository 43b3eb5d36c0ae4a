#include "services/ratings/testing/ratings_db_test.h"

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "services/common/logging.h"

namespace trix::ratings {

void RatingsDbTest::SetUp() {
  service::InitLogging("ratings-test", "off");
  ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
  connection_ = pg::Connect(db_->url(), "ratings-test");
  metrics_ = std::make_unique<RatingsMetrics>(registry_);
  ledger_store_ = std::make_unique<PostgresLedgerStore>(pool_.get());
  ledger_ = std::make_unique<Ledger>(ledger_store_.get());
  reader_store_ = std::make_unique<PostgresRatingReadStore>(pool_.get());
  reader_ = std::make_unique<RatingReader>(reader_store_.get(), ReaderOptions{});
  ConsumerOptions options;
  options.database_url = db_->url();
  options.batch_size = 50;
  options.order_grace = absl::ZeroDuration();
  consumer_ = std::make_unique<OutboxConsumer>(options, metrics_.get());
}

void RatingsDbTest::TearDown() {
  consumer_.reset();
  pool_.reset();
  connection_.reset();
}

pqxx::result RatingsDbTest::Sql(const std::string& query) {
  pqxx::work tx(*connection_);
  pqxx::result r = tx.exec(query);
  tx.commit();
  return r;
}

int RatingsDbTest::Drain() {
  int applied = 0;
  for (;;) {
    const BatchResult r = consumer_->ApplyBatch(*connection_);
    applied += r.applied;
    if (!r.more && r.rows == 0) return applied;
  }
}

void RatingsDbTest::Credit(const std::string& player, int64_t amount) {
  absl::StatusOr<Transfer> t = ledger_->Move(EntryKind::kCredit,
                                             absl::StrCat("credit-", ++credits_), player, amount,
                                             "test credit");
  ASSERT_TRUE(t.ok()) << t.status();
}

void RatingsDbTest::CheckLedger() {
  EXPECT_EQ(Sql("SELECT COALESCE(sum(amount), 0) FROM ratings.lines")[0][0].as<int64_t>(), 0);
  EXPECT_EQ(Sql("SELECT count(*) FROM (SELECT entry_id FROM ratings.lines GROUP BY entry_id "
                "HAVING sum(amount) <> 0) x")[0][0].as<int64_t>(),
            0);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.accounts a WHERE balance <> "
                "(SELECT COALESCE(sum(amount), 0) FROM ratings.lines l "
                "WHERE l.account_id = a.account_id)")[0][0].as<int64_t>(),
            0);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.accounts a WHERE kind = 'player' AND held <> "
                "(SELECT COALESCE(sum(amount), 0) FROM ratings.holds h WHERE "
                "'player:' || h.player_id = a.account_id AND state IN (1, 2))")[0][0]
                .as<int64_t>(),
            0);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.accounts WHERE kind = 'player' AND "
                "(balance < 0 OR balance - held < 0)")[0][0].as<int64_t>(),
            0);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.accounts WHERE kind = 'pot' AND balance <> 0")[0][0]
                .as<int64_t>(),
            0);
  EXPECT_EQ(Sql("SELECT COALESCE(sum(balance), 0) FROM ratings.accounts")[0][0].as<int64_t>(), 0);
}

}  // namespace trix::ratings
