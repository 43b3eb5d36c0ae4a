// ratings-load: writes finished games into the outbox as fast as it can (or at
// --rate games a second) and measures how fast a running ratings-service applies
// them: rated games per second over the whole run, and how long after the last
// write the consumer's lag is back to zero.
//
//   ratings-load --database_url=postgresql://... --games=100000 --players=20000
//
// Prints one JSON object. The database must be migrated (start ratings-service
// first); the tool waits for ratings.applied_games to reach its last outbox id, so use a
// database no one else writes games to.
//
//   ratings-load --database_url=postgresql://... --credits=20000 --credit_threads=8
//
// instead times the ledger alone: that many credits (each of its own player, from
// --credit_threads threads with a connection each) and reports credits a second.
//
//   ratings-load --database_url=... --rate=100 --read_target=HOST:PORT --read_rate=300
//
// also mixes in the service's history reads over gRPC while the games are written
// (the token in MAMLAKA_READ_TOKEN, a service credential with ratings:read and
// ledger:read): GetLeaderboard, GetRatingHistory and GetStatement in turn, at
// --read_rate a second in all, of the games' players (the first 200 are credited
// once, so that their statements have lines), and reports them under "reads".
#include <atomic>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "proto/wire/wire.h"
#include "services/common/config.h"
#include "services/ratings/game_result.h"
#include "services/ratings/ledger.h"
#include "services/ratings/store/postgres_ledger_store.h"
#include "services/ratings/testing/outbox_games.h"
#include "services/pg/connection_pool.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::ratings {
namespace {

struct Flags {
  std::string database_url;
  int games = 100000;
  int players = 20000;
  int write_batch = 500;
  double rate = 0;  // games per second; 0: as fast as possible
  int seed = 1;
  bool drain_only = false;
  int credits = 0;
  int credit_threads = 8;
  std::string read_target;
  std::string read_token;
  double read_rate = 100;
};

// Credits of distinct players from many threads at once: what the ledger's shared
// rows (the external side of every credit) let through.
int TimeCredits(const Flags& f) {
  pg::ConnectionPool pool(f.database_url, f.credit_threads, "ratings-load credits");
  PostgresLedgerStore store(&pool);
  Ledger ledger(&store);
  std::atomic<int> next{0}, failed{0};
  const absl::Time start = absl::Now();
  std::vector<std::thread> threads;
  for (int t = 0; t < f.credit_threads; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < f.credits; i = next++) {
        const std::string id = absl::StrCat("load-credit-", f.seed, "-", i);
        if (!ledger.Move(EntryKind::kCredit, id, id, 100, "load").ok()) ++failed;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  nlohmann::json out;
  out["credits"] = f.credits;
  out["failed"] = failed.load();
  out["threads"] = f.credit_threads;
  out["seconds"] = seconds;
  out["credits_per_second"] = f.credits / seconds;
  std::printf("%s\n", out.dump().c_str());
  return failed.load() == 0 ? 0 : 1;
}

// The history reads at f.read_rate a second (four threads) until `stop`.
class ReadMix {
 public:
  static constexpr int kThreads = 4;
  static constexpr int kCreditedPlayers = 200;

  explicit ReadMix(const Flags& f) : f_(f) {
    if (f_.read_target.empty()) return;
    stub_ = v1::RatingsService::NewStub(
        grpc::CreateChannel(f_.read_target, grpc::InsecureChannelCredentials()));
    for (int t = 0; t < kThreads; ++t) threads_.emplace_back([this, t] { Run(t); });
  }
  ~ReadMix() { Stop(); }

  // Stops the threads; the reads made, as JSON (null without --read_target).
  nlohmann::json Stop() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    if (f_.read_target.empty()) return nullptr;
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start_);
    return {{"ok", ok_.load()}, {"failed", failed_.load()},
            {"per_second", (ok_.load() + failed_.load()) / seconds}};
  }

 private:
  void Run(int thread) {
    std::mt19937_64 rng(f_.seed * kThreads + thread);
    const absl::Duration every = absl::Seconds(kThreads / f_.read_rate);
    absl::Time due = absl::Now();
    for (int64_t i = thread; !stop_; i += kThreads) {
      const std::string player =
          absl::StrCat("load-p", rng() % std::min(f_.players, kCreditedPlayers));
      const bool ok = ReadOne(i % 3, player, kModeNames[rng() % 4]);
      ++(ok ? ok_ : failed_);
      due += every;
      if (due > absl::Now()) absl::SleepFor(due - absl::Now());
    }
  }
  bool ReadOne(int64_t kind, const std::string& player, const std::string& mode) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + f_.read_token);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    const v1::Mode wire_mode = wire::ModeFromName(mode).value();
    if (kind == 0) {
      v1::GetLeaderboardRequest request;
      *request.mutable_mode() = wire_mode;
      request.set_include_provisional(true);
      v1::GetLeaderboardResponse response;
      return stub_->GetLeaderboard(&context, request, &response).ok();
    }
    if (kind == 1) {
      v1::GetRatingHistoryRequest request;
      request.set_player_id(player);
      *request.mutable_mode() = wire_mode;
      v1::GetRatingHistoryResponse response;
      return stub_->GetRatingHistory(&context, request, &response).ok();
    }
    v1::GetStatementRequest request;
    request.set_player_id(player);
    v1::GetStatementResponse response;
    return stub_->GetStatement(&context, request, &response).ok();
  }

  const Flags f_;
  const absl::Time start_ = absl::Now();
  std::unique_ptr<v1::RatingsService::Stub> stub_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> ok_{0}, failed_{0};
};

// One credit for each of the first players the read mix asks statements of.
void CreditReadPlayers(const Flags& f) {
  pg::ConnectionPool pool(f.database_url, 1, "ratings-load credits");
  PostgresLedgerStore store(&pool);
  Ledger ledger(&store);
  for (int i = 0; i < std::min(f.players, ReadMix::kCreditedPlayers); ++i) {
    const std::string player = absl::StrCat("load-p", i);
    (void)ledger.Move(EntryKind::kCredit, absl::StrCat("load-read-", player), player, 100,
                      "load");
  }
}

OutboxGame RandomGame(std::mt19937_64& rng, const std::string& id, int players) {
  std::array<std::string, 4> seats;
  for (int s = 0; s < 4; ++s) seats[s] = absl::StrCat("load-p", rng() % players);
  while (seats[1] == seats[0]) seats[1] = absl::StrCat("load-p", rng() % players);
  while (seats[2] == seats[0] || seats[2] == seats[1]) seats[2] = absl::StrCat("load-p", rng() % players);
  while (seats[3] == seats[0] || seats[3] == seats[1] || seats[3] == seats[2]) {
    seats[3] = absl::StrCat("load-p", rng() % players);
  }
  const std::string mode = kModeNames[rng() % 4];
  if (IsPartnerMode(mode)) {
    OutboxGame g = OutboxGame::Partner(id, seats, static_cast<int>(rng() % 3) - 1);
    g.mode = mode;
    return g;
  }
  std::array<int, 4> places = {1, 2, 3, 4};
  std::shuffle(places.begin(), places.end(), rng);
  OutboxGame g = OutboxGame::Solo(id, seats, places);
  g.mode = mode;
  return g;
}

// The highest outbox id applied: the consumer applies in id order, so every game
// up to it is done. (A count would cost the consumer more than it measures.)
int64_t Applied(pqxx::connection& c) {
  pqxx::read_transaction tx(c);
  return tx.exec1("SELECT COALESCE(max(outbox_id), 0) FROM ratings.applied_games")[0].as<int64_t>();
}

int64_t LastWritten(pqxx::connection& c) {
  pqxx::read_transaction tx(c);
  return tx.exec1("SELECT COALESCE(max(id), 0) FROM game_results")[0].as<int64_t>();
}

// Waits for the first game to be applied, then times the rest of the backlog.
int Drain(pqxx::connection& watcher) {
  const int64_t last_id = LastWritten(watcher);
  const int64_t before = Applied(watcher);
  while (Applied(watcher) == before) absl::SleepFor(absl::Milliseconds(1));
  const int64_t first = Applied(watcher);
  const absl::Time start = absl::Now();
  while (Applied(watcher) < last_id) absl::SleepFor(absl::Milliseconds(5));
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  nlohmann::json out;
  out["drained"] = last_id - first;
  out["seconds"] = seconds;
  out["rated_per_second"] = (last_id - first) / seconds;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

void BindFlags(service::Config& config, Flags& f) {
  config.Bind("database_url", &f.database_url, "PostgreSQL URL of a migrated database");
  config.Bind("games", &f.games, "finished games to write");
  config.Bind("players", &f.players, "distinct players the games draw from");
  config.Bind("write_batch", &f.write_batch, "games per writing transaction");
  config.Bind("rate", &f.rate, "games written per second; 0 is as fast as possible");
  config.Bind("seed", &f.seed, "random seed (also names the games)");
  config.Bind("drain_only", &f.drain_only,
              "write nothing: time how fast the games already waiting are applied (start "
              "the tool, then the service)");
  config.Bind("credits", &f.credits,
              "write no games: time this many concurrent credits instead");
  config.Bind("credit_threads", &f.credit_threads, "threads (and connections) for --credits");
  config.Bind("read_target", &f.read_target,
              "host:port of the ratings service: mix its history reads in while writing");
  config.Bind("read_token", &f.read_token,
              "service token for the reads (ratings:read and ledger:read)");
  config.Bind("read_rate", &f.read_rate, "history reads a second, in all");
}

// Writes the games at the flags' pace; the most games the consumer was behind.
int64_t WriteGames(const Flags& f, pqxx::connection& writer, pqxx::connection& watcher,
                   absl::Time start) {
  std::mt19937_64 rng(f.seed);
  int written = 0;
  int64_t max_behind = 0;
  while (written < f.games) {
    std::vector<OutboxGame> batch;
    for (int i = 0; i < f.write_batch && written + i < f.games; ++i) {
      batch.push_back(RandomGame(rng, absl::StrCat("load-", f.seed, "-", written + i), f.players));
    }
    WriteOutboxGames(writer, batch);
    written += static_cast<int>(batch.size());
    if (f.rate > 0) {
      const absl::Time due = start + absl::Seconds(written / f.rate);
      if (due > absl::Now()) absl::SleepFor(due - absl::Now());
    }
    if (written % (f.write_batch * 20) == 0) {
      max_behind = std::max(max_behind, LastWritten(watcher) - Applied(watcher));
    }
  }
  return max_behind;
}

int Run(int argc, char** argv) {
  Flags f;
  service::Config config("ratings-load", "MAMLAKA_");
  BindFlags(config, f);
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) return *exit_code;
  if (f.credits > 0 && !f.database_url.empty() && f.credit_threads > 0) return TimeCredits(f);
  if (f.database_url.empty() || f.games < 1 || f.players < 4 || f.write_batch < 1) {
    std::fprintf(stderr, "--database_url, --games >= 1, --players >= 4 are required\n");
    return 2;
  }
  std::unique_ptr<pqxx::connection> writer = pg::Connect(f.database_url, "ratings-load");
  std::unique_ptr<pqxx::connection> watcher = pg::Connect(f.database_url, "ratings-load");
  const int64_t first_id = LastWritten(*watcher) + 1;
  if (f.drain_only) return Drain(*watcher);
  if (!f.read_target.empty()) {
    if (f.read_rate <= 0) {
      std::fprintf(stderr, "--read_rate must be positive\n");
      return 2;
    }
    CreditReadPlayers(f);
  }
  ReadMix reads(f);
  const absl::Time start = absl::Now();
  const int64_t max_behind = WriteGames(f, *writer, *watcher, start);
  const absl::Time written_at = absl::Now();
  const int64_t last_id = LastWritten(*watcher);
  while (Applied(*watcher) < last_id) {
    absl::SleepFor(absl::Milliseconds(5));
    if (absl::Now() - written_at > absl::Minutes(10)) break;
  }
  const int64_t applied = std::min<int64_t>(f.games, Applied(*watcher) - first_id + 1);
  const absl::Time done = absl::Now();
  nlohmann::json out;
  out["games"] = f.games;
  out["applied"] = applied;
  out["players"] = f.players;
  out["write_seconds"] = absl::ToDoubleSeconds(written_at - start);
  out["written_per_second"] = f.games / absl::ToDoubleSeconds(written_at - start);
  out["total_seconds"] = absl::ToDoubleSeconds(done - start);
  out["rated_per_second"] = applied / absl::ToDoubleSeconds(done - start);
  out["lag_after_last_write_seconds"] = absl::ToDoubleSeconds(done - written_at);
  out["max_games_behind"] = max_behind;
  out["reads"] = reads.Stop();
  std::printf("%s\n", out.dump().c_str());
  return applied == f.games ? 0 : 1;
}

}  // namespace
}  // namespace trix::ratings

int main(int argc, char** argv) { return trix::ratings::Run(argc, argv); }
