// trix-bot: plays one seat of one table with a strategy, then exits.
//
//   trix-bot --address 127.0.0.1:50051 --table ID --token TOKEN --strategy heuristic
//
// Every flag may come from the environment instead (TRIX_BOT_ADDRESS,
// TRIX_BOT_TABLE, TRIX_BOT_TOKEN, ...); a seat token is better passed that way,
// since a process's arguments are visible to every user of the machine.
// Exit status: 0 when the game ended (one JSON line with the result on stdout),
// 1 when the seat could not be played, 2 for bad flags.
#include <signal.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bots/sdk/seat.h"
#include "bots/strategies/strategy.h"
#include "nlohmann/json.hpp"
#include "services/common/config.h"
#include "services/common/logging.h"

namespace trix::bots {
namespace {

struct Flags {
  std::string address = "127.0.0.1:50051";
  std::string table;
  std::string token;
  std::string strategy = "heuristic";
  int64_t seed = 0;
  absl::Duration think = absl::ZeroDuration();
  absl::Duration give_up_after = absl::Minutes(2);
  std::string log_level = "warn";
};

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("trix-bot", "TRIX_BOT_");
  config.Bind("address", &flags.address, "the table service, host:port");
  config.Bind("table", &flags.table, "the table id");
  config.Bind("token", &flags.token, "the seat token (prefer TRIX_BOT_TOKEN)");
  config.Bind("strategy", &flags.strategy, "random or heuristic");
  config.Bind("seed", &flags.seed, "the random strategy's seed; 0 picks one");
  config.Bind("think", &flags.think, "a pause before each decision, e.g. 150ms");
  config.Bind("give_up_after", &flags.give_up_after,
              "stop after this long without progress (server unreachable)");
  config.Bind("log_level", &flags.log_level, "debug, info, warn, error or off");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
    return *exit_code;
  }
  if (flags.table.empty() || flags.token.empty()) {
    std::cerr << "trix-bot: --table and --token (or TRIX_BOT_TABLE, TRIX_BOT_TOKEN) "
                 "are required\n\n"
              << config.Usage();
    return 2;
  }
  service::InitLogging("trix-bot", flags.log_level);
  uint64_t seed = static_cast<uint64_t>(flags.seed);
  if (seed == 0) seed = (uint64_t{std::random_device()()} << 32) | std::random_device()();
  absl::StatusOr<std::unique_ptr<Bot>> bot = MakeStrategy(flags.strategy, seed);
  if (!bot.ok()) {
    std::cerr << "trix-bot: " << bot.status().message() << "\n";
    return 2;
  }

  const std::string table = flags.table;
  SeatConfig seat_config;
  seat_config.table_id = flags.table;
  seat_config.seat_token = flags.token;
  seat_config.think = flags.think;
  seat_config.give_up_after = flags.give_up_after;
  seat_config.log = [table](LogLevel level, absl::string_view message) {
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
  Seat seat(TableChannel(flags.address), seat_config, bot->get());

  // SIGINT / SIGTERM stop the seat cleanly (the server's autopilot takes over).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([&seat, signals] {
    int signal = 0;
    if (sigwait(&signals, &signal) == 0) seat.Stop();
  }).detach();

  service::LogInfo(
      "playing",
      {{"table", table}, {"strategy", flags.strategy}, {"address", flags.address}});
  absl::StatusOr<v1::GameResult> result = seat.Play();
  const SeatStats stats = seat.stats();
  if (!result.ok()) {
    service::LogError("the seat could not be played",
                      {{"table", table}, {"error", result.status().ToString()}});
    return 1;
  }
  const int me = seat.state().seat;
  nlohmann::json line = {{"table", table},
                         {"seat", me},
                         {"strategy", flags.strategy},
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

}  // namespace
}  // namespace trix::bots

int main(int argc, char** argv) { return trix::bots::Run(argc, argv); }
