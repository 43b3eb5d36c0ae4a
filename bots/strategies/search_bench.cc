// search-bench: the costs the search strategy's budget is spent on — one sampled
// deal, one playout per contract, an exact endgame, a Trix solve — so that a
// decision's samples per millisecond can be read off (docs/benchmarks.md).
//
//   build/bin/search-bench --benchmark_min_time=0.2s
#include <cstdint>

#include "benchmark/benchmark.h"
#include "bots/strategies/search_belief.h"
#include "bots/strategies/search_playout.h"
#include "bots/strategies/strategy_testing.h"
#include "engine/random.h"

namespace trix::bots::search {
namespace {

using engine::Contract;
using engine::Deal;

void BM_SampleHands(benchmark::State& state) {
  const engine::Hands dealt = engine::ShuffledHands(1, 0);
  Belief b;
  b.viewer = 0;
  b.known = dealt[0];
  b.unseen = engine::kAllCards & ~dealt[0];
  for (int s = 1; s < 4; ++s) b.need[s] = 13;
  b.cannot[1] = engine::SuitCards(engine::kSpades) & b.unseen & ~dealt[1];
  engine::Rng rng(2);
  engine::Hands h;
  for (auto _ : state) benchmark::DoNotOptimize(SampleHands(b, rng, &h));
}
BENCHMARK(BM_SampleHands);

void BM_Playout(benchmark::State& state) {
  const auto contract = static_cast<Contract>(state.range(0));
  const engine::Rules rules = RulesFor(true, contract == Contract::kComplex);
  engine::Rng rng(3);
  std::array<Deal, 64> deals;
  for (Deal& d : deals) {
    d = Deal(rules, contract, 0, engine::ShuffledHands(rng.Next(), 0), engine::Hands{});
  }
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(Playout(deals[i++ & 63], true));
  state.SetLabel(engine::ContractName(contract));
}
BENCHMARK(BM_Playout)->DenseRange(0, 5);

// A deal played by the policy down to `left` cards in the hands.
Deal Endgame(const engine::Rules& rules, Contract contract, uint64_t seed, int left) {
  Deal d(rules, contract, 0, engine::ShuffledHands(seed, 0), engine::Hands{});
  const bool partner = rules.variant.team == engine::Team::kPartner;
  while (!d.over() && engine::Count(d.hands()[0] | d.hands()[1] | d.hands()[2] |
                                    d.hands()[3]) > left) {
    d.Play(PolicyCard(d, partner));
  }
  return d;
}

void BM_SolveComplexEndgame(benchmark::State& state) {
  const bool partner = state.range(1);
  const Deal d = Endgame(RulesFor(partner, true), Contract::kComplex, 5, state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(SolveTricks(d, partner));
  state.SetLabel(partner ? "partner" : "solo");
}
BENCHMARK(BM_SolveComplexEndgame)->ArgsProduct({{8, 12}, {0, 1}});

void BM_SolveTrix(benchmark::State& state) {
  const Deal d = Endgame(RulesFor(false, false), Contract::kTrix, 7, state.range(0));
  TrixSolver solver;
  int64_t nodes = 0;
  for (auto _ : state) {
    solver.NewHands();
    benchmark::DoNotOptimize(solver.Solve(d, false, 3000));
    nodes = solver.nodes();
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}
BENCHMARK(BM_SolveTrix)->Arg(16)->Arg(20)->Arg(24);

}  // namespace
}  // namespace trix::bots::search

BENCHMARK_MAIN();
