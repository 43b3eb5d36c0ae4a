// trix-arena: plays two strategies against each other in-process with duplicate
// deals and reports who is stronger, by how much, where, and how fast each decides.
//
//   trix-arena --mode=complex-partner --games=2000 --a=heuristic --b=random
//              --seed=1 --threads=2 --json=/tmp/arena.json
//
// Exit status: 0 after a match, 1 when a game could not be played (a strategy's
// illegal answer, say), 2 for bad flags.
#include <iostream>
#include <string>

#include "bots/arena/arena.h"
#include "bots/arena/arena_report.h"
#include "services/common/config.h"

namespace trix::arena {
namespace {

int Run(int argc, char** argv) {
  MatchOptions options;
  int64_t seed = static_cast<int64_t>(options.seed);
  std::string json;
  service::Config config("trix-arena", "TRIX_ARENA_");
  config.Bind("mode", &options.mode, "classic-solo, classic-partner, complex-solo or "
                                     "complex-partner");
  config.Bind("games", &options.games, "games to play (whole duplicate pairs of two)");
  config.Bind("a", &options.a, "strategy A (random, heuristic, ...)");
  config.Bind("b", &options.b, "strategy B");
  config.Bind("seed", &seed, "the match's seed: the deals and the strategies' seeds");
  config.Bind("threads", &options.threads, "games played at once");
  config.Bind("search_samples", &options.search.samples,
              "search: sampled deals per card decision at most");
  config.Bind("search_budget", &options.search.budget,
              "search: time per decision at most, e.g. 60ms; a long one makes the "
              "strength independent of the machine's load");
  config.Bind("json", &json, "also write the report as JSON to this file (- for stdout)");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
    return *exit_code;
  }
  options.seed = static_cast<uint64_t>(seed);
  absl::StatusOr<MatchReport> report = PlayMatch(options);
  if (!report.ok()) {
    std::cerr << "trix-arena: " << report.status() << "\n";
    return report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (json == "-") {
    std::cout << ReportJson(*report).dump(2) << "\n";
    return 0;
  }
  std::cout << ReportText(*report);
  if (!json.empty() && !WriteReportJson(ReportJson(*report), json, "trix-arena")) {
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace trix::arena

int main(int argc, char** argv) { return trix::arena::Run(argc, argv); }
