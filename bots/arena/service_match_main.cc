// trix-service-match: the arena through the real services. Plays strategies A and
// B against each other through matchmaking, every seat an external trix-bot
// process (a party of two of one strategy, matchmaking's bot fill the other two
// seats with bot accounts of the other), half the games each way round, and
// reports each strategy's team total per game, A's margin, whether every game was
// rated, and the ratings service's ratings of the bot accounts.
// scripts/service-match.sh starts the services and runs it.
//
//   trix-service-match --matchmaking=127.0.0.1:50053 --ratings=127.0.0.1:50052
//                      --games=40 --tables=8 --a=search --b=heuristic
//                      (with MAMLAKA_MATCH_SERVICE_TOKEN=<the deployment's service token>)
//
// Exit status: 0 when every game was played as planned and rated, 1 otherwise,
// 2 for bad flags.
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "absl/strings/str_format.h"
#include "bots/arena/arena_report.h"
#include "bots/arena/service_match.h"
#include "bots/common/child_process.h"
#include "services/common/config.h"

namespace trix::arena {
namespace {

int Run(int argc, char** argv) {
  ServiceMatchOptions o;
  std::string json;
  service::Config config("trix-service-match", "MAMLAKA_MATCH_");
  config.Bind("matchmaking", &o.matchmaking, "the matchmaking service, host:port");
  config.Bind("ratings", &o.ratings, "the ratings service, host:port");
  config.Bind("service_token", &o.service_token,
              "the deployment's service token (prefer MAMLAKA_MATCH_SERVICE_TOKEN)");
  config.Bind("mode", &o.mode,
              "classic-solo, classic-partner, complex-solo or complex-partner (in a solo "
              "mode each strategy's total is its two seats')");
  config.Bind("games", &o.games, "games to play, half with A as the party");
  config.Bind("tables", &o.tables, "games played at once");
  config.Bind("a", &o.a,
              "strategy A (random, heuristic, search) or level (beginner, casual, strong, "
              "expert)");
  config.Bind("b", &o.b, "strategy B");
  config.Bind("search_samples", &o.search.samples,
              "search: sampled deals per card decision at most");
  config.Bind("search_budget", &o.search.budget, "search: time per decision at most");
  config.Bind("bot_binary", &o.bot_binary, "trix-bot (default: the one beside this)");
  config.Bind("log_dir", &o.log_dir, "where each trix-bot process's log goes");
  config.Bind("timeout", &o.timeout, "give up on a game after this long");
  config.Bind("bot_connect_wait", &o.bot_connect_wait,
              "time the bot accounts get to connect before the first party queues");
  config.Bind("max_discarded", &o.max_discarded,
              "games not played as planned that are replayed before giving up");
  config.Bind("json", &json, "also write the report as JSON to this file");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) return *exit_code;
  if (o.bot_binary.empty()) o.bot_binary = bots::SiblingBinary("trix-bot");
  o.run_id = absl::StrFormat("%06x", std::random_device()() & 0xffffff);
  if (system(("mkdir -p '" + o.log_dir + "'").c_str()) != 0) return 1;
  std::cout << "trix-service-match: run " << o.run_id << "; logs in " << o.log_dir
            << std::endl;
  absl::StatusOr<ServiceMatchReport> report = PlayServiceMatch(o);
  if (!report.ok()) {
    std::cerr << "trix-service-match: " << report.status() << "\n";
    return report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  std::cout << ServiceReportText(*report);
  if (!json.empty() &&
      !WriteReportJson(ServiceReportJson(*report), json, "trix-service-match")) {
    return 1;
  }
  const bool all_rated = report->Rated() == static_cast<int>(report->games.size());
  return all_rated ? 0 : 1;
}

}  // namespace
}  // namespace trix::arena

int main(int argc, char** argv) { return trix::arena::Run(argc, argv); }
