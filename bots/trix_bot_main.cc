// trix-bot: plays one seat of one table with a strategy, then exits; or serves a
// bot account: takes seat assignments from matchmaking and plays them, many tables
// at once, until stopped.
//
//   trix-bot --address 127.0.0.1:50051 --table ID --token TOKEN --strategy heuristic
//   trix-bot ... --strategy search --search_budget 60ms
//   trix-bot ... --level casual       (a level: bots/strategies/level.h)
//   trix-bot --matchmaking 127.0.0.1:50053 --capacity 8 --strategy heuristic
//       (with TRIX_BOT_BOT_KEY=<the account's key>)
//
// TLS: --tls (with --tls_ca for a private CA, --tls_client_cert/--tls_client_key
// for mutual TLS) dials matchmaking and the tables over TLS.
// Every flag may come from the environment instead (TRIX_BOT_ADDRESS,
// TRIX_BOT_TABLE, TRIX_BOT_TOKEN, ...); a seat token is better passed that way,
// since a process's arguments are visible to every user of the machine.
// Exit status: 0 when the game ended (one JSON line with the result on stdout),
// 1 when the seat could not be played, 2 for bad flags.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bots/common/bot_program.h"
#include "bots/sdk/bot_account.h"
#include "bots/sdk/seat.h"
#include "bots/strategies/level.h"
#include "bots/strategies/strategy.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "services/common/config.h"
#include "services/common/logging.h"
#include "services/common/metrics.h"
#include "services/common/service_main.h"
#include "services/common/tls.h"

namespace trix::bots {
namespace {

struct Flags {
  std::string address = "127.0.0.1:50051";
  std::string table;
  std::string token;
  std::string strategy = "heuristic";
  std::string level;  // when set, instead of --strategy
  int64_t seed = 0;
  absl::Duration think = absl::ZeroDuration();
  absl::Duration give_up_after = absl::Minutes(2);
  std::string log_level = "warn";
  std::string matchmaking;
  std::string bot_key;
  int capacity = 4;
  service::MetricsFlags metrics{.port = -1};
  service::ChannelTls tls;
  SearchOptions search;
};

LogSink SeatLog(const std::string& table) {
  return [table](LogLevel level, absl::string_view message) {
    const service::LogFields fields = {{"table", table}};
    switch (level) {
      case LogLevel::kDebug:
        return service::LogDebug(message, fields);
      case LogLevel::kInfo:
        return service::LogInfo(message, fields);
      case LogLevel::kWarn:
        return service::LogWarn(message, fields);
      case LogLevel::kError:
        return service::LogError(message, fields);
    }
  };
}

uint64_t Seed(int64_t flag) {
  if (flag != 0) return static_cast<uint64_t>(flag);
  return (uint64_t{std::random_device()()} << 32) | std::random_device()();
}

// The strategy of --level when it is set, else --strategy's with the search flags.
absl::StatusOr<std::unique_ptr<Bot>> MakeBot(const Flags& flags, uint64_t seed) {
  if (flags.level.empty()) return MakeStrategy(flags.strategy, seed, flags.search);
  absl::StatusOr<BotLevel> level = ParseBotLevel(flags.level);
  if (!level.ok()) return level.status();
  return MakeLevelBot(*level, seed);
}

// What the bot plays, for the logs: the level, or the strategy.
std::string Playing(const Flags& flags) {
  return flags.level.empty() ? flags.strategy : absl::StrCat("level ", flags.level);
}

// Serves the bot account whose key is --bot_key until a signal stops it.
int ServeAccount(const Flags& flags,
                 const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                 const service::StopSignals& signals) {
  BotAccountConfig config;
  config.matchmaking_address = flags.matchmaking;
  config.bot_key = flags.bot_key;
  config.capacity = flags.capacity;
  config.seat.think = flags.think;
  config.seat.give_up_after = flags.give_up_after;
  config.seat.log = SeatLog("");
  config.seat.credentials = credentials;
  absl::StatusOr<std::unique_ptr<service::Metrics>> metrics =
      service::StartMetrics(flags.metrics);
  if (!metrics.ok()) {
    service::LogError("cannot serve metrics", {{"error", metrics.status().ToString()}});
    return 1;
  }
  prometheus::Registry& registry = (*metrics)->registry();
  auto& games = prometheus::BuildCounter()
                    .Name("trix_bot_games_total")
                    .Help("Assigned seats played to the end (ok) or given up (error)")
                    .Register(registry);
  prometheus::Counter& games_ok = games.Add({{"result", "ok"}});
  prometheus::Counter& games_failed = games.Add({{"result", "error"}});
  prometheus::Counter& illegal =
      prometheus::BuildCounter()
          .Name("trix_bot_illegal_answers_total")
          .Help("Strategy answers that were not among the options (replaced)")
          .Register(registry)
          .Add({});
  std::atomic<uint64_t> seed{Seed(flags.seed)};
  BotAccount account(
      config,
      [&](const v1::Assignment&) -> std::unique_ptr<Bot> {
        absl::StatusOr<std::unique_ptr<Bot>> bot = MakeBot(flags, seed++);
        return bot.ok() ? *std::move(bot) : nullptr;
      },
      [&](const v1::Assignment& a, const absl::StatusOr<v1::GameResult>& result,
          const SeatStats& stats) {
        (result.ok() ? games_ok : games_failed).Increment();
        illegal.Increment(static_cast<double>(stats.replaced));
        service::LogInfo("game over", {{"table", a.table_id()},
                                       {"seat", a.seat()},
                                       {"ok", result.ok()},
                                       {"illegal_answers", stats.replaced}});
      });
  StopOnSignal(signals, [&account] { account.Stop(); });
  service::LogInfo("serving bot account", {{"matchmaking", flags.matchmaking},
                                           {"capacity", flags.capacity},
                                           {"strategy", Playing(flags)}});
  absl::Status status = account.Serve();
  if (!status.ok()) {
    service::LogError("matchmaking refused the bot account", {{"error", status.ToString()}});
    return 1;
  }
  return 0;
}

void Bind(service::Config& config, Flags& flags) {
  config.Bind("address", &flags.address, "the table service, host:port");
  config.Bind("table", &flags.table, "the table id");
  config.Bind("token", &flags.token, "the seat token (prefer TRIX_BOT_TOKEN)");
  config.Bind("strategy", &flags.strategy, "random, heuristic or search");
  config.Bind("level", &flags.level,
              "beginner, casual, strong or expert: instead of --strategy and the "
              "search flags");
  config.Bind("search_budget", &flags.search.budget,
              "search: the time to stop sampling at, per decision");
  config.Bind("search_samples", &flags.search.samples,
              "search: sampled deals per card decision at most");
  config.Bind("seed", &flags.seed, "the random strategy's seed; 0 picks one");
  config.Bind("think", &flags.think, "a pause before each decision, e.g. 150ms");
  config.Bind("give_up_after", &flags.give_up_after,
              "stop after this long without progress (server unreachable)");
  config.Bind("log_level", &flags.log_level, "debug, info, warn, error or off");
  config.Bind("matchmaking", &flags.matchmaking,
              "serve a bot account: matchmaking's host:port (instead of --table)");
  config.Bind("bot_key", &flags.bot_key, "the bot account's key (prefer TRIX_BOT_BOT_KEY)");
  config.Bind("capacity", &flags.capacity, "tables a bot account plays at once");
  service::BindMetricsFlags(config, &flags.metrics);
  service::BindChannelTlsFlags(config, &flags.tls);
}

// Plays the one seat of --table with --token, then prints a line of what it did.
int PlayOneSeat(const Flags& flags,
                const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                const service::StopSignals& signals) {
  absl::StatusOr<std::unique_ptr<Bot>> bot = MakeBot(flags, Seed(flags.seed));
  const std::string table = flags.table;
  SeatConfig seat_config;
  seat_config.table_id = flags.table;
  seat_config.seat_token = flags.token;
  seat_config.think = flags.think;
  seat_config.give_up_after = flags.give_up_after;
  seat_config.log = SeatLog(table);
  seat_config.credentials = credentials;
  Seat seat(TableChannel(flags.address, credentials), seat_config, bot->get());
  StopOnSignal(signals, [&seat] { seat.Stop(); });  // the server's autopilot then plays it

  service::LogInfo(
      "playing",
      {{"table", table}, {"strategy", Playing(flags)}, {"address", flags.address}});
  absl::StatusOr<v1::GameResult> result = seat.Play();
  const SeatStats stats = seat.stats();
  if (absl::IsCancelled(result.status())) {
    service::LogInfo("stopped; the table's autopilot plays the seat", {{"table", table}});
    return 0;
  }
  if (!result.ok()) {
    service::LogError("the seat could not be played",
                      {{"table", table}, {"error", result.status().ToString()}});
    return 1;
  }
  const int me = seat.state().seat;
  nlohmann::json line = {{"table", table},
                         {"seat", me},
                         {"strategy", Playing(flags)},
                         {"actions", stats.actions},
                         {"act_retries", stats.act_retries},
                         {"rejected", stats.rejected},
                         {"resubscribes", stats.resubscribes},
                         {"moves", stats.moves}};
  if (me >= 0 && me < result->totals_size()) line["total"] = result->totals(me);
  if (me >= 0 && me < result->places_size()) line["place"] = result->places(me);
  std::cout << line.dump() << std::endl;
  return 0;
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("trix-bot", "TRIX_BOT_");
  Bind(config, flags);
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
    return *exit_code;
  }
  const bool account = !flags.matchmaking.empty();
  if (account ? flags.bot_key.empty() || flags.capacity < 1
              : flags.table.empty() || flags.token.empty()) {
    std::cerr << "trix-bot: either --table and --token (TRIX_BOT_TABLE, TRIX_BOT_TOKEN), "
                 "or --matchmaking, --bot_key (TRIX_BOT_BOT_KEY) and --capacity >= 1\n\n"
              << config.Usage();
    return 2;
  }
  service::InitLogging("trix-bot", flags.log_level);
  const service::StopSignals signals;  // before gRPC starts its threads: they must not take SIGTERM
  if (absl::StatusOr<std::unique_ptr<Bot>> bot = MakeBot(flags, 1); !bot.ok()) {
    std::cerr << "trix-bot: " << bot.status().message() << "\n";
    return 2;
  }
  const std::shared_ptr<grpc::ChannelCredentials> credentials =
      FlagCredentials("trix-bot", flags.tls);
  if (credentials == nullptr) return 2;
  return account ? ServeAccount(flags, credentials, signals)
                 : PlayOneSeat(flags, credentials, signals);
}

}  // namespace
}  // namespace trix::bots

int main(int argc, char** argv) { return trix::bots::Run(argc, argv); }
