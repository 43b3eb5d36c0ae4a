// trix-end-checks: the checks a fault scenario, the soak run and the stack test end
// with, on every game of a Mamlaka database (fault_checks.h), for the scripts that
// run a deployment of their own:
//
//   trix-end-checks --database_url=postgresql://... --replay_dir=DIR [--games=N]
//                   [--wait_rated=30s]
//
// In order: every finished game's stored log, as a rule case (trix-game-cases),
// replays through trix-replay's engine to the result the table service recorded
// (only with --replay_dir, where its files go; --games: and there are exactly N);
// the ratings service consumes every finished game's outbox row (waited for up to
// --wait_rated); each finished game was rated once; its money moved once. Prints
// PASS or FAIL with what is wrong for each; exit status 1 when one failed, 2 on a
// bad command line.
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/common/config.h"
#include "tests/fault/fault_checks.h"

namespace trix::fault {
namespace {

struct Flags {
  std::string database_url;
  std::string replay_dir;
  int games = -1;
  absl::Duration wait_rated = absl::Seconds(30);
};

// Prints the verdict of one check; true when it passed.
bool Verdict(const std::string& name, const ::testing::AssertionResult& result) {
  std::cout << (result ? "PASS " : "FAIL ") << name << "\n";
  if (!result && *result.message() != '\0') std::cout << "  " << result.message() << "\n";
  return static_cast<bool>(result);
}
bool Verdict(const std::string& name, const std::vector<std::string>& wrong) {
  std::cout << (wrong.empty() ? "PASS " : "FAIL ") << name << "\n";
  for (const std::string& line : wrong) std::cout << "  " << line << "\n";
  return wrong.empty();
}

bool Checks(const Flags& f) {
  bool ok = true;
  if (!f.replay_dir.empty()) {
    ok &= Verdict("every finished game's log replays to its recorded result",
                  GamesReplay(f.database_url, f.replay_dir, f.games));
  }
  const int seconds = static_cast<int>(absl::ToInt64Seconds(f.wait_rated));
  ok &= Verdict("every finished game consumed by the ratings service",
                WaitRated(f.database_url, seconds));
  ok &= Verdict("every finished game rated once", RatedOnce(f.database_url));
  ok &= Verdict("every finished game's money moved once", LedgerOnce(f.database_url));
  return ok;
}

int Run(int argc, char** argv) {
  Flags f;
  service::Config config("trix-end-checks", "MAMLAKA_");
  config.Bind("database_url", &f.database_url, "the PostgreSQL database");
  config.Bind("replay_dir", &f.replay_dir,
              "replay every finished game, its files here (empty: no replay)");
  config.Bind("games", &f.games,
              "the finished games the replay expects (-1: any number)");
  config.Bind("wait_rated", &f.wait_rated,
              "how long to wait for the ratings service to consume every result");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv))
    return *exit_code;
  if (f.database_url.empty()) {
    std::cerr << "trix-end-checks: --database_url is required\n";
    return 2;
  }
  try {
    return Checks(f) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "FAIL the database could not be read: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace
}  // namespace trix::fault

int main(int argc, char** argv) { return trix::fault::Run(argc, argv); }
