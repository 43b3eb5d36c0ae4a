// engine-bench: speed of the rules engine, and proof that its play loop does not
// allocate.
//
// Deal playouts and legal-move generation run on the hot core (Deal) with hands
// dealt ahead of time from a pool, so shuffling is measured on its own
// (BM_ShuffledHands). Whole games run through Game with uniformly random legal
// actions (doubles included) or with the server's autopilot. Global operator
// new/delete are replaced by counting versions; `allocs_per_play` must be 0 for
// the Deal benchmarks (for BM_LegalCards it is per call), and Game benchmarks
// report what they allocate (event and action vectors).
//
//   build/bin/engine-bench --benchmark_min_time=1
//   build/bin/engine-bench --benchmark_filter=DealPlayout
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/autopilot.h"
#include "engine/cards.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/random.h"
#include "engine/rules.h"

// ---------------------------------------------------------------------------
// Counting allocator. Every form of global new ends here, so a heap allocation
// anywhere in the process during a timed loop shows up in the counter.
namespace {
std::atomic<uint64_t> g_allocations{0};

void* CountedAlloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void* CountedAlignedAlloc(std::size_t size, std::align_val_t align) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(align);
  // aligned_alloc wants a size that is a multiple of the alignment.
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return CountedAlloc(size); }
void* operator new[](std::size_t size) { return CountedAlloc(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new(std::size_t size, std::align_val_t align) {
  return CountedAlignedAlloc(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return CountedAlignedAlloc(size, align);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace trix::engine {
namespace {

constexpr uint64_t kSeed = 0x7A1C5EEDu;
constexpr uint32_t kPoolSize = 4096;  // a power of two: index with `& (size - 1)`
constexpr std::array<Contract, kNumContracts> kAllContracts = {
    Contract::kKingOfHearts, Contract::kQueens,  Contract::kDiamonds,
    Contract::kTricks,       Contract::kComplex, Contract::kTrix};

// A deal prepared outside the timed loops.
struct PooledDeal {
  Hands hands;
  int owner;
  // Random bits; each holder doubles the doublable cards it holds that are set
  // here, i.e. each with probability 1/2.
  CardSet double_choice;
};

const std::vector<PooledDeal>& Pool() {
  static const std::vector<PooledDeal> pool = [] {
    std::vector<PooledDeal> deals(kPoolSize);
    Rng rng(kSeed);
    for (uint32_t i = 0; i < kPoolSize; ++i) {
      deals[i] = {ShuffledHands(kSeed, static_cast<int>(i)),
                  static_cast<int>(i % kNumSeats), rng.Next()};
    }
    return deals;
  }();
  return pool;
}

Hands DoublesFor(const PooledDeal& deal, Contract contract, const Rules& rules) {
  const CardSet doubled = deal.double_choice & DoublableCards(contract, rules.options);
  Hands by{};
  for (int s = 0; s < kNumSeats; ++s) by[s] = deal.hands[s] & doubled;
  return by;
}

Card RandomCard(CardSet legal, Rng& rng) {
  return NthCard(legal, static_cast<int>(rng.Below(static_cast<uint32_t>(Count(legal)))));
}

// Plays random legal cards to the end of the deal; returns the cards played.
int PlayOut(Deal& deal, Rng& rng) {
  int plays = 0;
  while (!deal.over()) {
    deal.Play(RandomCard(deal.LegalCards(), rng));
    ++plays;
  }
  return plays;
}

void ReportAllocations(benchmark::State& state, uint64_t allocations, int64_t plays) {
  state.counters["allocs_per_play"] =
      plays ? static_cast<double>(allocations) / static_cast<double>(plays) : 0.0;
}

// ---------------------------------------------------------------------------
// 1. Random playouts of single deals. `contract` kNoContract cycles through all.
void BM_DealPlayout(benchmark::State& state, Contract contract) {
  const Rules rules;
  const std::vector<PooledDeal>& pool = Pool();
  Rng rng(kSeed);
  uint32_t n = 0;
  int64_t plays = 0;
  const uint64_t allocations_before = g_allocations.load();
  for (auto _ : state) {
    const PooledDeal& dealt = pool[n & (kPoolSize - 1)];
    const Contract c =
        contract == kNoContract ? kAllContracts[n % kNumContracts] : contract;
    ++n;
    Deal deal(rules, c, dealt.owner, dealt.hands, DoublesFor(dealt, c, rules));
    plays += PlayOut(deal, rng);
    benchmark::DoNotOptimize(deal.scores());
  }
  const uint64_t allocations = g_allocations.load() - allocations_before;
  state.SetItemsProcessed(plays);
  ReportAllocations(state, allocations, plays);
}
BENCHMARK_CAPTURE(BM_DealPlayout, king_of_hearts, Contract::kKingOfHearts);
BENCHMARK_CAPTURE(BM_DealPlayout, queens, Contract::kQueens);
BENCHMARK_CAPTURE(BM_DealPlayout, diamonds, Contract::kDiamonds);
BENCHMARK_CAPTURE(BM_DealPlayout, tricks, Contract::kTricks);
BENCHMARK_CAPTURE(BM_DealPlayout, complex, Contract::kComplex);
BENCHMARK_CAPTURE(BM_DealPlayout, trix, Contract::kTrix);
BENCHMARK_CAPTURE(BM_DealPlayout, mixed, kNoContract);

// Shuffling, which the playouts above leave out.
void BM_ShuffledHands(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(ShuffledHands(kSeed, i++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ShuffledHands);

// ---------------------------------------------------------------------------
// 2. Legal-move generation alone, on mid-deal states of every contract.
constexpr int kStates = 512;  // ~90 KB of Deals: the states stay in L2

std::vector<Deal> MidDealStates() {
  const Rules rules;
  const std::vector<PooledDeal>& pool = Pool();
  Rng rng(kSeed + 1);
  std::vector<Deal> states;
  states.reserve(kStates);
  for (uint32_t i = 0; static_cast<int>(states.size()) < kStates; ++i) {
    const PooledDeal& dealt = pool[i & (kPoolSize - 1)];
    const Contract c = kAllContracts[i % kNumContracts];
    Deal deal(rules, c, dealt.owner, dealt.hands, DoublesFor(dealt, c, rules));
    const int stop = static_cast<int>(rng.Below(4 * kHandSize));
    for (int k = 0; k < stop && !deal.over(); ++k) {
      deal.Play(RandomCard(deal.LegalCards(), rng));
    }
    if (!deal.over()) states.push_back(deal);
  }
  return states;
}

void BM_LegalCards(benchmark::State& state) {
  const std::vector<Deal> states = MidDealStates();
  int64_t calls = 0;
  const uint64_t allocations_before = g_allocations.load();
  for (auto _ : state) {
    for (const Deal& deal : states) benchmark::DoNotOptimize(deal.LegalCards());
    calls += kStates;
  }
  const uint64_t allocations = g_allocations.load() - allocations_before;
  state.SetItemsProcessed(calls);
  ReportAllocations(state, allocations, calls);  // per call
}
BENCHMARK(BM_LegalCards);

// ---------------------------------------------------------------------------
// 3 and 4. Whole games through Game.
void MustApply(Game& game, const Action& action) {
  const absl::Status status = game.Apply(action);
  if (!status.ok()) {
    std::fprintf(stderr, "engine-bench: %s\n", status.ToString().c_str());
    std::abort();
  }
}

Contract RandomContract(const Game& game, Rng& rng) {
  const uint32_t available = game.AvailableContracts();
  return static_cast<Contract>(
      NthCard(available, static_cast<int>(rng.Below(Count(available)))));
}

// Plays one game, dealing from the pool from `next_deal` on; `autopilot` takes
// every decision with AutopilotAction, otherwise each is uniformly random among
// the legal ones. Returns the cards played.
int64_t PlayGame(const Rules& rules, bool autopilot, Rng& rng, uint32_t& next_deal) {
  const std::vector<PooledDeal>& pool = Pool();
  Game game(rules);
  int64_t plays = 0;
  while (game.phase() != Phase::kGameOver) {
    switch (game.phase()) {
      case Phase::kDealing:
        MustApply(game, Action::Deal(pool[next_deal++ & (kPoolSize - 1)].hands));
        break;
      case Phase::kChoosingContract:
        MustApply(game, autopilot ? AutopilotAction(game, game.owner())
                                  : Action::ChooseContract(game.owner(),
                                                           RandomContract(game, rng)));
        break;
      case Phase::kDoubling:
        for (int s = 0; s < kNumSeats; ++s) {
          const CardSet doubles = game.DoublableFor(s) & rng.Next();
          if (!autopilot && doubles) MustApply(game, Action::SelectDoubles(s, doubles));
          MustApply(game, autopilot ? AutopilotAction(game, s) : Action::Ready(s));
        }
        break;
      case Phase::kPlaying: {
        const int seat = game.ToAct();
        MustApply(game, autopilot ? AutopilotAction(game, seat)
                                  : Action::PlayCard(
                                        seat, RandomCard(game.LegalCards(seat), rng)));
        ++plays;
        break;
      }
      case Phase::kGameOver:
        break;
    }
  }
  benchmark::DoNotOptimize(game.totals());
  return plays;
}

void RunGames(benchmark::State& state, Variant variant, bool autopilot) {
  const Rules rules{variant, Options{}};
  Rng rng(kSeed);
  uint32_t next_deal = 0;
  int64_t plays = 0;
  const uint64_t allocations_before = g_allocations.load();
  for (auto _ : state) plays += PlayGame(rules, autopilot, rng, next_deal);
  const uint64_t allocations = g_allocations.load() - allocations_before;
  state.SetItemsProcessed(plays);
  state.counters["games"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
  ReportAllocations(state, allocations, plays);
  state.counters["allocs_per_game"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations());
}

void BM_RandomGame(benchmark::State& state, Variant variant) {
  RunGames(state, variant, /*autopilot=*/false);
}
void BM_AutopilotGame(benchmark::State& state, Variant variant) {
  RunGames(state, variant, /*autopilot=*/true);
}

constexpr Variant kClassicSolo{Team::kSolo, Format::kClassic};
constexpr Variant kClassicPartner{Team::kPartner, Format::kClassic};
constexpr Variant kComplexSolo{Team::kSolo, Format::kComplex};
constexpr Variant kComplexPartner{Team::kPartner, Format::kComplex};

BENCHMARK_CAPTURE(BM_RandomGame, classic_solo, kClassicSolo);
BENCHMARK_CAPTURE(BM_RandomGame, classic_partner, kClassicPartner);
BENCHMARK_CAPTURE(BM_RandomGame, complex_solo, kComplexSolo);
BENCHMARK_CAPTURE(BM_RandomGame, complex_partner, kComplexPartner);
BENCHMARK_CAPTURE(BM_AutopilotGame, classic_solo, kClassicSolo);
BENCHMARK_CAPTURE(BM_AutopilotGame, classic_partner, kClassicPartner);
BENCHMARK_CAPTURE(BM_AutopilotGame, complex_solo, kComplexSolo);
BENCHMARK_CAPTURE(BM_AutopilotGame, complex_partner, kComplexPartner);

}  // namespace
}  // namespace trix::engine

BENCHMARK_MAIN();
