// Group commit (log_writer.h), through GameStore::Append.
#include "services/table/store/log_writer.h"

#include <atomic>
#include <chrono>
#include <future>
#include <iostream>
#include <mutex>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <pqxx/result>
#include <pqxx/transaction>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "services/table/store/testing/sample_games.h"
#include "services/table/store/testing/store_test.h"

namespace trix::table {
namespace {

// Collects the answers to asynchronous appends.
class Answers {
 public:
  std::function<void(absl::Status)> Slot(int i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (static_cast<int>(statuses_.size()) <= i) statuses_.resize(i + 1);
      ++pending_;
    }
    return [this, i](absl::Status status) {
      std::lock_guard<std::mutex> lock(mu_);
      statuses_[i] = std::move(status);
      if (--pending_ == 0) all_done_.notify_all();
    };
  }
  // Every status, once every slot was answered.
  std::vector<absl::Status> Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    all_done_.wait(lock, [&] { return pending_ == 0; });
    return statuses_;
  }

 private:
  std::mutex mu_;
  std::condition_variable all_done_;
  std::vector<absl::Status> statuses_;
  int pending_ = 0;
};

class GameStoreAppendTest : public StoreTest {
 protected:
  // Makes the writer's next batch wait: a transaction of the test's own holds
  // the row lock of game "blocker", an append to it is queued, and once the
  // writer waits on that lock, everything appended until Unblock() queues up and
  // is taken as one batch.
  void Block() {
    ASSERT_OK(store_->CreateGame(SampleGame("blocker")));
    lock_connection_ = std::make_unique<pqxx::connection>(db_->url());
    lock_tx_ = std::make_unique<pqxx::work>(*lock_connection_);
    lock_tx_->exec("SELECT 1 FROM games WHERE id = 'blocker' FOR UPDATE");
    store_->Append(SampleAppend("blocker", 0, 1),
                   [this](absl::Status s) { blocker_ = s; });
    pqxx::connection watcher(db_->url());
    for (int i = 0; i < 1000; ++i) {
      pqxx::nontransaction tx(watcher);
      if (tx.exec("SELECT 1 FROM pg_stat_activity WHERE application_name = "
                  "'mamlaka writer table-1' AND wait_event_type = 'Lock'")
              .size() == 1) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    FAIL() << "the writer never waited for the blocker's lock";
  }
  void Unblock() {
    lock_tx_->commit();
    lock_tx_.reset();
    lock_connection_.reset();
  }

  std::vector<table::LogEntry> Log(const std::string& game_id) {
    absl::StatusOr<table::StoredGame> stored = store_->LoadGame(game_id);
    EXPECT_TRUE(stored.ok()) << stored.status();
    return stored.ok() ? stored->entries : std::vector<table::LogEntry>{};
  }

  absl::Status blocker_;
  std::unique_ptr<pqxx::connection> lock_connection_;
  std::unique_ptr<pqxx::work> lock_tx_;
};

TEST_F(GameStoreAppendTest, ConcurrentAppendsShareCommitsAndStayInOrder) {
  constexpr int kGames = 100, kThreads = 8, kPerGame = 20;
  for (int g = 0; g < kGames; ++g)
    ASSERT_OK(store_->CreateGame(SampleGame(absl::StrCat("g", g))));
  Answers answers;
  std::vector<std::function<void(absl::Status)>> slots;
  for (int i = 0; i < kGames * kPerGame; ++i) slots.push_back(answers.Slot(i));
  // Each game belongs to one thread, which appends its entries in index order.
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kPerGame; ++round) {
        for (int g = t; g < kGames; g += kThreads) {
          store_->Append(SampleAppend(absl::StrCat("g", g), round, 1),
                         slots[g * kPerGame + round]);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<absl::Status> statuses = answers.Wait();
  for (int i = 0; i < kGames * kPerGame; ++i) {
    ASSERT_TRUE(statuses[i].ok()) << "append " << i << ": " << statuses[i];
  }

  const AppendStats stats = store_->append_stats();
  EXPECT_EQ(stats.requests, kGames * kPerGame);
  EXPECT_EQ(stats.entries, kGames * kPerGame);
  EXPECT_EQ(stats.failed, 0);
  EXPECT_EQ(stats.retried_alone, 0);
  EXPECT_GE(stats.commits, 1);
  EXPECT_LT(stats.commits, kGames * kPerGame / 4) << "group commit did not batch";
  std::cout << kGames * kPerGame << " appends in " << stats.commits << " commits\n";
  for (int g = 0; g < kGames; ++g) {
    const std::string id = absl::StrCat("g", g);
    const std::vector<table::LogEntry> log = Log(id);
    ASSERT_EQ(log.size(), static_cast<size_t>(kPerGame)) << id;
    for (int i = 0; i < kPerGame; ++i) {
      EXPECT_EQ(log[i].index, i);
      EXPECT_EQ(log[i].payload, SampleEntry(id, i).payload);
    }
  }
}

TEST_F(GameStoreAppendTest, ManyAppendsToOneGameInOneBatchKeepTheirOrder) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_NO_FATAL_FAILURE(Block());
  const int64_t commits_before = store_->append_stats().commits;
  Answers answers;
  for (int i = 0; i < 10; ++i) store_->Append(SampleAppend("g1", i, 1), answers.Slot(i));
  Unblock();
  for (const absl::Status& status : answers.Wait()) EXPECT_OK(status);
  EXPECT_OK(blocker_);
  // The blocker's batch, then one batch for all ten.
  EXPECT_EQ(store_->append_stats().commits - commits_before, 2);
  const std::vector<table::LogEntry> log = Log("g1");
  ASSERT_EQ(log.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(log[i].request_id, SampleEntry("g1", i).request_id);
  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->deadline, SampleEntry("g1", 9).time + absl::Minutes(1));  // the last
}

TEST_F(GameStoreAppendTest, ADuplicateIndexInABatchFailsAloneWithoutARetry) {
  for (const char* id : {"g1", "g2", "g3"}) ASSERT_OK(store_->CreateGame(SampleGame(id)));
  ASSERT_OK(store_->AppendSync(SampleAppend("g2", 0, 1)));
  ASSERT_NO_FATAL_FAILURE(Block());
  Answers answers;
  store_->Append(SampleAppend("g1", 0, 1), answers.Slot(0));
  store_->Append(SampleAppend("g2", 0, 1), answers.Slot(1));  // entry 0 again
  store_->Append(SampleAppend("g3", 0, 2), answers.Slot(2));
  Unblock();
  const std::vector<absl::Status> statuses = answers.Wait();
  EXPECT_OK(statuses[0]);
  EXPECT_EQ(statuses[1].code(), absl::StatusCode::kAlreadyExists) << statuses[1];
  EXPECT_OK(statuses[2]);
  EXPECT_EQ(store_->append_stats().retried_alone, 0);
  EXPECT_EQ(Log("g1").size(), 1u);
  EXPECT_EQ(Log("g2").size(), 1u);
  EXPECT_EQ(Log("g3").size(), 2u);
}

TEST_F(GameStoreAppendTest, AFailingBatchIsRetriedOneByOneInOrder) {
  for (const char* id : {"g1", "g2", "g3", "g4"})
    ASSERT_OK(store_->CreateGame(SampleGame(id)));
  ASSERT_OK(store_->AppendSync(SampleAppend("g4", 0, 1)));
  ASSERT_NO_FATAL_FAILURE(Block());
  Answers answers;
  store_->Append(SampleAppend("g1", 0, 1), answers.Slot(0));
  table::AppendRequest bad_end = SampleAppend("g2", 0, 2);
  bad_end.end = SampleEnd("g2");
  bad_end.end->result = "not json";  // only the server finds out
  store_->Append(bad_end, answers.Slot(1));
  store_->Append(SampleAppend("g3", 0, 1), answers.Slot(2));
  store_->Append(SampleAppend("g2", 2, 1), answers.Slot(3));  // follows the bad one
  table::AppendRequest retried = SampleAppend("g4", 1, 1);
  retried.entries[0].seat = 0;
  retried.entries[0].request_id = "g4-r0";  // seat 0 already sent this request
  store_->Append(retried, answers.Slot(4));
  store_->Append(SampleAppend("g1", 1, 1), answers.Slot(5));
  Unblock();
  const std::vector<absl::Status> statuses = answers.Wait();
  EXPECT_OK(statuses[0]);
  EXPECT_EQ(statuses[1].code(), absl::StatusCode::kInvalidArgument) << statuses[1];
  EXPECT_OK(statuses[2]);
  EXPECT_EQ(statuses[3].code(), absl::StatusCode::kDataLoss) << statuses[3];
  EXPECT_EQ(statuses[4].code(), absl::StatusCode::kAlreadyExists) << statuses[4];
  EXPECT_OK(statuses[5]);
  const AppendStats stats = store_->append_stats();
  EXPECT_EQ(stats.retried_alone, 6);
  EXPECT_EQ(stats.failed, 3);
  EXPECT_EQ(Log("g1").size(), 2u);
  EXPECT_EQ(Log("g2").size(), 0u);
  EXPECT_EQ(Log("g3").size(), 1u);
  EXPECT_EQ(Log("g4").size(), 1u);
  EXPECT_EQ(Sql("SELECT count(*) FROM games WHERE finished IS NOT NULL")[0][0].as<int>(),
            0);
}

TEST_F(GameStoreAppendTest, AnAppendWithoutTheLeaseFailsAndWritesNothing) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->CreateGame(SampleGame("g2")));
  ASSERT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  // The lease is released (this instance stopped hosting it): appends stop at once...
  Sql("UPDATE games SET lease_until = '-infinity' WHERE id = 'g1'");
  absl::Status status = store_->AppendSync(SampleAppend("g1", 1, 1));
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find("lease lost"), absl::string_view::npos) << status;
  // ...and once another instance takes the game over, only it may append.
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  absl::StatusOr<std::vector<std::string>> claimed =
      other->ClaimOrphans(absl::Minutes(1), 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(*claimed, std::vector<std::string>{"g1"});
  ASSERT_NO_FATAL_FAILURE(Block());
  Answers answers;
  store_->Append(SampleAppend("g1", 1, 1), answers.Slot(0));
  store_->Append(SampleAppend("g2", 0, 1), answers.Slot(1));
  Unblock();
  const std::vector<absl::Status> statuses = answers.Wait();
  EXPECT_EQ(statuses[0].code(), absl::StatusCode::kAborted) << statuses[0];
  EXPECT_OK(statuses[1]);
  EXPECT_EQ(store_->append_stats().retried_alone, 0);

  absl::StatusOr<table::StoredGame> stored = store_->LoadGame("g1");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->entries.size(), 1u);
  EXPECT_EQ(stored->deadline, SampleEntry("g1", 0).time + absl::Minutes(1));  // untouched
  EXPECT_OK(other->AppendSync(SampleAppend("g1", 1, 1)));
}

// The game's own lease and its instance's lease both lapsed (the instance was
// frozen) but nobody claimed the game: nobody else can have written to it, so its
// appends go on, alone and in a batch; the first claim ends them.
TEST_F(GameStoreAppendTest, ALapsedLeaseNobodyClaimedStillTakesAppendsUntilAClaim) {
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  ASSERT_OK(store_->CreateGame(SampleGame("g2")));
  Sql("UPDATE games SET lease_until = now() - interval '1 second'");
  EXPECT_OK(store_->AppendSync(SampleAppend("g1", 0, 1)));
  ASSERT_NO_FATAL_FAILURE(Block());
  Answers answers;
  store_->Append(SampleAppend("g1", 1, 1), answers.Slot(0));
  store_->Append(SampleAppend("g2", 0, 1), answers.Slot(1));
  Unblock();
  for (const absl::Status& status : answers.Wait()) EXPECT_OK(status);
  std::unique_ptr<GameStore> other = OpenStore("table-2");
  absl::StatusOr<std::vector<std::string>> claimed =
      other->ClaimOrphans(absl::Minutes(1), 10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(claimed->size(), 2u);
  EXPECT_EQ(store_->AppendSync(SampleAppend("g1", 2, 1)).code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ(Log("g1").size(), 2u);
  EXPECT_OK(other->AppendSync(SampleAppend("g1", 2, 1)));
}

// log_append takes one request (its path for the common case) and a batch (its
// general path) through the same checks: each case below is answered alike either
// way, and nothing of a refused request is written.
TEST_F(GameStoreAppendTest, EachAnswerIsTheSameAloneAndInABatch) {
  struct Case {
    std::string game;
    table::AppendRequest request;
    absl::StatusCode code;
    std::string says;  // part of the message
    size_t log_after;
  };
  const absl::Time clock = absl::FromUnixSeconds(1900000000);
  auto arrange = [&](const std::string& p) {
    for (const char* name : {"ok", "end", "released", "ended", "dup", "gap", "clock"}) {
      EXPECT_OK(store_->CreateGame(SampleGame(p + name)));
    }
    table::AppendRequest ending = SampleAppend(p + "ended", 0, 1);
    ending.end = SampleEnd(p + "ended");
    EXPECT_OK(store_->AppendSync(ending));
    EXPECT_OK(store_->AppendSync(SampleAppend(p + "dup", 0, 1)));
    Sql("UPDATE games SET lease_until = '-infinity' WHERE id = '" + p + "released'");
    table::AppendRequest last = SampleAppend(p + "end", 0, 2);
    last.end = SampleEnd(p + "end");
    table::AppendRequest clock_only;
    clock_only.game_id = p + "clock";
    clock_only.deadline = clock;
    using C = absl::StatusCode;
    return std::vector<Case>{
        {p + "ok", SampleAppend(p + "ok", 0, 1), C::kOk, "", 1},
        {p + "end", last, C::kOk, "", 2},
        {p + "released", SampleAppend(p + "released", 0, 1), C::kAborted, "lease lost",
         0},
        {p + "ended", SampleAppend(p + "ended", 1, 1), C::kFailedPrecondition,
         "has ended", 1},
        {p + "dup", SampleAppend(p + "dup", 0, 1), C::kAlreadyExists, "already written",
         1},
        {p + "gap", SampleAppend(p + "gap", 2, 1), C::kDataLoss,
         "log is shorter than acknowledged", 0},
        {p + "none", SampleAppend(p + "none", 0, 1), C::kNotFound, "not found", 0},
        {p + "clock", clock_only, C::kOk, "", 0},
    };
  };
  auto check = [&](const std::vector<Case>& cases,
                   const std::vector<absl::Status>& statuses) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      EXPECT_EQ(statuses[i].code(), c.code) << c.game << ": " << statuses[i];
      EXPECT_NE(statuses[i].message().find(c.says), absl::string_view::npos)
          << c.game << ": " << statuses[i];
      if (c.code != absl::StatusCode::kNotFound) {
        EXPECT_EQ(Log(c.game).size(), c.log_after) << c.game;
      }
    }
    const std::string p = cases[0].game.substr(0, 2);
    absl::StatusOr<table::StoredGame> ended = store_->LoadGame(p + "end");
    ASSERT_TRUE(ended.ok()) << ended.status();
    EXPECT_TRUE(ended->finished);
    const std::string where = " WHERE game_id = '" + p + "end'";
    EXPECT_EQ(Sql("SELECT sum(total) FROM game_seats" + where)[0][0].as<int>(), 100);
    EXPECT_EQ(Sql("SELECT count(*) FROM game_results" + where)[0][0].as<int>(), 1);
    absl::StatusOr<table::StoredGame> clocked = store_->LoadGame(p + "clock");
    ASSERT_TRUE(clocked.ok()) << clocked.status();
    EXPECT_EQ(clocked->deadline, clock);
  };

  const std::vector<Case> alone = arrange("a-");
  std::vector<absl::Status> statuses;
  for (const Case& c : alone) statuses.push_back(store_->AppendSync(c.request));
  check(alone, statuses);

  const std::vector<Case> batched = arrange("b-");
  ASSERT_NO_FATAL_FAILURE(Block());
  const int64_t commits_before = store_->append_stats().commits;
  Answers answers;
  for (size_t i = 0; i < batched.size(); ++i) {
    store_->Append(batched[i].request, answers.Slot(static_cast<int>(i)));
  }
  Unblock();
  check(batched, answers.Wait());
  EXPECT_EQ(store_->append_stats().commits - commits_before, 2);  // the blocker's, ours
  EXPECT_EQ(store_->append_stats().retried_alone, 0);
}

TEST_F(GameStoreAppendTest, ClosingTheStoreWritesWhatIsQueued) {
  constexpr int kGames = 5, kPerGame = 40;
  for (int g = 0; g < kGames; ++g)
    ASSERT_OK(store_->CreateGame(SampleGame(absl::StrCat("g", g))));
  Answers answers;
  for (int i = 0; i < kPerGame; ++i) {
    for (int g = 0; g < kGames; ++g) {
      store_->Append(SampleAppend(absl::StrCat("g", g), i, 1),
                     answers.Slot(g * kPerGame + i));
    }
  }
  store_.reset();
  for (const absl::Status& status : answers.Wait()) EXPECT_OK(status);
  store_ = OpenStore("table-1");
  for (int g = 0; g < kGames; ++g) EXPECT_EQ(Log(absl::StrCat("g", g)).size(), 40u);
}

TEST_F(GameStoreAppendTest, AppendsFromInsideACallbackAreWritten) {
  // The table service appends its next entry when the last one is durable.
  ASSERT_OK(store_->CreateGame(SampleGame("g1")));
  std::promise<absl::Status> last;
  std::function<void(int64_t)> append_from = [&](int64_t index) {
    store_->Append(SampleAppend("g1", index, 1), [&, index](absl::Status s) {
      if (!s.ok() || index == 9) {
        last.set_value(s);
      } else {
        append_from(index + 1);
      }
    });
  };
  append_from(0);
  EXPECT_OK(last.get_future().get());
  EXPECT_EQ(Log("g1").size(), 10u);
}

TEST_F(GameStoreAppendTest, AFullQueueRefusesAtOnceAndLosesNothingQueued) {
  ASSERT_OK(store_->CreateGame(SampleGame("held")));
  ASSERT_OK(store_->CreateGame(SampleGame("g")));
  // A writer of its own with room for two waiting appends, held on a row lock.
  LogWriter writer(db_->url(), "table-1", /*max_batch=*/512, /*max_queued=*/2);
  pqxx::connection locker(db_->url());
  pqxx::work lock_tx(locker);
  lock_tx.exec("SELECT 1 FROM games WHERE id = 'held' FOR UPDATE");
  Answers answers;
  writer.Append(SampleAppend("held", 0, 1), answers.Slot(0));
  pqxx::connection watcher(db_->url());
  bool waiting = false;
  for (int i = 0; i < 1000 && !waiting; ++i) {
    pqxx::nontransaction tx(watcher);
    waiting = tx.exec(
                    "SELECT 1 FROM pg_stat_activity WHERE application_name = "
                    "'mamlaka writer table-1' AND wait_event_type = 'Lock'")
                  .size() == 1;
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(waiting) << "the writer never waited for the row lock";
  writer.Append(SampleAppend("g", 0, 1), answers.Slot(1));
  writer.Append(SampleAppend("g", 1, 1), answers.Slot(2));
  absl::Status refused;
  writer.Append(SampleAppend("g", 2, 1), [&](absl::Status s) { refused = s; });
  // Answered inside Append: nothing waits on a full queue.
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
  EXPECT_NE(refused.message().find("queue is full"), absl::string_view::npos) << refused;
  EXPECT_EQ(writer.stats().refused_full, 1);
  lock_tx.commit();
  for (const absl::Status& status : answers.Wait()) EXPECT_OK(status);
  EXPECT_EQ(Log("g").size(), 2u);
}

TEST(LogWriterOutageTest, AnUnreachableDatabaseIsRetriedWithBackoff) {
  // Nothing listens on port 1: every connection attempt is refused at once.
  LogWriter writer("postgresql://postgres@127.0.0.1:1/mamlaka", "table-1",
                   /*max_batch=*/512);
  const absl::Time start = absl::Now();
  constexpr int kAppends = 200;
  for (int i = 0; i < kAppends; ++i) {
    std::promise<absl::Status> answer;
    writer.Append(SampleAppend("g", i, 1),
                  [&](absl::Status s) { answer.set_value(std::move(s)); });
    const absl::Status status = answer.get_future().get();
    ASSERT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  }
  const absl::Duration elapsed = absl::Now() - start;
  // Without backoff every append would try (and two per append: the retry).
  // With it: one attempt, then at most one per 100 ms (doubling) meanwhile.
  const int64_t allowed = 2 + absl::ToInt64Milliseconds(elapsed) / 100;
  EXPECT_LE(writer.stats().connects, allowed) << "in " << elapsed;
  EXPECT_GE(writer.stats().connects, 1);
  EXPECT_EQ(writer.stats().failed, kAppends);
}

}  // namespace
}  // namespace trix::table
