// trix-table-demo: games on one table service, without matchmaking (what the fault
// tests play, and a table-service-only deployment can). As the trusted backend it opens a
// few tables on a running table service (CreateTable with the service token), starts four
// trix-bot processes per table, shows one table live through the public Watch
// stream, and at the end prints every game's result as the service recorded it
// (GetGameRecord) and Alice's game list (ListPlayerGames).
//
//   trix-table-demo --address=127.0.0.1:50051 --service_token=T --games=3
//             --modes=complex-partner,classic-solo --staked=1 --watch=0
//
// Flags also come from the environment (MAMLAKA_TABLE_DEMO_<FLAG>). Ctrl-C (or SIGTERM)
// stops every bot it started. Exit status 0 when every game finished with a
// consistent result.
#include <array>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bots/common/bot_program.h"
#include "bots/common/child_process.h"
#include "bots/demo/console.h"
#include "bots/demo/table_plan.h"
#include "bots/sdk/seat.h"
#include "proto/wire/wire.h"
#include "services/common/config.h"
#include "services/common/service_main.h"
#include "services/common/tls.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {
namespace {

struct Flags {
  std::string address = "127.0.0.1:50051";
  std::string service_token;
  int games = 3;
  std::string modes = "complex-partner,classic-solo,complex-solo";
  int staked = 1;
  int watch = 0;
  int kingdoms = 4;
  absl::Duration pace = absl::Milliseconds(120);
  int contract_ms = 3000;
  int doubling_ms = 3000;
  int card_ms = 2000;
  std::string bot_binary;
  std::string log_dir = "/tmp/trix-table-demo";
  int64_t seed = 0;
  absl::Duration timeout = absl::Minutes(10);
  absl::Duration wait_for_service = absl::Minutes(1);
  service::ChannelTls tls;  // passed on to every trix-bot it starts
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // made from `tls`
};

std::string Hex(uint64_t v, int digits) {
  return absl::StrFormat("%0*x", digits, v & ((uint64_t{1} << (4 * digits)) - 1));
}

// CreateTable, retried with the same request id while the service starts (it
// answers UNAVAILABLE until its database is ready): the retry is idempotent.
absl::Status Create(v1::TableService::Stub& stub, const Flags& flags,
                    const v1::CreateTableRequest& request, PlannedTable& table) {
  const absl::Time until = absl::Now() + flags.wait_for_service;
  while (!Stopping()) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + flags.service_token);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    v1::CreateTableResponse response;
    const grpc::Status s = stub.CreateTable(&context, request, &response);
    if (s.ok()) {
      table.id = response.table_id();
      table.tokens.assign(response.seat_tokens().begin(), response.seat_tokens().end());
      if (table.tokens.size() != 4) return absl::InternalError("not four seat tokens");
      return absl::OkStatus();
    }
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE || absl::Now() > until) {
      return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                          absl::StrCat("CreateTable: ", s.error_message()));
    }
    absl::SleepFor(absl::Milliseconds(250));
  }
  return absl::CancelledError("stopped");
}

std::unique_ptr<ChildProcess> StartBot(const Flags& flags, const PlannedTable& table,
                                       int seat, bool watched) {
  const PlannedSeat& s = table.seats[seat];
  ChildProcess::Options options;
  options.argv = {flags.bot_binary};
  // The token goes through the environment: arguments are visible to `ps`.
  options.env = {{"TRIX_BOT_ADDRESS", flags.address},
                 {"TRIX_BOT_TABLE", table.id},
                 {"TRIX_BOT_TOKEN", table.tokens[seat]},
                 {"TRIX_BOT_STRATEGY", s.strategy},
                 {"TRIX_BOT_THINK", watched ? absl::FormatDuration(flags.pace) : "0s"},
                 {"TRIX_BOT_LOG_LEVEL", "info"}};
  for (auto& setting : service::ChannelTlsEnvironment(flags.tls, "TRIX_BOT_")) {
    options.env.push_back(std::move(setting));
  }
  options.output_path =
      absl::StrCat(flags.log_dir, "/table", table.index, "-seat", seat, ".log");
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
  if (!child.ok()) {
    Say(absl::StrCat("cannot start ", flags.bot_binary, ": ", child.status().message()));
    return nullptr;
  }
  return *std::move(child);
}

// The recorded result of one game, checked (ReportGame).
bool ReportTable(v1::TableService::Stub& stub, const PlannedTable& table, bool watched) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::GetGameRecordRequest request;
  request.set_game_id(table.id);
  v1::GameRecord record;
  const grpc::Status s = stub.GetGameRecord(&context, request, &record);
  std::string title =
      absl::StrCat("Game ", table.index + 1, "  ", table.mode, "  ", table.id);
  if (watched) absl::StrAppend(&title, "  (watched)");
  absl::StatusOr<v1::GameRecord> recorded = std::move(record);
  if (!s.ok()) recorded = absl::UnavailableError(s.error_message());
  return ReportGame(recorded, title, [&](int seat, const v1::SeatAssignment& a) {
    return absl::StrCat(a.display_name(), " (", table.seats[seat].strategy,
                        a.stake() ? absl::StrCat(", stake ", a.stake()) : "", ")");
  });
}

void ReportPlayer(v1::TableService::Stub& stub, const std::string& player_id,
                  const std::string& name) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::ListPlayerGamesRequest request;
  request.set_player_id(player_id);
  v1::ListPlayerGamesResponse response;
  const grpc::Status s = stub.ListPlayerGames(&context, request, &response);
  if (!s.ok()) return Say(absl::StrCat(name, "'s games: ", s.error_message()));
  std::vector<std::string> lines = {
      absl::StrCat(name, "'s finished games (ListPlayerGames ", player_id, "):")};
  for (const v1::GameSummary& g : response.games()) {
    lines.push_back(absl::StrFormat("  %s  %-15s seat %d  total %+5d  place %d",
                                    g.game_id(), wire::ModeName(g.mode()), g.seat(),
                                    g.total(), g.place()));
  }
  Say(lines);
}

void Bind(service::Config& config, Flags& flags) {
  config.Bind("address", &flags.address, "the table service, host:port");
  config.Bind("service_token", &flags.service_token, "the table service's service token");
  config.Bind("games", &flags.games, "how many tables to play at once");
  config.Bind("modes", &flags.modes, "modes, comma separated, used in turn");
  config.Bind("staked", &flags.staked, "index of the staked game (-1: none)");
  config.Bind("watch", &flags.watch, "index of the game shown live (-1: none)");
  config.Bind("kingdoms", &flags.kingdoms, "kingdoms per game (1-4)");
  config.Bind("pace", &flags.pace, "how long the watched table's bots think");
  config.Bind("contract_ms", &flags.contract_ms, "contract clock");
  config.Bind("doubling_ms", &flags.doubling_ms, "doubling clock");
  config.Bind("card_ms", &flags.card_ms, "card clock");
  config.Bind("bot_binary", &flags.bot_binary, "trix-bot (default: beside trix-table-demo)");
  config.Bind("log_dir", &flags.log_dir, "where each bot's log goes");
  config.Bind("seed", &flags.seed, "deal seed of the first game (0: the server's)");
  config.Bind("timeout", &flags.timeout, "stop everything after this long");
  config.Bind("wait_for_service", &flags.wait_for_service,
              "how long the service may take to start");
  service::BindChannelTlsFlags(config, &flags.tls);
}

TablePlan PlanOf(const Flags& flags) {
  TablePlan plan;
  plan.games = flags.games;
  plan.modes = absl::StrSplit(flags.modes, ',', absl::SkipWhitespace());
  plan.staked = flags.staked;
  plan.kingdoms = flags.kingdoms;
  plan.clocks.set_contract_ms(flags.contract_ms);
  plan.clocks.set_doubling_ms(flags.doubling_ms);
  plan.clocks.set_card_ms(flags.card_ms);
  std::random_device device;
  plan.run_id = Hex((uint64_t{device()} << 32) | device(), 6);
  plan.seed = static_cast<uint64_t>(flags.seed);
  return plan;
}

absl::Status CreateTables(v1::TableService::Stub& stub, const Flags& flags,
                          const TablePlan& plan, std::vector<PlannedTable>& tables) {
  for (PlannedTable& table : tables) {
    if (absl::Status s = Create(stub, flags, CreateRequest(plan, table), table); !s.ok()) {
      return s;
    }
    std::vector<std::string> lines = {
        absl::StrCat("  game ", table.index + 1, ": ", table.mode, "  table ", table.id,
                     table.staked ? "  (staked)" : "",
                     table.index == flags.watch ? "  (watched)" : "")};
    for (std::string& l : SeatingLines(table)) lines.push_back(l);
    Say(lines);
  }
  return absl::OkStatus();
}

// Four trix-bot processes per table, by table index.
using TableBots = std::vector<std::array<std::unique_ptr<ChildProcess>, 4>>;

// Forked from the main thread, which outlives them (see ChildProcess). False when
// a bot could not be started.
bool StartBots(const Flags& flags, const std::vector<PlannedTable>& tables, TableBots& bots) {
  bots.resize(tables.size());
  bool started = true;
  for (const PlannedTable& table : tables) {
    for (int s = 0; s < 4; ++s) {
      bots[table.index][s] = StartBot(flags, table, s, table.index == flags.watch);
      started = started && bots[table.index][s] != nullptr;
    }
  }
  return started;
}

// Whether all four bots of a table have exited; clears `ok` when one failed.
bool TableFinished(const PlannedTable& table, TableBots& bots, const Flags& flags, bool& ok) {
  std::vector<std::string> codes;
  bool all = true;
  for (auto& bot : bots[table.index]) {
    std::optional<int> code = bot ? bot->Poll() : std::optional<int>(-1);
    all = all && code.has_value();
    if (code) codes.push_back(absl::StrCat(*code));
    ok = ok && (!code || *code == 0);
  }
  if (all && table.index != flags.watch) {
    Say(absl::StrCat("   [game ", table.index + 1, " (", table.mode,
                     ") finished in the background; bots exited ",
                     absl::StrJoin(codes, " "), "]"));
  }
  return all;
}

// Waits for every bot, announcing the tables that finish in the background. False
// when stopped or timed out first; `bots_ok` is cleared when a bot failed.
bool WaitForBots(const Flags& flags, const std::vector<PlannedTable>& tables, TableBots& bots,
                 bool& bots_ok) {
  const absl::Time until = absl::Now() + flags.timeout;
  std::vector<bool> done(tables.size(), false);
  for (size_t finished = 0; finished < tables.size();) {
    if (Stopping()) return false;
    if (absl::Now() > until) {
      Say("trix-table-demo: timed out");
      return false;
    }
    for (const PlannedTable& table : tables) {
      if (done[table.index] || !TableFinished(table, bots, flags, bots_ok)) continue;
      done[table.index] = true;
      ++finished;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  return true;
}

void StopBots(TableBots& bots) {
  for (auto& seats : bots) {
    for (auto& bot : seats) {
      if (bot) bot->Stop(absl::Seconds(3));
    }
  }
}

// Each game's recorded result, then the first player's game list. True when every
// result is consistent.
bool ReportResults(v1::TableService::Stub& stub, const Flags& flags,
                   const std::vector<PlannedTable>& tables) {
  Say({"", std::string(72, '='), "Results, as the table service recorded them", ""});
  bool results_ok = true;
  for (const PlannedTable& table : tables) {
    results_ok = ReportTable(stub, table, table.index == flags.watch) && results_ok;
    Say("");
  }
  ReportPlayer(stub, tables[0].seats[0].player_id, tables[0].seats[0].name);
  return results_ok;
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("trix-table-demo", "MAMLAKA_TABLE_DEMO_");
  Bind(config, flags);
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
    return *exit_code;
  }
  if (flags.bot_binary.empty()) flags.bot_binary = SiblingBinary("trix-bot");
  const service::StopSignals signals;  // before gRPC starts its threads: they must not take SIGTERM
  flags.credentials = FlagCredentials("trix-table-demo", flags.tls);
  if (flags.credentials == nullptr) return 2;
  const TablePlan plan = PlanOf(flags);
  absl::StatusOr<std::vector<PlannedTable>> planned = PlanTables(plan);
  if (!planned.ok()) {
    std::cerr << "trix-table-demo: " << planned.status().message() << "\n";
    return 2;
  }
  std::vector<PlannedTable> tables = *std::move(planned);
  if (system(absl::StrCat("mkdir -p '", flags.log_dir, "'").c_str()) != 0) {
    std::cerr << "trix-table-demo: cannot create " << flags.log_dir << "\n";
    return 1;
  }
  // Ctrl-C / SIGTERM: stop the bots and leave (the service's autopilot would finish
  // the games; the local run stops the service too).
  TableWatch watch(flags.credentials);
  StopOnSignal(signals, &watch);

  auto stub = v1::TableService::NewStub(TableChannel(flags.address, flags.credentials));
  Say(absl::StrCat("trix-table-demo: ", tables.size(), " tables on ", flags.address, " (run ",
                   plan.run_id, "); bot logs in ", flags.log_dir));
  if (absl::Status s = CreateTables(*stub, flags, plan, tables); !s.ok()) {
    std::cerr << "trix-table-demo: " << s << "\n";
    return 1;
  }
  std::thread watcher;
  if (flags.watch >= 0 && flags.watch < static_cast<int>(tables.size())) {
    Say("");
    // The public stream, as any spectator sees it.
    watcher =
        std::thread([&] { watch.Follow(flags.address, tables[flags.watch].id, ""); });
  }
  TableBots bots;
  bool bots_ok = StartBots(flags, tables, bots);
  if (!WaitForBots(flags, tables, bots, bots_ok)) {
    StopBots(bots);
    watch.Stop();
    if (watcher.joinable()) watcher.join();
    Say("trix-table-demo: stopped");
    return 130;
  }
  if (watcher.joinable()) watcher.join();
  const bool results_ok = ReportResults(*stub, flags, tables);
  if (!bots_ok) Say("trix-table-demo: some bots failed; see their logs in " + flags.log_dir);
  return results_ok && bots_ok ? 0 : 1;
}

}  // namespace
}  // namespace trix::bots

int main(int argc, char** argv) { return trix::bots::Run(argc, argv); }
