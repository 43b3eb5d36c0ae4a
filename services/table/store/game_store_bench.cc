// Group-commit append throughput: build/bin/table-store-bench.
//
// Needs a PostgreSQL server, like the tests: it makes a fresh database on the
// server named by MAMLAKA_TEST_DATABASE_URL (scripts/pg.sh start DIR PORT prints
// one) and drops it at the end.
//
// BM_TablesAppending/G: G games each with one append in flight at a time, the
// next sent when the last is durable, as the table service does (an action is
// acknowledged only once written). Reports entries/s, the mean batch size and the
// append latency from Append() to its callback.
// BM_OfferedLoad/G/R: G games sharing R appends per second, paced: the latency
// at a given load (the table service's targets are stated this way).
// BM_Flood/N: N appends queued at once by 8 threads, the writer's ceiling.
// BM_RenewHosted/G: one lease renewal round of an instance hosting G running
// games (RenewHosted with every one of them), what the table service does every
// lease_ttl / 3, after a first renewal; reports the round's time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <pqxx/connection>
#include <pqxx/transaction>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/table/store/game_store.h"
#include "services/pg/testing/test_database.h"

namespace trix::table {
namespace {

pg::TestDatabase* db = nullptr;
GameStore* store = nullptr;
int games_made = 0;

void Die(const absl::Status& status) {
  std::fprintf(stderr, "table-store-bench: %s\n", status.ToString().c_str());
  std::exit(1);
}

// `count` new running games leased to the bench's instance, made in one statement
// (setup, not measured).
std::vector<std::string> MakeGames(int count) {
  std::vector<std::string> ids;
  pqxx::connection connection(db->url());
  pqxx::work tx(connection);
  tx.exec(absl::StrCat(
      "INSERT INTO games (id, mode, config, lease_owner, lease_until) "
      "SELECT 'b' || i, 'complex-solo', 'config', 'bench', now() + interval '1 hour' "
      "FROM generate_series(",
      games_made, ", ", games_made + count - 1, ") AS i;",
      "INSERT INTO game_seats (game_id, seat, player_id, display_name, bot, token_hash) "
      "SELECT 'b' || i, s, 'p' || s, 'P', false, 'h' "
      "FROM generate_series(",
      games_made, ", ", games_made + count - 1, ") AS i, generate_series(0, 3) AS s;"));
  tx.commit();
  for (int i = 0; i < count; ++i) ids.push_back(absl::StrCat("b", games_made + i));
  games_made += count;
  return ids;
}

table::AppendRequest Action(const std::string& game_id, int64_t index) {
  table::AppendRequest request;
  request.game_id = game_id;
  table::LogEntry entry;
  entry.index = index;
  entry.seat = static_cast<int>(index % 4);
  entry.request_id = absl::StrCat("req-", index);
  entry.payload = std::string(48, 'p') + absl::StrCat(index);  // a card play's size
  entry.response = std::string(24, 'r');
  entry.time = absl::Now();
  request.entries.push_back(std::move(entry));
  request.deadline = absl::Now() + absl::Seconds(20);
  return request;
}

// Keeps one append in flight per game until `total` appends were answered.
class ClosedLoop {
 public:
  ClosedLoop(std::vector<std::string> games, std::vector<int64_t>* next, int64_t total)
      : games_(std::move(games)), next_(next), total_(total) {}

  void Run() {
    for (size_t g = 0; g < games_.size(); ++g) Issue(g);
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return answered_ == total_; });
  }
  std::vector<double>& latencies_ms() { return latencies_ms_; }
  int64_t failed() const { return failed_; }

 private:
  void Issue(size_t g) {
    if (issued_.fetch_add(1) >= total_) return;
    const auto start = std::chrono::steady_clock::now();
    store->Append(Action(games_[g], (*next_)[g]++), [this, g, start](absl::Status s) {
      const double ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
      bool last;
      {
        std::lock_guard<std::mutex> lock(mu_);
        latencies_ms_.push_back(ms);
        if (!s.ok()) ++failed_;
        last = ++answered_ == total_;
      }
      if (last) {
        done_.notify_all();
      } else if (s.ok()) {
        Issue(g);
      }
    });
  }

  const std::vector<std::string> games_;
  std::vector<int64_t>* next_;
  const int64_t total_;
  std::atomic<int64_t> issued_{0};
  std::mutex mu_;
  std::condition_variable done_;
  int64_t answered_ = 0;
  int64_t failed_ = 0;
  std::vector<double> latencies_ms_;
};

double Percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  const size_t k = std::min(values.size() - 1, static_cast<size_t>(p * values.size()));
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return values[k];
}

void BM_TablesAppending(benchmark::State& state) {
  const int games = static_cast<int>(state.range(0));
  const int64_t per_iteration = std::max<int64_t>(5000, 10 * games);
  const std::vector<std::string> ids = MakeGames(games);
  std::vector<int64_t> next(games, 0);
  std::vector<double> latencies;
  const AppendStats before = store->append_stats();
  int64_t failed = 0;
  for (auto _ : state) {
    ClosedLoop loop(ids, &next, per_iteration);
    loop.Run();
    failed += loop.failed();
    latencies.insert(latencies.end(), loop.latencies_ms().begin(),
                     loop.latencies_ms().end());
  }
  const AppendStats after = store->append_stats();
  if (failed > 0) state.SkipWithError("appends failed");
  state.SetItemsProcessed(state.iterations() * per_iteration);
  state.counters["batch"] = static_cast<double>(after.requests - before.requests) /
                            std::max<int64_t>(1, after.commits - before.commits);
  state.counters["p50_ms"] = Percentile(latencies, 0.50);
  state.counters["p99_ms"] = Percentile(latencies, 0.99);
}
BENCHMARK(BM_TablesAppending)
    ->Arg(1)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// G games sharing `rate` appends per second between them, paced by one thread
// (a game's next append is sent on schedule, whether or not its last one is
// answered, so latency is not hidden by waiting): the table service's load at a
// given action rate.
void BM_OfferedLoad(benchmark::State& state) {
  const int games = static_cast<int>(state.range(0));
  const double rate = static_cast<double>(state.range(1));
  constexpr absl::Duration kRun = absl::Seconds(2);
  const std::vector<std::string> ids = MakeGames(games);
  std::vector<int64_t> next(games, 0);
  std::mutex mu;
  std::condition_variable done;
  std::vector<double> latencies;
  int64_t answered = 0, failed = 0, sent = 0;
  const AppendStats before = store->append_stats();
  for (auto _ : state) {
    const absl::Time start = absl::Now();
    const int64_t target = static_cast<int64_t>(rate * absl::ToDoubleSeconds(kRun));
    int64_t issued = 0;
    while (issued < target) {
      const int64_t due = std::min<int64_t>(
          target,
          static_cast<int64_t>(rate * absl::ToDoubleSeconds(absl::Now() - start)));
      for (; issued < due; ++issued) {
        const int g = static_cast<int>((sent + issued) % games);
        const auto t0 = std::chrono::steady_clock::now();
        store->Append(Action(ids[g], next[g]++), [&, t0](absl::Status s) {
          const double ms = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - t0)
                                .count();
          std::lock_guard<std::mutex> lock(mu);
          latencies.push_back(ms);
          if (!s.ok()) ++failed;
          ++answered;
          done.notify_all();
        });
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    sent += issued;
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [&] { return answered == sent; });
  }
  const AppendStats after = store->append_stats();
  if (failed > 0) state.SkipWithError("appends failed");
  state.SetItemsProcessed(sent);
  state.counters["batch"] = static_cast<double>(after.requests - before.requests) /
                            std::max<int64_t>(1, after.commits - before.commits);
  state.counters["p50_ms"] = Percentile(latencies, 0.50);
  state.counters["p99_ms"] = Percentile(latencies, 0.99);
  state.counters["max_ms"] = Percentile(latencies, 1.0);
}
BENCHMARK(BM_OfferedLoad)
    ->Args({1000, 10000})
    ->Args({1000, 20000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

void BM_Flood(benchmark::State& state) {
  const int64_t appends = state.range(0);
  constexpr int kThreads = 8, kGames = 1000;
  const std::vector<std::string> ids = MakeGames(kGames);
  int64_t next = 0;
  const AppendStats before = store->append_stats();
  for (auto _ : state) {
    std::mutex mu;
    std::condition_variable done;
    int64_t answered = 0;
    std::vector<std::thread> threads;
    const int64_t rounds = appends / kGames;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int64_t r = 0; r < rounds; ++r) {
          for (int g = t; g < kGames; g += kThreads) {
            store->Append(Action(ids[g], next + r), [&](absl::Status s) {
              if (!s.ok()) Die(s);
              std::lock_guard<std::mutex> lock(mu);
              if (++answered == rounds * kGames) done.notify_all();
            });
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [&] { return answered == rounds * kGames; });
    next += rounds;
  }
  const AppendStats after = store->append_stats();
  state.SetItemsProcessed(state.iterations() * (appends / kGames) * kGames);
  state.counters["batch"] = static_cast<double>(after.requests - before.requests) /
                            std::max<int64_t>(1, after.commits - before.commits);
}
BENCHMARK(BM_Flood)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

void BM_RenewHosted(benchmark::State& state) {
  const std::vector<std::string> ids = MakeGames(static_cast<int>(state.range(0)));
  // The instance's first renewal (not measured): the rounds after it are the ones
  // an instance makes all day.
  if (absl::Status s = store->RenewHosted(absl::Seconds(15), ids).status(); !s.ok()) Die(s);
  size_t kept = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<std::string>> renewed =
        store->RenewHosted(absl::Seconds(15), ids);
    if (!renewed.ok()) Die(renewed.status());
    kept = renewed->size();
  }
  if (kept != ids.size()) state.SkipWithError("a hosted game was not kept");
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(ids.size()));
}
BENCHMARK(BM_RenewHosted)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(20);

}  // namespace
}  // namespace trix::table

int main(int argc, char** argv) {
  using trix::pg::TestDatabase;
  benchmark::Initialize(&argc, argv);
  absl::StatusOr<std::unique_ptr<TestDatabase>> db = TestDatabase::Create();
  if (!db.ok()) trix::table::Die(db.status());
  absl::StatusOr<std::unique_ptr<trix::table::GameStore>> store =
      trix::table::GameStore::Open({.url = (*db)->url(), .instance_id = "bench"});
  if (!store.ok()) trix::table::Die(store.status());
  trix::table::db = db->get();
  trix::table::store = store->get();
  benchmark::RunSpecifiedBenchmarks();
  store->reset();  // writes what is queued and closes before the database goes
  return 0;
}
