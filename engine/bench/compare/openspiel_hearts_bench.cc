// Side-by-side harness (engine/bench/compare/build.sh); not part of the build.
// OpenSpiel Hearts played like BM_DealPlayout: states dealt (no passing) before
// timing; per card: LegalActions + a uniform pick with the same SplitMix64 + Apply.
#include <memory>
#include <vector>
#include "benchmark/benchmark.h"
#include "open_spiel/spiel.h"

namespace {
struct Rng {
  uint64_t state_;
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(((Next() >> 32) * uint64_t{n}) >> 32); }
};
constexpr int kPool = 4096;

void BM_OpenSpielHeartsPlayout(benchmark::State& st) {
  auto game = open_spiel::LoadGame("hearts", {{"pass_cards", open_spiel::GameParameter(false)}});
  Rng rng{0x7A1C5EEDu};
  std::vector<std::unique_ptr<open_spiel::State>> pool;
  for (int i = 0; i < kPool; ++i) {
    auto s = game->NewInitialState();
    while (s->IsChanceNode()) {
      auto legal = s->LegalActions();
      s->ApplyAction(legal[rng.Below(legal.size())]);
    }
    pool.push_back(std::move(s));
  }
  int64_t plays = 0;
  uint32_t n = 0;
  for (auto _ : st) {
    auto s = pool[n++ & (kPool - 1)]->Clone();
    while (!s->IsTerminal()) {
      std::vector<open_spiel::Action> legal = s->LegalActions();
      s->ApplyAction(legal[rng.Below(legal.size())]);
      ++plays;
    }
    benchmark::DoNotOptimize(s->Returns());
  }
  st.SetItemsProcessed(plays);
}
BENCHMARK(BM_OpenSpielHeartsPlayout);
}  // namespace
BENCHMARK_MAIN();
