// Side-by-side harness (engine/bench/compare/build.sh); not part of the build.
// xinxin (Sturtevant's) Hearts played like BM_DealPlayout: deals made before timing;
// per card: getMoves (the legal list) + a uniform pick with the same SplitMix64 +
// ApplyMove, the list freed. Rules as OpenSpiel's defaults map them.
#include <vector>
#include "Hearts.h"
#include "benchmark/benchmark.h"
using namespace hearts;
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
void BM_XinxinHeartsPlayout(benchmark::State& st) {
  Rng rng{0x7A1C5EEDu};
  std::vector<std::vector<std::vector<card>>> pool(kPool);
  for (auto& deal : pool) {
    card deck[52];
    for (int i = 0; i < 52; ++i) deck[i] = Deck::getcard(i / 13, i % 13);
    for (int i = 51; i > 0; --i) std::swap(deck[i], deck[rng.Below(i + 1)]);
    deal.assign(4, {});
    for (int i = 0; i < 52; ++i) deal[i / 13].push_back(deck[i]);
  }
  HeartsGameState gs;
  gs.setRules(kQueenPenalty | kNoHeartsFirstTrick | kNoQueenFirstTrick | kLead2Clubs |
              kQueenBreaksHearts | kMustBreakHearts);
  gs.deletePlayers();
  for (int i = 0; i < 4; ++i) {
    auto* p = new SafeSimpleHeartsPlayer(nullptr);
    gs.addPlayer(p);
    p->setGameState(&gs);
  }
  int64_t plays = 0;
  uint32_t n = 0;
  for (auto _ : st) {
    gs.Reset();
    gs.SetInitialCards(pool[n++ & (kPool - 1)]);
    gs.setPassDir(kHold);
    gs.setFirstPlayer(0);
    while (!gs.Done()) {
      Move* moves = gs.getMoves();
      int count = 0;
      for (Move* m = moves; m; m = m->next) ++count;
      Move* chosen = moves;
      for (int k = rng.Below(count); k > 0; --k) chosen = chosen->next;
      gs.ApplyMove(chosen);
      for (Move* m = moves; m;) { Move* next = m->next; m->next = nullptr; gs.freeMove(m); m = next; }
      ++plays;
    }
    benchmark::DoNotOptimize(gs.score(0));
  }
  st.SetItemsProcessed(plays);
}
BENCHMARK(BM_XinxinHeartsPlayout);
void BM_XinxinHeartsOwnRandomMove(benchmark::State& st) {
  Rng rng{0x7A1C5EEDu};
  std::vector<std::vector<std::vector<card>>> pool(kPool);
  for (auto& deal : pool) {
    card deck[52];
    for (int i = 0; i < 52; ++i) deck[i] = Deck::getcard(i / 13, i % 13);
    for (int i = 51; i > 0; --i) std::swap(deck[i], deck[rng.Below(i + 1)]);
    deal.assign(4, {});
    for (int i = 0; i < 52; ++i) deal[i / 13].push_back(deck[i]);
  }
  HeartsGameState gs;
  gs.setRules(kQueenPenalty | kNoHeartsFirstTrick | kNoQueenFirstTrick | kLead2Clubs |
              kQueenBreaksHearts | kMustBreakHearts);
  gs.deletePlayers();
  for (int i = 0; i < 4; ++i) {
    auto* p = new SafeSimpleHeartsPlayer(nullptr);
    gs.addPlayer(p);
    p->setGameState(&gs);
  }
  int64_t plays = 0;
  uint32_t n = 0;
  for (auto _ : st) {
    gs.Reset();
    gs.SetInitialCards(pool[n++ & (kPool - 1)]);
    gs.setPassDir(kHold);
    gs.setFirstPlayer(0);
    while (!gs.Done()) {
      Move* chosen = gs.getRandomMove();
      gs.ApplyMove(chosen);
      gs.freeMove(chosen);
      ++plays;
    }
    benchmark::DoNotOptimize(gs.score(0));
  }
  st.SetItemsProcessed(plays);
}
BENCHMARK(BM_XinxinHeartsOwnRandomMove);
}  // namespace
BENCHMARK_MAIN();
