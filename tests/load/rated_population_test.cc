#include "tests/load/rated_population.h"

#include <cmath>

#include "gtest/gtest.h"
#include "proto/wire/wire.h"
#include "services/ratings/display.h"
#include "services/ratings/rating_reader.h"
#include "services/ratings/store/postgres_rating_read_store.h"
#include "services/pg/connection_pool.h"
#include "services/pg/testing/test_database.h"

namespace trix::load {
namespace {

TEST(RatedPopulationTest, IsMostlyEstablishedAroundTheChosenMean) {
  PopulationOptions options;
  options.solo_members = 20000;
  options.party_members = 1000;
  std::unique_ptr<Population> people = MakePopulation("p-", options);
  ASSERT_EQ(people->solo.size(), 20000u);
  ASSERT_EQ(people->party.size(), 1000u);
  int established = 0, provisional = 0, newcomers = 0, quick_play = 0;
  double sum = 0, squares = 0;
  for (const Member& m : people->solo) {
    quick_play += wire::ModeName(m.mode) == "complex-partner";
    if (!m.rating) {
      ++newcomers;
      continue;
    }
    // The stored display is the one the ratings service would compute.
    EXPECT_EQ(m.rating->display, ratings::DisplayOf({m.rating->mu, m.rating->sigma}));
    if (m.rating->games < ratings::kDefaultProvisionalGames) {
      ++provisional;
      continue;
    }
    ++established;
    sum += m.rating->display;
    squares += 1.0 * m.rating->display * m.rating->display;
  }
  // Seeded: the shares are those asked for, within sampling error (~0.3%).
  EXPECT_NEAR(newcomers / 20000.0, 0.05, 0.01);
  EXPECT_NEAR(provisional / 20000.0, 0.15, 0.01);
  EXPECT_NEAR(quick_play / 20000.0, 0.5, 0.02);
  const double mean = sum / established;
  EXPECT_NEAR(mean, 1500, 10);
  EXPECT_NEAR(std::sqrt(squares / established - mean * mean), 250, 10);
  for (const Member& m : people->party) {
    EXPECT_EQ(wire::ModeName(m.mode), "complex-partner");
  }
  EXPECT_EQ(people->NextSolo(), &people->solo[0]);
  EXPECT_EQ(people->NextSolo(), &people->solo[1]);
}

TEST(RatedPopulationTest, TheRatingsServiceReadsTheWrittenRatings) {
  absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db =
      pg::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  PopulationOptions options;
  options.solo_members = 300;
  options.party_members = 20;
  std::unique_ptr<Population> people = MakePopulation("p-", options);
  ASSERT_TRUE(WriteRatings((*db)->url(), *people).ok());

  pg::ConnectionPool pool((*db)->url(), 1, "rated-population-test");
  ratings::PostgresRatingReadStore store(&pool);
  ratings::RatingReader reader(&store, {});
  int rated = 0;
  for (const std::vector<Member>* group : {&people->solo, &people->party}) {
    for (const Member& m : *group) {
      absl::StatusOr<std::vector<ratings::PlayerRating>> read =
          reader.Ratings(wire::ModeName(m.mode), {m.player_id});
      ASSERT_TRUE(read.ok()) << read.status();
      ASSERT_EQ(read->size(), 1u);
      const ratings::PlayerRating& r = (*read)[0];
      if (!m.rating) {
        EXPECT_EQ(r.display, 1000) << "a newcomer";
        continue;
      }
      ++rated;
      EXPECT_EQ(r.display, m.rating->display);
      EXPECT_EQ(r.games, m.rating->games);
      EXPECT_EQ(r.provisional, m.rating->games < ratings::kDefaultProvisionalGames);
    }
  }
  EXPECT_GT(rated, 250);
}

}  // namespace
}  // namespace trix::load
