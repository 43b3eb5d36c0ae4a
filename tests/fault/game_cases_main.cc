// trix-game-cases: writes every finished game of a Mamlaka database as a rule case
// (game_case.h) and, line for line, the result the table service recorded in its
// game_results row, so that the engine replays each stored log on its own:
//
//   trix-game-cases --database_url=postgresql://... --since='2026-01-01 10:00'
//                   --cases=cases.jsonl --expected=recorded.jsonl
//   trix-replay < cases.jsonl > replayed.jsonl
//   trix-conformance-compare recorded.jsonl replayed.jsonl
//
// Prints the number of games written. Exit status 1 when a finished game has no
// game_results row, or a log or record that is not the table service's format.
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "pqxx/pqxx"
#include "services/common/config.h"
#include "services/table/store/game_store.h"
#include "tests/fault/game_case.h"

namespace trix::fault {
namespace {

struct Flags {
  std::string database_url;
  std::string since = "-infinity";
  std::string cases = "cases.jsonl";
  std::string expected = "recorded.jsonl";
};

// Finished games created at or after `since`, oldest first, with their outbox
// payload ("" when there is none).
std::vector<std::pair<std::string, std::string>> FinishedGames(const Flags& f) {
  pqxx::connection c(f.database_url);
  pqxx::read_transaction tx(c);
  std::vector<std::pair<std::string, std::string>> games;
  for (const pqxx::row& row : tx.exec_params(
           "SELECT g.id, coalesce(r.payload::text, '') FROM games g "
           "LEFT JOIN game_results r ON r.game_id = g.id "
           "WHERE g.finished IS NOT NULL AND g.created >= $1::timestamptz "
           "ORDER BY g.created, g.id",
           f.since)) {
    games.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
  }
  return games;
}

int Run(int argc, char** argv) {
  Flags f;
  service::Config config("trix-game-cases", "MAMLAKA_");
  config.Bind("database_url", &f.database_url, "the PostgreSQL database");
  config.Bind("since", &f.since, "only games created at or after this time");
  config.Bind("cases", &f.cases, "where the rule cases go");
  config.Bind("expected", &f.expected, "where the recorded results go");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) return *exit_code;

  std::vector<std::pair<std::string, std::string>> games;
  try {
    games = FinishedGames(f);
  } catch (const std::exception& e) {
    std::cerr << "trix-game-cases: " << e.what() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<table::GameStore>> store =
      table::GameStore::Open({.url = f.database_url, .instance_id = "trix-game-cases"});
  if (!store.ok()) {
    std::cerr << "trix-game-cases: " << store.status() << "\n";
    return 1;
  }
  std::ofstream cases(f.cases);
  std::ofstream expected(f.expected);
  int failed = 0;
  for (const auto& [game_id, payload] : games) {
    absl::StatusOr<table::StoredGame> stored = (*store)->LoadGame(game_id);
    absl::StatusOr<nlohmann::json> c =
        stored.ok() ? GameCase(*stored) : absl::StatusOr<nlohmann::json>(stored.status());
    absl::StatusOr<nlohmann::json> want =
        payload.empty() ? absl::DataLossError("finished without a game_results row")
                        : RecordedResult(game_id, payload);
    if (!c.ok() || !want.ok()) {
      std::cerr << "trix-game-cases: game " << game_id << ": "
                << (c.ok() ? want.status() : c.status()) << "\n";
      ++failed;
      continue;
    }
    cases << c->dump() << "\n";
    expected << want->dump() << "\n";
  }
  std::cout << games.size() - failed << " finished games written\n";
  return failed == 0 && cases && expected ? 0 : 1;
}

}  // namespace
}  // namespace trix::fault

int main(int argc, char** argv) { return trix::fault::Run(argc, argv); }
