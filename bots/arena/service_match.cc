#include "bots/arena/service_match.h"

#include <atomic>
#include <iostream>
#include <memory>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bots/common/child_process.h"
#include "bots/common/lobby.h"
#include "bots/sdk/seat.h"
#include "bots/strategies/level.h"
#include "proto/wire/wire.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::arena {
namespace {

using bots::ChildProcess;
using bots::Lobby;
using Env = std::vector<std::pair<std::string, std::string>>;

struct Account {
  std::string name;
  std::string strategy;
  std::string bot_id;
  std::unique_ptr<ChildProcess> process;
};

// What the match's phases share.
struct Match {
  Match(const ServiceMatchOptions& o, v1::Mode m)
      : options(o), lobby(o.matchmaking, o.ratings, o.service_token), mode(std::move(m)) {}
  const ServiceMatchOptions& options;
  Lobby lobby;
  v1::Mode mode;
  absl::Mutex queue_mu;  // one party in matchmaking's queue at a time
  std::atomic<int> next_game{0};
  absl::Mutex mu;
  ServiceMatchReport report ABSL_GUARDED_BY(mu);
};

// How trix-bot is told to play `player`: a level's name (bots/strategies/level.h)
// or a strategy's.
std::pair<std::string, std::string> PlayAs(const std::string& player) {
  if (bots::ParseBotLevel(player).ok()) return {"TRIX_BOT_LEVEL", player};
  return {"TRIX_BOT_STRATEGY", player};
}

// The account level of `player` when it is a level's name.
v1::BotLevel AccountLevel(const std::string& player) {
  v1::BotLevel level = v1::BOT_LEVEL_UNSPECIFIED;
  if (!bots::ParseBotLevel(player).ok()) return level;
  v1::BotLevel_Parse(absl::StrCat("BOT_LEVEL_", absl::AsciiStrToUpper(player)), &level);
  return level;
}

// A trix-bot process; secrets and settings through its environment, not `ps`.
absl::StatusOr<std::unique_ptr<ChildProcess>> StartBot(const ServiceMatchOptions& o,
                                                       const std::string& log_name, Env env) {
  env.push_back({"TRIX_BOT_SEARCH_BUDGET", absl::FormatDuration(o.search.budget)});
  env.push_back({"TRIX_BOT_SEARCH_SAMPLES", absl::StrCat(o.search.samples)});
  env.push_back({"TRIX_BOT_LOG_LEVEL", "info"});
  ChildProcess::Options options;
  options.argv = {o.bot_binary};
  options.env = std::move(env);
  options.output_path = absl::StrCat(o.log_dir, "/", log_name, ".log");
  return ChildProcess::Start(options);
}

absl::StatusOr<v1::GameRecord> RecordOf(const ServiceMatchOptions& o,
                                        const v1::Assignment& seat) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + o.service_token);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  v1::GetGameRecordRequest request;
  request.set_game_id(seat.table_id());
  v1::GameRecord record;
  const grpc::Status s = v1::TableService::NewStub(bots::TableChannel(seat.address()))
                             ->GetGameRecord(&context, request, &record);
  if (!s.ok()) return absl::UnavailableError("GetGameRecord: " + s.error_message());
  return record;
}

// Queues a party of two of `strategy` and waits for both seats. Only one party
// waits at a time: two waiting parties would be grouped at one table.
absl::StatusOr<std::array<v1::Assignment, 2>> QueueParty(
    Match& m, const std::array<std::string, 2>& people, const std::string& strategy) {
  absl::MutexLock lock(&m.queue_mu);
  absl::StatusOr<std::string> party = m.lobby.FormParty(people[0], people[1]);
  if (!party.ok()) return party.status();
  std::array<absl::StatusOr<v1::Assignment>, 2> found = {absl::UnknownError("not queued"),
                                                        absl::UnknownError("not queued")};
  auto find = [&](int i) {
    v1::FindTableRequest request;
    request.set_request_id("find-" + people[i]);
    request.set_player_id(people[i]);
    request.set_display_name(absl::StrCat(strategy, " ", i + 1));
    *request.mutable_mode() = m.mode;
    request.set_party_id(*party);
    found[i] = m.lobby.FindTable(request, [](const v1::Queued&) {}, m.options.timeout);
  };
  std::thread guest(find, 1);
  find(0);
  guest.join();
  for (const auto& f : found) {
    if (!f.ok()) return f.status();
  }
  if (found[0]->table_id() != found[1]->table_id()) {
    return absl::InternalError("the party was seated at two tables");
  }
  return std::array<v1::Assignment, 2>{*found[0], *found[1]};
}

// One game: the party queued, its seats played by trix-bot processes, the result
// read, booked and checked rated.
absl::StatusOr<ServiceGame> PlayGame(Match& m, int people_side,
                                     const std::vector<std::string>& bot_ids) {
  const ServiceMatchOptions& o = m.options;
  const std::string& strategy = people_side ? o.b : o.a;
  const int number = m.next_game++;
  const std::array<std::string, 2> people = {absl::StrCat("g", number, "a-", o.run_id),
                                             absl::StrCat("g", number, "b-", o.run_id)};
  absl::StatusOr<std::array<v1::Assignment, 2>> seats = QueueParty(m, people, strategy);
  if (!seats.ok()) return seats.status();
  const absl::Time start = absl::Now();
  std::array<std::unique_ptr<ChildProcess>, 2> players;
  for (int i = 0; i < 2; ++i) {
    const v1::Assignment& a = (*seats)[i];
    absl::StatusOr<std::unique_ptr<ChildProcess>> p =
        StartBot(o, people[i], {{"TRIX_BOT_ADDRESS", a.address()},
                                {"TRIX_BOT_TABLE", a.table_id()},
                                {"TRIX_BOT_TOKEN", a.seat_token()},
                                PlayAs(strategy)});
    if (!p.ok()) return p.status();
    players[i] = *std::move(p);
  }
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<int> exit = players[i]->Wait(o.timeout);
    if (!exit.ok() || *exit != 0) {
      return absl::AbortedError(absl::StrCat(
          "the seat process of ", people[i], " at table ", (*seats)[i].table_id(),
          exit.ok() ? absl::StrCat(" exited with ", *exit) : " did not end"));
    }
  }
  absl::StatusOr<v1::GameRecord> record = RecordOf(o, (*seats)[0]);
  if (!record.ok()) return record.status();
  absl::StatusOr<ServiceGame> game = BookGame(*record, people, bot_ids, people_side);
  if (!game.ok()) return game.status();
  game->seconds = absl::ToDoubleSeconds(absl::Now() - start);
  game->rated =
      m.lobby.WaitRated(people[0], m.mode, game->table_id, absl::Seconds(60)).ok();
  return game;
}

// Registers two bot accounts of `strategy` and starts a trix-bot process for each.
absl::Status StartAccounts(Match& m, const std::string& strategy, std::vector<Account>* out) {
  const ServiceMatchOptions& o = m.options;
  for (int k = 1; k <= 2; ++k) {
    Account account;
    account.name = absl::StrCat(strategy, "-", k, "-", o.run_id);
    account.strategy = strategy;
    absl::StatusOr<v1::RegisterBotResponse> r = m.lobby.RegisterBot(account.name, "arena", AccountLevel(strategy));
    if (!r.ok()) return r.status();
    account.bot_id = r->bot_id();
    // Room for every table at once, and for tables whose end matchmaking has not
    // yet noticed.
    absl::StatusOr<std::unique_ptr<ChildProcess>> p =
        StartBot(o, account.name, {{"TRIX_BOT_MATCHMAKING", o.matchmaking},
                                   {"TRIX_BOT_BOT_KEY", r->key()},
                                   {"TRIX_BOT_CAPACITY", absl::StrCat(2 * o.tables + 2)},
                                   PlayAs(strategy)});
    if (!p.ok()) return p.status();
    account.process = *std::move(p);
    out->push_back(std::move(account));
  }
  return absl::OkStatus();
}

// `games` games with `people_side`'s party against the other strategy's accounts.
absl::Status PlayPhase(Match& m, int people_side, int games, std::vector<Account>* accounts) {
  const ServiceMatchOptions& o = m.options;
  const size_t first = accounts->size();
  if (absl::Status s = StartAccounts(m, people_side ? o.a : o.b, accounts); !s.ok()) return s;
  std::vector<std::string> bot_ids;
  for (size_t i = first; i < accounts->size(); ++i) bot_ids.push_back((*accounts)[i].bot_id);
  // The accounts' streams must be open before a party's bot fill comes due (a
  // seat no bot has room for goes to the autopilot; such a game is replayed).
  absl::SleepFor(o.bot_connect_wait);
  std::atomic<int> remaining{games};
  std::atomic<bool> failed{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < std::min(o.tables, games); ++t) {
    workers.emplace_back([&] {
      while (!failed.load() && remaining.fetch_sub(1) > 0) {
        absl::StatusOr<ServiceGame> game = PlayGame(m, people_side, bot_ids);
        absl::MutexLock lock(&m.mu);
        if (game.ok()) {
          m.report.games.push_back(*std::move(game));
          continue;
        }
        std::cerr << "trix-service-match: game replayed: " << game.status() << "\n";
        remaining.fetch_add(1);
        if (++m.report.discarded > o.max_discarded) failed.store(true);
      }
    });
  }
  for (std::thread& w : workers) w.join();
  for (size_t i = first; i < accounts->size(); ++i) {
    (*accounts)[i].process->Stop(absl::Seconds(5));
  }
  if (failed.load()) {
    return absl::AbortedError(absl::StrCat("more than ", o.max_discarded,
                                           " games were not played as planned"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServiceMatchReport> PlayServiceMatch(const ServiceMatchOptions& options) {
  absl::StatusOr<v1::Mode> mode = wire::ModeFromName(options.mode);
  if (!mode.ok()) return mode.status();
  for (const std::string& s : {options.a, options.b}) {
    if (bots::ParseBotLevel(s).ok()) continue;  // a level
    if (absl::Status st = bots::MakeStrategy(s, 1).status(); !st.ok()) return st;
  }
  if (options.games < 2 || options.tables < 1 || options.run_id.empty()) {
    return absl::InvalidArgumentError("need at least 2 games, 1 table and a run id");
  }
  Match m(options, *mode);
  const absl::Time start = absl::Now();
  std::vector<Account> accounts;
  const int first_half = (options.games + 1) / 2;
  for (int side = 0; side < 2; ++side) {
    if (absl::Status s =
            PlayPhase(m, side, side == 0 ? first_half : options.games - first_half, &accounts);
        !s.ok()) {
      return s;
    }
  }
  absl::MutexLock lock(&m.mu);
  m.report.options = options;
  m.report.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  for (const Account& a : accounts) {
    absl::StatusOr<v1::Rating> rating = m.lobby.RatingOf(a.bot_id, m.mode);
    if (!rating.ok()) return rating.status();
    m.report.bots.push_back({a.name, a.strategy, a.bot_id, *rating});
  }
  return m.report;
}

}  // namespace trix::arena
