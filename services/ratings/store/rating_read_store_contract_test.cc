// RatingReadStore's contract (rating_read_store.h), checked through the rating
// reader against PostgreSQL and against the in-memory fake
// (testing/memory_rating_read_store.h): stored ratings by player and by mode,
// ladders of people ranked by display in pages, and histories newest first in
// pages.
#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/logging.h"
#include "services/ratings/game_result.h"
#include "services/ratings/rating_reader.h"
#include "services/ratings/store/postgres_rating_read_store.h"
#include "services/ratings/testing/memory_rating_read_store.h"
#include "services/pg/connection_pool.h"
#include "services/ratings/testing/stores_under_test.h"
#include "services/pg/testing/test_database.h"

namespace trix::ratings {
namespace {

// The store to check, with a way to write what the outbox consumer writes.
class StoreUnderTest {
 public:
  virtual ~StoreUnderTest() = default;
  virtual RatingReadStore& store() = 0;
  virtual void Put(const PlayerRating& rating, bool bot) = 0;
  virtual void AddHistory(const std::string& player_id, const std::string& mode,
                          const HistoryEntry& entry) = 0;
};

class MemoryUnderTest : public StoreUnderTest {
 public:
  RatingReadStore& store() override { return store_; }
  void Put(const PlayerRating& rating, bool bot) override { store_.Put(rating, bot); }
  void AddHistory(const std::string& player_id, const std::string& mode,
                  const HistoryEntry& entry) override {
    store_.AddHistory(player_id, mode, entry);
  }

 private:
  MemoryRatingReadStore store_;
};

class PostgresUnderTest : public StoreUnderTest {
 public:
  explicit PostgresUnderTest(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)), pool_(db_->url(), 2, "rating read store test"), store_(&pool_) {}

  RatingReadStore& store() override { return store_; }
  void Put(const PlayerRating& r, bool bot) override {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO ratings.player_ratings (mode, player_id, bot, mu, sigma, display, games) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7)",
        r.mode, r.player_id, bot, r.skill.mu, r.skill.sigma, r.display, r.games);
    tx.commit();
  }
  void AddHistory(const std::string& player_id, const std::string& mode,
                  const HistoryEntry& e) override {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec_params0(
        "INSERT INTO ratings.rating_history (player_id, mode, outbox_id, game_id, finished, "
        "seat, place, mu_before, sigma_before, mu_after, sigma_after, display_before, "
        "display_after) VALUES ($1, $2, $3, $4, to_timestamp($5), $6, $7, $8, $9, $10, $11, "
        "$12, $13)",
        player_id, mode, e.outbox_id, e.game_id, absl::ToUnixSeconds(e.finished), e.seat,
        e.place, e.before.mu, e.before.sigma, e.after.mu, e.after.sigma, e.display_before,
        e.display_after);
    tx.commit();
  }

 private:
  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  pg::ConnectionPool pool_;
  PostgresRatingReadStore store_;
};

class RatingReadStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        (MakeUnderTest<MemoryUnderTest, PostgresUnderTest>(GetParam(), under_)));
    reader_ = std::make_unique<RatingReader>(
        &under_->store(), ReaderOptions{.provisional_games = 10, .newcomer = {25, 8}});
  }

  void Put(const std::string& player, const std::string& mode, int display, int games,
           bool bot = false) {
    PlayerRating r;
    r.player_id = player;
    r.mode = mode;
    r.skill = {display / 60.0, 2.5};
    r.display = display;
    r.games = games;
    under_->Put(r, bot);
  }
  // The players of a ladder page, in its order, and their ranks.
  static std::vector<std::pair<std::string, int64_t>> Ranked(const LadderPage& page) {
    std::vector<std::pair<std::string, int64_t>> out;
    for (const LadderEntry& e : page.entries) out.push_back({e.rating.player_id, e.rank});
    return out;
  }

  std::unique_ptr<StoreUnderTest> under_;
  std::unique_ptr<RatingReader> reader_;
};

TEST_P(RatingReadStoreContractTest, StoredRatingsAreReadByPlayerAndByMode) {
  Put("a", "complex-solo", 1500, 12);
  Put("a", "complex-partner", 1400, 3);
  Put("b", "complex-solo", 1300, 20);
  absl::StatusOr<std::vector<PlayerRating>> a = reader_->PlayerRatings("a");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->size(), kModeNames.size());
  for (const PlayerRating& r : *a) {
    if (r.mode == "complex-solo") {
      EXPECT_EQ(r.display, 1500);
      EXPECT_EQ(r.games, 12);
      EXPECT_DOUBLE_EQ(r.skill.mu, 25.0);
      EXPECT_FALSE(r.provisional);
    } else if (r.mode == "complex-partner") {
      EXPECT_EQ(r.display, 1400);
      EXPECT_TRUE(r.provisional);
    } else {
      EXPECT_EQ(r.games, 0);
      EXPECT_DOUBLE_EQ(r.skill.mu, 25.0);
      EXPECT_DOUBLE_EQ(r.skill.sigma, 8.0);
    }
  }
  absl::StatusOr<std::vector<PlayerRating>> solo =
      reader_->Ratings("complex-solo", {"b", "nobody", "a"});
  ASSERT_TRUE(solo.ok()) << solo.status();
  ASSERT_EQ(solo->size(), 3u);
  EXPECT_EQ((*solo)[0].display, 1300);
  EXPECT_EQ((*solo)[1].games, 0);
  EXPECT_EQ((*solo)[2].display, 1500);
}

TEST_P(RatingReadStoreContractTest, LaddersRankPeopleByDisplayInPages) {
  Put("d", "complex-solo", 1300, 20);
  Put("b", "complex-solo", 1400, 20);
  Put("c", "complex-solo", 1400, 20);
  Put("a", "complex-solo", 1500, 20);
  Put("bot", "complex-solo", 1600, 50, true);
  Put("new", "complex-solo", 1450, 2);
  Put("e", "complex-partner", 1700, 20);
  absl::StatusOr<LadderPage> first = reader_->Leaderboard("complex-solo", 2, "", false);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Ranked(*first),
            (std::vector<std::pair<std::string, int64_t>>{{"a", 1}, {"b", 2}}));
  ASSERT_FALSE(first->next_page_token.empty());
  absl::StatusOr<LadderPage> rest =
      reader_->Leaderboard("complex-solo", 2, first->next_page_token, false);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(Ranked(*rest), (std::vector<std::pair<std::string, int64_t>>{{"c", 2}, {"d", 4}}));
  EXPECT_TRUE(rest->next_page_token.empty());
  absl::StatusOr<LadderPage> everyone = reader_->Leaderboard("complex-solo", 0, "", true);
  ASSERT_TRUE(everyone.ok()) << everyone.status();
  EXPECT_EQ(Ranked(*everyone), (std::vector<std::pair<std::string, int64_t>>{
                                   {"a", 1}, {"new", 2}, {"b", 3}, {"c", 3}, {"d", 5}}));
  EXPECT_TRUE(everyone->entries[1].rating.provisional);
}

TEST_P(RatingReadStoreContractTest, HistoriesAreNewestFirstInPages) {
  for (int64_t id : {3, 7, 5, 9}) {
    HistoryEntry e;
    e.outbox_id = id;
    e.game_id = absl::StrCat("g", id);
    e.finished = absl::FromUnixSeconds(1700000000 + id);
    e.seat = static_cast<int>(id % 4);
    e.place = 1;
    e.before = {25, 8};
    e.after = {26.5, 7.5};
    e.display_before = 1000;
    e.display_after = 1100 + static_cast<int>(id);
    under_->AddHistory("a", "complex-solo", e);
  }
  HistoryEntry other;
  other.outbox_id = 8;
  other.game_id = "g8";
  under_->AddHistory("a", "complex-partner", other);
  absl::StatusOr<HistoryPage> first = reader_->History("a", "complex-solo", 3, "");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->changes.size(), 3u);
  EXPECT_EQ(first->changes[0].game_id, "g9");
  EXPECT_EQ(first->changes[0].finished, absl::FromUnixSeconds(1700000009));
  EXPECT_EQ(first->changes[0].seat, 1);
  EXPECT_DOUBLE_EQ(first->changes[0].after.mu, 26.5);
  EXPECT_EQ(first->changes[0].display_after, 1109);
  EXPECT_EQ(first->changes[2].game_id, "g5");
  ASSERT_EQ(first->next_page_token, "5");
  absl::StatusOr<HistoryPage> rest = reader_->History("a", "complex-solo", 3, "5");
  ASSERT_TRUE(rest.ok()) << rest.status();
  ASSERT_EQ(rest->changes.size(), 1u);
  EXPECT_EQ(rest->changes[0].game_id, "g3");
  EXPECT_TRUE(rest->next_page_token.empty());
  EXPECT_TRUE(reader_->History("b", "complex-solo", 3, "")->changes.empty());
}

INSTANTIATE_TEST_SUITE_P(Stores, RatingReadStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::ratings
