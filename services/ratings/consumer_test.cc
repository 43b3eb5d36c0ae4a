// The outbox consumer on a real database: games are rated exactly once, in outbox
// order, replays change nothing, two consumers never double-apply, and unreadable
// rows are recorded, not retried forever.
#include "services/ratings/consumer.h"

#include <pqxx/pqxx>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/ratings/testing/ratings_db_test.h"
#include "services/pg/connection_pool.h"
#include "services/pg/testing/frozen_backend.h"

namespace trix::ratings {
namespace {

class ConsumerTest : public RatingsDbTest {
 protected:
  // Every rating as text with full precision: equal strings mean equal bits.
  std::string Ratings() {
    std::string out;
    for (const pqxx::row& r : Sql("SELECT mode, player_id, mu::text, sigma::text, games FROM "
                                  "ratings.player_ratings ORDER BY mode, player_id")) {
      absl::StrAppend(&out, r[0].c_str(), " ", r[1].c_str(), " ", r[2].c_str(), " ", r[3].c_str(),
                      " ", r[4].c_str(), "\n");
    }
    return out;
  }
  std::vector<OutboxGame> RandomGames(int n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> players;
    for (int i = 0; i < 10; ++i) players.push_back(absl::StrCat("p", i));
    std::vector<OutboxGame> games;
    for (int i = 0; i < n; ++i) {
      std::shuffle(players.begin(), players.end(), rng);
      const std::string id = absl::StrCat("g", seed, "-", i);
      if (rng() % 2) {
        std::array<int, 4> places = {1, 2, 3, 4};
        std::shuffle(places.begin(), places.end(), rng);
        if (rng() % 4 == 0) places[1] = places[0];  // a tie
        games.push_back(OutboxGame::Solo(id, {players[0], players[1], players[2], players[3]},
                                         places));
      } else {
        games.push_back(OutboxGame::Partner(
            id, {players[0], players[1], players[2], players[3]}, static_cast<int>(rng() % 3) - 1));
      }
    }
    return games;
  }
};

TEST_F(ConsumerTest, RatesAFourPlayerGameAsOpenSkillDoes) {
  Write({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {2, 1, 4, 3})});
  EXPECT_EQ(Drain(), 1);
  absl::StatusOr<std::vector<PlayerRating>> r = reader_->Ratings("complex-solo", {"a", "b", "c", "d", "e"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR((*r)[0].skill.mu, 26.55291815138952, 1e-9);
  EXPECT_NEAR((*r)[0].skill.sigma, 8.17961798837266, 1e-9);
  EXPECT_NEAR((*r)[1].skill.mu, 27.795252672501135, 1e-9);
  EXPECT_NEAR((*r)[2].skill.mu, 20.962412806387245, 1e-9);
  EXPECT_NEAR((*r)[3].skill.sigma, 8.084127880168786, 1e-9);
  EXPECT_EQ((*r)[0].games, 1);
  EXPECT_TRUE((*r)[0].provisional);
  EXPECT_EQ((*r)[4].games, 0);  // never played: the default
  EXPECT_EQ((*r)[4].skill.mu, 25);
  EXPECT_EQ((*r)[4].display, 1000);
  EXPECT_EQ(metrics_->games_rated.Value(), 1);
  EXPECT_FALSE(Sql("SELECT consumed_at FROM game_results")[0][0].is_null());
}

TEST_F(ConsumerTest, PartnerGamesRateTwoTeams) {
  Write({OutboxGame::Partner("g1", {"a", "b", "c", "d"}, 0)});
  Drain();
  absl::StatusOr<std::vector<PlayerRating>> r =
      reader_->Ratings("complex-partner", {"a", "b", "c", "d"});
  ASSERT_TRUE(r.ok());
  EXPECT_GT((*r)[0].skill.mu, 25);
  EXPECT_EQ((*r)[0].skill.mu, (*r)[2].skill.mu);
  EXPECT_LT((*r)[1].skill.mu, 25);
  absl::StatusOr<std::vector<PlayerRating>> all = reader_->PlayerRatings("a");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[3].mode, "complex-partner");
  EXPECT_EQ((*all)[3].games, 1);
  EXPECT_EQ((*all)[2].games, 0);
}

TEST_F(ConsumerTest, ReplayingTheOutboxChangesNothing) {
  Write(RandomGames(120, 1));
  EXPECT_EQ(Drain(), 120);
  const std::string before = Ratings();
  const int history = Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>();
  EXPECT_EQ(history, 480);
  Sql("UPDATE game_results SET consumed_at = NULL");
  EXPECT_EQ(Drain(), 0);
  EXPECT_EQ(Ratings(), before);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), history);
}

TEST_F(ConsumerTest, TwoReplaysFromScratchGiveIdenticalRatings) {
  Write(RandomGames(150, 2));
  Drain();
  const std::string first = Ratings();
  Sql("DELETE FROM ratings.rating_history; DELETE FROM ratings.player_ratings; "
      "DELETE FROM ratings.applied_games; UPDATE ratings.consumer_state SET owner = ''; UPDATE game_results SET consumed_at = NULL");
  EXPECT_EQ(Drain(), 150);
  EXPECT_EQ(Ratings(), first);
}

TEST_F(ConsumerTest, TwoConsumersNeverApplyAGameTwice) {
  const std::vector<OutboxGame> games = RandomGames(300, 3);
  Write(games);
  ConsumerOptions options;
  options.database_url = db_->url();
  options.batch_size = 7;
  options.order_grace = absl::ZeroDuration();
  OutboxConsumer other(options, metrics_.get());
  std::unique_ptr<pqxx::connection> c2 = pg::Connect(db_->url(), "second consumer");
  std::atomic<int> applied{0};
  std::thread t([&] {
    for (int i = 0; i < 200; ++i) applied += other.ApplyBatch(*c2).applied;
  });
  for (int i = 0; i < 200; ++i) applied += consumer_->ApplyBatch(*connection_).applied;
  t.join();
  applied += Drain();
  EXPECT_EQ(applied.load(), 300);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), 1200);
  // The same ratings as one consumer applying them in order.
  const std::string together = Ratings();
  Sql("DELETE FROM ratings.rating_history; DELETE FROM ratings.player_ratings; "
      "DELETE FROM ratings.applied_games; UPDATE ratings.consumer_state SET owner = ''; UPDATE game_results SET consumed_at = NULL");
  Drain();
  EXPECT_EQ(Ratings(), together);
}

TEST_F(ConsumerTest, RemembersRatingsOnlyWhileNoOneElseWrites) {
  Write({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  Drain();
  // An out-of-band change that does not announce itself: the consumer notices the
  // vanished row, applies nothing, and rereads on the next batch.
  Sql("DELETE FROM ratings.player_ratings WHERE player_id = 'a'");
  Write({OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  EXPECT_THROW(consumer_->ApplyBatch(*connection_), std::runtime_error);
  EXPECT_EQ(Drain(), 1);
  absl::StatusOr<std::vector<PlayerRating>> r = reader_->Ratings("complex-solo", {"a", "b"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].games, 1);  // a started again from the default
  EXPECT_EQ((*r)[1].games, 2);
  // An announced change (owner reset) is simply reread.
  Sql("UPDATE ratings.player_ratings SET mu = 40, games = 7 WHERE player_id = 'b'; "
      "UPDATE ratings.consumer_state SET owner = ''");
  Write({OutboxGame::Solo("g3", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  Drain();
  r = reader_->Ratings("complex-solo", {"b"});
  EXPECT_EQ((*r)[0].games, 8);
}

TEST_F(ConsumerTest, WaitsForAnEarlierGameStillCommitting) {
  ConsumerOptions options;
  options.database_url = db_->url();
  options.order_grace = absl::Hours(1);
  OutboxConsumer patient(options, metrics_.get());
  // g1 takes outbox id 1 in a transaction that has not committed when g2 (id 2) does.
  std::unique_ptr<pqxx::connection> slow = pg::Connect(db_->url(), "slow writer");
  Write({OutboxGame::Solo("g0", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  EXPECT_EQ(patient.ApplyBatch(*connection_).applied, 1);
  auto tx = std::make_unique<pqxx::work>(*slow);
  tx->exec(
      "INSERT INTO games (id, mode, config, lease_owner, lease_until, finished, result) VALUES "
      "('g1', 'complex-solo', '\\x00', 'w', now(), now(), '{}')");
  tx->exec("INSERT INTO game_results (game_id, payload) VALUES ('g1', '" +
           OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {4, 3, 2, 1}).Payload() + "')");
  Write({OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  BatchResult r = patient.ApplyBatch(*connection_);
  EXPECT_EQ(r.applied, 0);
  EXPECT_TRUE(r.more);
  tx->commit();
  tx.reset();
  EXPECT_EQ(patient.ApplyBatch(*connection_).applied, 2);
  const pqxx::result order = Sql(
      "SELECT game_id FROM ratings.rating_history WHERE player_id = 'a' ORDER BY outbox_id");
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[1][0].as<std::string>(), "g1");
  // And with no grace a hole that never fills (a rolled-back id) is passed over.
  {
    pqxx::work rolled_back(*slow);
    rolled_back.exec("SELECT nextval('game_results_id_seq')");
    rolled_back.abort();
  }
  Write({OutboxGame::Solo("g3", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  EXPECT_EQ(Drain(), 1);
}

// A primary that stops answering without closing its connections (SIGSTOP, a
// paused VM): the consumer gives up on it at the stall limit, reconnects and
// applies what is waiting, rather than waiting for the frozen server forever.
TEST_F(ConsumerTest, GivesUpOnAServerThatStopsAnsweringAndReconnects) {
  ConsumerOptions options;
  options.database_url = db_->url();
  options.application_name = "consumer under test";
  options.poll_interval = absl::Milliseconds(100);
  options.order_grace = absl::ZeroDuration();
  OutboxConsumer consumer(options, metrics_.get());
  consumer.Start();
  absl::StatusOr<std::unique_ptr<pg::FrozenBackend>> frozen =
      pg::FrozenBackend::Freeze(db_->admin_url(), db_->name(), options.application_name);
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  const absl::Time frozen_at = absl::Now();
  Write({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  bool consumed = false;
  // The bound is the stall limit, then a reconnect: generous, since on a machine
  // busy with other tests the reconnect and the batch after it took over 10 s.
  while (!consumed && absl::Now() < frozen_at + pg::kStallLimit + absl::Seconds(30)) {
    absl::SleepFor(absl::Milliseconds(50));
    consumed = !Sql("SELECT consumed_at FROM game_results")[0][0].is_null();
  }
  const absl::Duration took = absl::Now() - frozen_at;
  ASSERT_TRUE(consumed) << "the game still waits " << took << " after the freeze";
  EXPECT_GE(took, pg::kStallLimit - absl::Seconds(1)) << "applied before the cut";
  EXPECT_EQ(metrics_->games_rated.Value(), 1);
  EXPECT_GE(metrics_->batch_errors.Value(), 1);
  EXPECT_EQ(pg::ConnectionsNamed(db_->admin_url(), db_->name(), options.application_name),
            2);  // the frozen one and the new one
  frozen->reset();
  consumer.Stop();
}

TEST_F(ConsumerTest, UnreadableRowsAreRecordedAndPassed) {
  Write({OutboxGame::Solo("g1", {"a", "b", "c", "d"}, {1, 2, 3, 4})});
  Sql("UPDATE game_results SET payload = '{\"mode\": \"chess\"}', consumed_at = NULL");
  Write({OutboxGame::Solo("g2", {"a", "b", "c", "d"}, {1, 2, 3, 4}),
         OutboxGame::Solo("g3", {"a", "a", "c", "d"}, {1, 2, 3, 4})});
  EXPECT_EQ(Drain(), 3);
  EXPECT_EQ(metrics_->games_quarantined.Value(), 2);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.applied_games WHERE NOT rated")[0][0].as<int>(), 2);
  EXPECT_EQ(Sql("SELECT count(*) FROM ratings.rating_history")[0][0].as<int>(), 4);
}

TEST_F(ConsumerTest, LeaderboardIsPagedWithSharedRanks) {
  std::vector<OutboxGame> games;
  for (int i = 0; i < 12; ++i) {
    games.push_back(OutboxGame::Solo(absl::StrCat("g", i), {"a", "b", "c", "d"}, {1, 2, 2, 4}));
  }
  OutboxGame with_bot = OutboxGame::Solo("gb", {"a", "e", "f", "bot"}, {1, 2, 3, 4});
  with_bot.seats[3].bot = true;
  games.push_back(with_bot);
  Write(games);
  Drain();
  absl::StatusOr<LadderPage> first = reader_->Leaderboard("complex-solo", 2, "", false);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->entries.size(), 2u);
  EXPECT_EQ(first->entries[0].rating.player_id, "a");
  EXPECT_EQ(first->entries[0].rank, 1);
  EXPECT_EQ(first->entries[1].rank, 2);
  EXPECT_FALSE(first->entries[0].rating.provisional);
  absl::StatusOr<LadderPage> second =
      reader_->Leaderboard("complex-solo", 2, first->next_page_token, false);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->entries.size(), 2u);  // e and f are provisional, bot is left off
  EXPECT_EQ(second->entries[0].rating.player_id, "c");
  EXPECT_EQ(second->entries[0].rank, 2);  // b and c tied every game: one rank
  EXPECT_EQ(second->entries[1].rank, 4);
  EXPECT_TRUE(second->next_page_token.empty());
  absl::StatusOr<LadderPage> everyone = reader_->Leaderboard("complex-solo", 50, "", true);
  ASSERT_TRUE(everyone.ok());
  EXPECT_EQ(everyone->entries.size(), 6u);
  EXPECT_EQ(reader_->Leaderboard("chess", 2, "", false).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reader_->Leaderboard("complex-solo", 501, "", false).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reader_->Leaderboard("complex-solo", 2, "junk", false).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<HistoryPage> history = reader_->History("a", "complex-solo", 5, "");
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_EQ(history->changes.size(), 5u);
  EXPECT_EQ(history->changes[0].game_id, "gb");
  EXPECT_EQ(history->changes[0].before.mu, history->changes[1].after.mu);
  int total = 5;
  std::string token = history->next_page_token;
  while (!token.empty()) {
    absl::StatusOr<HistoryPage> more = reader_->History("a", "complex-solo", 5, token);
    ASSERT_TRUE(more.ok());
    total += more->changes.size();
    token = more->next_page_token;
  }
  EXPECT_EQ(total, 13);
}

}  // namespace
}  // namespace trix::ratings
