// trix-strategy-match: two strategies play each other in-process on the table
// service's own logic (LocalTable), with duplicate deals: every game's deals are
// played twice, the strategies swapping seats (A B A B, then B A B A), so that the
// cards cancel out. Prints A's lead over B in points per game with a 95%
// confidence interval, the lead per contract, and the search strategy's decision
// times. A tuning tool for bots/strategies; the arena (trix-arena) is the
// reference measurement.
//
//   trix-strategy-match --mode complex-partner --a search --b heuristic --games 50
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/search_bot.h"
#include "bots/strategies/level.h"
#include "services/common/config.h"

namespace trix::bots {
namespace {

struct Flags {
  std::string mode = "complex-partner";
  std::string a = "search";
  std::string b = "heuristic";
  int games = 20;
  int64_t seed = 1;
  SearchOptions search;
};

struct Tally {
  std::vector<double> lead;  // A minus B, points per game, one per duplicate pair
  std::array<double, engine::kNumContracts> by_contract{};
  std::vector<double> contract, doubling, trick_card, trix_card;
};

void Append(std::vector<double>& to, const std::vector<double>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Points per seat of strategy A minus B in one game, and per contract.
double PlayGame(const Flags& f, uint64_t seed, bool a_even, Tally& tally) {
  LocalTable table(LocalTableOptions{.mode = f.mode, .seed = seed});
  std::array<std::unique_ptr<Bot>, 4> bots;
  std::array<Bot*, 4> seats;
  for (int s = 0; s < 4; ++s) {
    const bool is_a = (s % 2 == 0) == a_even;
    bots[s] = MakeBotNamed(is_a ? f.a : f.b, seed * 4 + s, f.search).value();
    seats[s] = bots[s].get();
  }
  const absl::Status played = table.PlayToEnd(seats);
  if (!played.ok()) {
    std::fprintf(stderr, "game %llu: %s\n", static_cast<unsigned long long>(seed),
                 std::string(played.message()).c_str());
    std::exit(1);
  }
  const int a0 = a_even ? 0 : 1;
  const auto lead = [&](const engine::Scores& v) {
    return (v[a0] + v[a0 + 2] - v[1 - a0] - v[3 - a0]) / 2.0;
  };
  engine::Contract contract = engine::kNoContract;
  const engine::Game whole = table.table().WholeGame();
  for (const engine::Event& e : whole.events()) {
    if (e.type == engine::EventType::kContractChosen) contract = e.contract;
    if (e.type == engine::EventType::kDealEnded) {
      tally.by_contract[static_cast<int>(contract)] += lead(e.values);
    }
  }
  for (int s = 0; s < 4; ++s) {
    if (auto* search = dynamic_cast<SearchBot*>(bots[s].get())) {
      Append(tally.contract, search->timings().contract);
      Append(tally.doubling, search->timings().doubling);
      Append(tally.trick_card, search->timings().trick_card);
      Append(tally.trix_card, search->timings().trix_card);
    }
  }
  return lead(table.table().game().totals());
}

void PrintTimes(const char* phase, std::vector<double> t) {
  if (t.empty()) return;
  std::sort(t.begin(), t.end());
  const auto at = [&](double q) {
    return t[std::min(t.size() - 1, size_t(q * t.size()))];
  };
  std::printf("  %-10s n=%-6zu p50 %6.1f ms  p95 %6.1f ms  p99 %6.1f ms  max %6.1f ms\n",
              phase, t.size(), at(0.5), at(0.95), at(0.99), t.back());
}

int Run(int argc, char** argv) {
  Flags f;
  service::Config config("trix-strategy-match", "TRIX_MATCH_");
  config.Bind("mode", &f.mode, "classic-solo, classic-partner, complex-solo, ...");
  config.Bind("a", &f.a, "strategy A");
  config.Bind("b", &f.b, "strategy B");
  config.Bind("games", &f.games, "duplicate pairs of games");
  config.Bind("seed", &f.seed, "the first game's seed");
  config.Bind("search_budget", &f.search.budget, "search: time per decision");
  config.Bind("search_samples", &f.search.samples, "search: deals per card decision");
  config.Bind("search_contract_samples", &f.search.contract_samples,
              "search: deals per contract");
  config.Bind("search_double_samples", &f.search.double_samples,
              "search: deals per doubling choice");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
    return *exit_code;
  }
  Tally tally;
  for (int g = 0; g < f.games; ++g) {
    const uint64_t seed = static_cast<uint64_t>(f.seed + g);
    const double lead =
        (PlayGame(f, seed, true, tally) + PlayGame(f, seed, false, tally)) / 2;
    tally.lead.push_back(lead);
  }
  double mean = 0, var = 0;
  for (double x : tally.lead) mean += x;
  mean /= tally.lead.size();
  for (double x : tally.lead) var += (x - mean) * (x - mean);
  const double n = tally.lead.size();
  const double half = 1.96 * std::sqrt(var / std::max(1.0, n - 1) / n);
  std::printf("%s: %s vs %s, %d duplicate pairs (%d games)\n", f.mode.c_str(),
              f.a.c_str(), f.b.c_str(), f.games, 2 * f.games);
  // Partner: A's team points per game (B's team has the opposite). Solo: the
  // mean of A's seats minus the mean of B's.
  std::printf("  %s leads by %.1f points per game (95%% CI %.1f .. %.1f)\n", f.a.c_str(),
              mean, mean - half, mean + half);
  for (int c = 0; c < engine::kNumContracts; ++c) {
    if (tally.by_contract[c] == 0) continue;
    std::printf("  %-14s %+8.1f per game\n",
                engine::ContractName(static_cast<engine::Contract>(c)).c_str(),
                tally.by_contract[c] / (2 * n));
  }
  PrintTimes("contract", tally.contract);
  PrintTimes("doubling", tally.doubling);
  PrintTimes("trick card", tally.trick_card);
  PrintTimes("trix card", tally.trix_card);
  return 0;
}

}  // namespace
}  // namespace trix::bots

int main(int argc, char** argv) { return trix::bots::Run(argc, argv); }
