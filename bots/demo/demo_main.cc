// trix-demo: the local demo's driver, playing the part of a game's backend and its
// players. It registers bot accounts with matchmaking and starts a trix-bot
// process for each (they serve the seats matchmaking fills with bots), credits the
// players' accounts, queues every player through matchmaking (a party, a staked
// table, a player alone), plays each player's seat with a trix-bot process at the
// instance matchmaking named, shows one table live, and ends with each game's
// recorded result and every player's rating and balance, before and after.
//
//   trix-demo --matchmaking=127.0.0.1:50053 --ratings=127.0.0.1:50052
//             (with MAMLAKA_DEMO_SERVICE_TOKEN=<the deployment's service token>)
//
// Flags also come from the environment (MAMLAKA_DEMO_<FLAG>). Ctrl-C (or SIGTERM)
// stops every process it started. Exit status 0 when every game finished with a
// consistent result and was rated.
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bots/common/bot_program.h"
#include "bots/common/child_process.h"
#include "bots/demo/console.h"
#include "bots/demo/demo_plan.h"
#include "bots/common/lobby.h"
#include "bots/sdk/seat.h"
#include "proto/wire/wire.h"
#include "services/common/config.h"
#include "services/common/service_main.h"
#include "services/common/tls.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {
namespace {

struct Flags {
  std::string matchmaking = "127.0.0.1:50053";
  std::string ratings = "127.0.0.1:50052";
  std::string service_token;
  std::string partner_mode = "complex-partner";
  std::string solo_mode = "complex-solo";
  int64_t stake = 100;
  std::string strategy = "heuristic";
  int bot_capacity = 4;
  bool watch = true;
  absl::Duration pace = absl::Milliseconds(60);
  std::string bot_binary;
  std::string log_dir = "/tmp/trix-demo";
  absl::Duration timeout = absl::Minutes(10);
  bool bots_only = false;
  service::ChannelTls tls;
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // made from `tls`
};

// One table matchmaking made, and the players it seated there.
struct DemoGame {
  int index = 0;
  std::string mode;
  v1::Assignment first;     // the first player's assignment (table, address)
  std::vector<int> people;  // indices into the plan's people
};

void Bind(service::Config& c, Flags& f) {
  c.Bind("matchmaking", &f.matchmaking, "the matchmaking service, host:port");
  c.Bind("ratings", &f.ratings, "the ratings service, host:port");
  c.Bind("service_token", &f.service_token, "the deployment's service token");
  c.Bind("partner_mode", &f.partner_mode, "the party's mode (a partner mode)");
  c.Bind("solo_mode", &f.solo_mode, "the staked table's and Grace's mode");
  c.Bind("stake", &f.stake, "the staked table's stake (a configured level; 0: free)");
  c.Bind("strategy", &f.strategy, "what plays the people's seats");
  c.Bind("bot_capacity", &f.bot_capacity, "tables each bot account process plays at once");
  c.Bind("watch", &f.watch, "show the party's table live");
  c.Bind("pace", &f.pace, "how long the people at the watched table think");
  c.Bind("bot_binary", &f.bot_binary,
         "what plays every seat: trix-bot or any program with its flags (default: "
         "the trix-bot beside trix-demo)");
  c.Bind("log_dir", &f.log_dir, "where each bot's log goes");
  c.Bind("timeout", &f.timeout, "stop everything after this long");
  c.Bind("bots_only", &f.bots_only,
         "only serve the bot accounts until stopped (for a person playing with trix-play)");
  // Passed on to every trix-bot it starts.
  service::BindChannelTlsFlags(c, &f.tls);
}

std::unique_ptr<ChildProcess> Start(const Flags& flags, const std::string& log_name,
                                    std::vector<std::pair<std::string, std::string>> env) {
  ChildProcess::Options options;
  options.argv = {flags.bot_binary};
  env.push_back({"TRIX_BOT_LOG_LEVEL", "info"});
  for (auto& setting : service::ChannelTlsEnvironment(flags.tls, "TRIX_BOT_")) {
    env.push_back(std::move(setting));
  }
  options.env = std::move(env);  // secrets through the environment, not `ps`
  options.output_path = absl::StrCat(flags.log_dir, "/", log_name, ".log");
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
  if (!child.ok()) {
    Say(absl::StrCat("cannot start ", flags.bot_binary, ": ", child.status().message()));
    return nullptr;
  }
  return *std::move(child);
}

// Registers the plan's bot accounts and starts one trix-bot process per account.
absl::Status StartBotAccounts(const Flags& flags, const DemoPlan& plan, Lobby& lobby,
                              std::vector<std::unique_ptr<ChildProcess>>& processes) {
  for (const DemoBot& bot : plan.bots) {
    absl::StatusOr<v1::RegisterBotResponse> account = lobby.RegisterBot(bot.name, "demo");
    if (!account.ok()) return account.status();
    processes.push_back(Start(flags, bot.name,
                              {{"TRIX_BOT_MATCHMAKING", flags.matchmaking},
                               {"TRIX_BOT_BOT_KEY", account->key()},
                               {"TRIX_BOT_CAPACITY", absl::StrCat(flags.bot_capacity)},
                               {"TRIX_BOT_STRATEGY", bot.strategy}}));
    if (processes.back() == nullptr) return absl::InternalError("cannot start a bot");
    Say(absl::StrCat("  bot account ", bot.name, " (", bot.strategy, ", id ",
                     account->bot_id(), "): one trix-bot process, ", flags.bot_capacity,
                     " tables at once"));
  }
  return absl::OkStatus();
}

// Queues every person at once (parties formed first) and waits for every seat.
absl::StatusOr<std::vector<v1::Assignment>> QueueEveryone(const Flags& flags,
                                                          const DemoPlan& plan,
                                                          Lobby& lobby) {
  std::vector<v1::FindTableRequest> requests;
  for (size_t i = 0; i < plan.people.size(); ++i) requests.push_back(FindRequest(plan, i));
  for (size_t i = 0; i < plan.people.size(); ++i) {
    const int partner = plan.people[i].partner;
    if (partner < static_cast<int>(i)) continue;
    absl::StatusOr<std::string> party =
        lobby.FormParty(plan.people[i].player_id, plan.people[partner].player_id);
    if (!party.ok()) return party.status();
    requests[i].set_party_id(*party);
    requests[partner].set_party_id(*party);
  }
  std::vector<absl::StatusOr<v1::Assignment>> found(plan.people.size(),
                                                    absl::UnknownError("not queued"));
  std::vector<std::thread> queues;
  for (size_t i = 0; i < plan.people.size(); ++i) {
    queues.emplace_back([&, i] {
      const DemoPerson& p = plan.people[i];
      bool told = false;
      found[i] = lobby.FindTable(
          requests[i],
          [&](const v1::Queued& q) {
            if (told) return;
            told = true;
            Say(absl::StrFormat("  %-6s queued for %s%s (pool of %d)", p.name, p.mode,
                                p.stake ? absl::StrCat(" at stake ", p.stake) : "",
                                q.pool_size()));
          },
          flags.timeout);
    });
  }
  for (std::thread& t : queues) t.join();
  std::vector<v1::Assignment> assignments;
  for (absl::StatusOr<v1::Assignment>& a : found) {
    if (!a.ok()) return a.status();
    assignments.push_back(*std::move(a));
  }
  return assignments;
}

std::vector<DemoGame> GamesOf(const DemoPlan& plan,
                              const std::vector<v1::Assignment>& assignments) {
  std::map<std::string, int> index;
  std::vector<DemoGame> games;
  for (size_t i = 0; i < assignments.size(); ++i) {
    const std::string& table = assignments[i].table_id();
    if (index.count(table) == 0) {
      index[table] = static_cast<int>(games.size());
      DemoGame game;
      game.index = static_cast<int>(games.size());
      game.mode = wire::ModeName(assignments[i].mode());
      game.first = assignments[i];
      games.push_back(game);
    }
    games[index[table]].people.push_back(static_cast<int>(i));
  }
  return games;
}

std::unique_ptr<v1::TableService::Stub> TableStub(const Flags& flags,
                                                  const std::string& address) {
  return v1::TableService::NewStub(TableChannel(address, flags.credentials));
}

absl::StatusOr<v1::GameRecord> RecordOf(const Flags& flags, const DemoGame& game) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + flags.service_token);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::GetGameRecordRequest request;
  request.set_game_id(game.first.table_id());
  v1::GameRecord record;
  const grpc::Status s =
      TableStub(flags, game.first.address())->GetGameRecord(&context, request, &record);
  if (!s.ok()) return absl::UnavailableError(s.error_message());
  return record;
}

// The recorded result of one game, checked (ReportGame).
bool ReportDemoGame(const Flags& flags, const DemoGame& game) {
  return ReportGame(RecordOf(flags, game),
                    absl::StrCat("Game ", game.index + 1, "  ", game.mode, "  table ",
                                 game.first.table_id()),
                    [](int, const v1::SeatAssignment& s) {
                      return absl::StrCat(
                          s.display_name(), s.bot() ? " (bot)" : "",
                          s.stake() ? absl::StrCat(", stake ", s.stake()) : "");
                    });
}

// Each person's rating in the mode they played and balance, before and after.
bool ReportPeople(const DemoPlan& plan, const std::vector<v1::Assignment>& seats,
                  const std::vector<int64_t>& balances_before, Lobby& lobby) {
  std::vector<std::string> lines = {
      "Players (rating: the ratings service's displayed rating in the game's mode)",
      absl::StrFormat("  %-6s %-16s %-22s %s", "", "mode", "rating", "balance")};
  bool ok = true;
  for (size_t i = 0; i < plan.people.size(); ++i) {
    const DemoPerson& p = plan.people[i];
    absl::StatusOr<v1::RatingChange> change = lobby.WaitRated(
        p.player_id, seats[i].mode(), seats[i].table_id(), absl::Seconds(20));
    absl::StatusOr<v1::Balance> balance = lobby.BalanceOf(p.player_id);
    if (!change.ok() || !balance.ok()) {
      ok = false;
      lines.push_back(absl::StrCat("  ", p.name, ": ",
                                   (change.ok() ? balance.status() : change.status()).message()));
      continue;
    }
    lines.push_back(absl::StrFormat(
        "  %-6s %-16s %4d -> %4d (%+4d)       %5d -> %5d (%+d)", p.name, p.mode,
        change->display_before(), change->display_after(),
        change->display_after() - change->display_before(), balances_before[i],
        balance->balance(), balance->balance() - balances_before[i]));
  }
  Say(lines);
  return ok;
}

// Plays every person's seat with a trix-bot process and waits for all of them.
bool PlayPeople(const Flags& flags, const DemoPlan& plan,
                const std::vector<v1::Assignment>& seats, int watched_table) {
  std::vector<std::unique_ptr<ChildProcess>> people;
  for (size_t i = 0; i < seats.size(); ++i) {
    const v1::Assignment& a = seats[i];
    const bool watched = plan.people[i].game == watched_table;
    people.push_back(Start(flags, plan.people[i].player_id,
                           {{"TRIX_BOT_ADDRESS", a.address()},
                            {"TRIX_BOT_TABLE", a.table_id()},
                            {"TRIX_BOT_TOKEN", a.seat_token()},
                            {"TRIX_BOT_STRATEGY", plan.people[i].strategy},
                            {"TRIX_BOT_THINK",
                             watched ? absl::FormatDuration(flags.pace) : "0s"}}));
  }
  const absl::Time until = absl::Now() + flags.timeout;
  bool ok = true;
  for (auto& p : people) {
    while (p && !p->Poll() && !Stopping() && absl::Now() < until) {
      absl::SleepFor(absl::Milliseconds(100));
    }
    std::optional<int> code = p ? p->Poll() : std::optional<int>(-1);
    ok = ok && code && *code == 0;
    if (p && !code) p->Stop(absl::Seconds(3));
  }
  return ok && !Stopping();
}

// Credits every person's account with the plan's amount; their balances before.
absl::StatusOr<std::vector<int64_t>> CreditEveryone(const DemoPlan& plan, Lobby& lobby) {
  std::vector<int64_t> balances;
  for (const DemoPerson& p : plan.people) {
    if (absl::Status s = lobby.Credit(p.player_id, plan.credit, "credit-" + p.player_id);
        !s.ok()) {
      return s;
    }
    balances.push_back(plan.credit);
  }
  Say(absl::StrCat("  credited ", plan.credit, " to each player's account; queueing:"));
  return balances;
}

// Plays every person's seat, showing the first person's table live when asked.
bool PlayAndWatch(const Flags& flags, const DemoPlan& plan,
                  const std::vector<v1::Assignment>& seats, TableWatch& watch) {
  const int watched = flags.watch ? plan.people[0].game : -1;
  std::thread watcher;
  if (watched >= 0) {
    Say("");
    watcher = std::thread([&] {
      watch.Follow(seats[0].address(), seats[0].table_id(), flags.service_token);
    });
  }
  const bool played = PlayPeople(flags, plan, seats, watched);
  if (watcher.joinable()) {
    if (!played) watch.Stop();
    watcher.join();
  }
  return played;
}

// Every game's recorded result, then each person's rating and balance change.
bool ReportResults(const Flags& flags, const DemoPlan& plan,
                   const std::vector<v1::Assignment>& seats,
                   const std::vector<DemoGame>& games, const std::vector<int64_t>& balances,
                   Lobby& lobby) {
  Say({"", std::string(72, '='), "Results, as the services recorded them", ""});
  bool ok = true;
  for (const DemoGame& g : games) {
    ok = ReportDemoGame(flags, g) && ok;
    Say("");
  }
  return ReportPeople(plan, seats, balances, lobby) && ok;
}

absl::StatusOr<DemoPlan> Plan(const Flags& flags, std::string* run_id) {
  std::random_device device;
  DemoOptions options;
  options.run_id = absl::StrFormat("%06x", device() & 0xffffff);
  options.partner_mode = flags.partner_mode;
  options.solo_mode = flags.solo_mode;
  options.stake = flags.stake;
  options.person_strategy = flags.strategy;
  *run_id = options.run_id;
  return PlanDemo(options);
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("trix-demo", "MAMLAKA_DEMO_");
  Bind(config, flags);
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) return *exit_code;
  if (flags.bot_binary.empty()) flags.bot_binary = SiblingBinary("trix-bot");
  std::string run_id;
  absl::StatusOr<DemoPlan> plan = Plan(flags, &run_id);
  if (!plan.ok()) {
    std::cerr << "trix-demo: " << plan.status().message() << "\n";
    return 2;
  }
  const service::StopSignals signals;  // before gRPC starts its threads: they must not take SIGTERM
  flags.credentials = FlagCredentials("trix-demo", flags.tls);
  if (flags.credentials == nullptr) return 2;
  if (system(absl::StrCat("mkdir -p '", flags.log_dir, "'").c_str()) != 0) return 1;
  TableWatch watch(flags.credentials);
  StopOnSignal(signals, &watch);

  Lobby lobby(flags.matchmaking, flags.ratings, flags.service_token, flags.credentials);
  Say(absl::StrCat("trix-demo: run ", run_id, "; logs in ", flags.log_dir));
  // Forked from this (the main) thread, which outlives them: see ChildProcess.
  std::vector<std::unique_ptr<ChildProcess>> bot_accounts;
  if (absl::Status s = StartBotAccounts(flags, *plan, lobby, bot_accounts); !s.ok()) {
    std::cerr << "trix-demo: " << s << "\n";
    return 1;
  }
  if (flags.bots_only) {
    while (!Stopping()) absl::SleepFor(absl::Milliseconds(200));
    for (auto& bot : bot_accounts) bot->Stop(absl::Seconds(5));
    return 0;
  }
  absl::StatusOr<std::vector<int64_t>> balances = CreditEveryone(*plan, lobby);
  absl::StatusOr<std::vector<v1::Assignment>> seats =
      balances.ok() ? QueueEveryone(flags, *plan, lobby) : balances.status();
  if (!seats.ok()) {
    std::cerr << "trix-demo: " << seats.status() << "\n";
    return 1;
  }
  std::vector<DemoGame> games = GamesOf(*plan, *seats);
  for (const DemoGame& g : games) {
    Say(absl::StrCat("  game ", g.index + 1, ": ", g.mode, " table ", g.first.table_id(),
                     " on ", g.first.address(), g.first.stake() ? "  (staked)" : ""));
  }
  const bool played = PlayAndWatch(flags, *plan, *seats, watch);
  for (auto& bot : bot_accounts) bot->Stop(absl::Seconds(5));
  if (!played) {
    Say("trix-demo: stopped before every game ended; logs in " + flags.log_dir);
    return Stopping() ? 130 : 1;
  }
  return ReportResults(flags, *plan, *seats, games, *balances, lobby) ? 0 : 1;
}

}  // namespace
}  // namespace trix::bots

int main(int argc, char** argv) { return trix::bots::Run(argc, argv); }
